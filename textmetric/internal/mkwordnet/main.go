// Command mkwordnet builds textmetric/data/wordnet.txt.gz, the compact WordNet
// 3.0 index METEOR needs (lemma → synsets per part of speech, each synset's
// lemma names, and the morphological exception lists), from the WordNet
// database files of Debian's wordnet-base:
//
//	go run ./textmetric/internal/mkwordnet /usr/share/wordnet textmetric/data/wordnet.txt.gz
package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

var files = map[string]string{"n": "noun", "v": "verb", "a": "adj", "r": "adv"}

var marker = regexp.MustCompile(`^(.*?)(\(.*\))?$`)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mkwordnet WORDNET_DIR OUT")
		os.Exit(2)
	}
	dir, out := os.Args[1], os.Args[2]
	type key struct {
		pos    string
		offset int64
	}
	ids := map[key]int{}
	var names [][]string
	var index []string
	var exc []string
	for _, pos := range []string{"n", "v", "a", "r"} {
		// Synsets: lemma names without "_", adjective markers stripped.
		lemmas := map[int64][]string{}
		f, err := os.Open(filepath.Join(dir, "data."+files[pos]))
		must(err)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, " ") {
				continue
			}
			fs := strings.Fields(line)
			off, err := strconv.ParseInt(fs[0], 10, 64)
			must(err)
			n, err := strconv.ParseInt(fs[3], 16, 64)
			must(err)
			var ns []string
			for i := 0; i < int(n); i++ {
				name := marker.FindStringSubmatch(fs[4+2*i])[1]
				if !strings.Contains(name, "_") {
					ns = append(ns, name)
				}
			}
			lemmas[off] = ns
		}
		f.Close()
		f, err = os.Open(filepath.Join(dir, "index."+files[pos]))
		must(err)
		sc = bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, " ") {
				continue
			}
			fs := strings.Fields(line)
			nSyn, _ := strconv.Atoi(fs[2])
			nPtr, _ := strconv.Atoi(fs[3])
			offs := fs[4+nPtr+2:]
			if len(offs) != nSyn {
				panic("bad index line: " + line)
			}
			var refs []string
			for _, o := range offs {
				off, err := strconv.ParseInt(o, 10, 64)
				must(err)
				k := key{pos, off}
				id, ok := ids[k]
				if !ok {
					id = len(names)
					ids[k] = id
					names = append(names, lemmas[off])
				}
				refs = append(refs, strconv.Itoa(id))
			}
			index = append(index, "I\t"+pos+"\t"+fs[0]+"\t"+strings.Join(refs, ","))
		}
		f.Close()
		f, err = os.Open(filepath.Join(dir, files[pos]+".exc"))
		must(err)
		sc = bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) > 0 {
				exc = append(exc, "E\t"+pos+"\t"+fs[0]+"\t"+strings.Join(fs[1:], " "))
			}
		}
		f.Close()
	}
	sort.Strings(exc)
	fo, err := os.Create(out)
	must(err)
	zw, _ := gzip.NewWriterLevel(fo, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	fmt.Fprintln(w, "# WordNet 3.0 (Princeton University) synonym index for fallacylab METEOR; see NOTICE for the licence")
	for _, ns := range names {
		fmt.Fprintln(w, "S\t"+strings.Join(ns, " "))
	}
	for _, l := range index {
		fmt.Fprintln(w, l)
	}
	for _, l := range exc {
		fmt.Fprintln(w, l)
	}
	must(w.Flush())
	must(zw.Close())
	must(fo.Close())
	fmt.Printf("wrote %d synsets, %d index entries, %d exceptions to %s\n", len(names), len(index), len(exc), out)
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
