package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fallacylab/fallacylab/corpus"

	"github.com/spf13/cobra"
)

func newDataCmd(g *Global) *cobra.Command {
	var dir string
	var asJSON bool
	cmd := &cobra.Command{Use: "data", Short: "Corpora: what is available, where, and how to get the rest"}
	list := &cobra.Command{
		Use:   "list",
		Short: "List corpora: embedded or found in the data directory (checked by SHA-256), or where to get them",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := dataDir(dir)
			if asJSON {
				type file struct {
					Path  string `json:"path"`
					State string `json:"state"`
				}
				type corpusJSON struct {
					Name     string `json:"name"`
					Embedded bool   `json:"embedded"`
					Licence  string `json:"licence"`
					Source   string `json:"source"`
					Files    []file `json:"files"`
				}
				out := struct {
					DataDir string       `json:"data_dir"`
					Corpora []corpusJSON `json:"corpora"`
				}{DataDir: d}
				for _, c := range corpus.Catalog {
					x := corpusJSON{Name: c.Name, Embedded: c.Embedded, Licence: c.Licence, Source: c.Source, Files: []file{}}
					for _, f := range c.Files {
						x.Files = append(x.Files, file{f.Path, fileState(d, f)})
					}
					out.Corpora = append(out.Corpora, x)
				}
				return printJSON(g, out)
			}
			if d == "" {
				fmt.Fprintln(g.Stdout, "data directory: none (set --data-dir or FALLACYLAB_DATA)")
			} else {
				fmt.Fprintln(g.Stdout, "data directory:", d)
			}
			for _, c := range corpus.Catalog {
				state := "missing"
				if c.Embedded {
					state = "embedded"
				}
				var lines []string
				allPresent := true
				for _, f := range c.Files {
					st := fileState(d, f)
					if !strings.HasPrefix(st, "ok") {
						allPresent = allPresent && f.SHA256 == ""
					}
					lines = append(lines, fmt.Sprintf("    %-55s %s", f.Path, st))
				}
				if !c.Embedded && allPresent && d != "" {
					state = "present"
				}
				fmt.Fprintf(g.Stdout, "%-10s %-9s licence: %s\n    source: %s\n", c.Name, state, c.Licence, c.Source)
				if c.Note != "" {
					fmt.Fprintf(g.Stdout, "    note: %s\n", c.Note)
				}
				for _, l := range lines {
					fmt.Fprintln(g.Stdout, l)
				}
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print the catalogue as JSON (docs/cli-json.md)")
	list.Flags().StringVar(&dir, "data-dir", "", "data directory (default $FALLACYLAB_DATA, then $XDG_DATA_HOME/fallacylab)")
	cmd.AddCommand(list)
	return cmd
}

// fileState checks one catalogue file in the data directory.
func fileState(dir string, f corpus.File) string {
	if dir == "" {
		return describeMissing(f)
	}
	p := filepath.Join(dir, f.Path)
	st, err := os.Stat(p)
	if err != nil {
		return describeMissing(f)
	}
	if st.IsDir() || f.SHA256 == "" {
		return "ok (present)"
	}
	h := sha256.New()
	fh, err := os.Open(p)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer fh.Close()
	if _, err := io.Copy(h, fh); err != nil {
		return "unreadable: " + err.Error()
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
		return "DIFFERENT (sha256 " + got[:12] + "…, expected " + f.SHA256[:12] + "…)"
	}
	return "ok (sha256 verified)"
}

func describeMissing(f corpus.File) string {
	s := "missing"
	if f.SHA256 != "" {
		s += " (expected sha256 " + f.SHA256 + ")"
	}
	if f.Note != "" {
		s += "; " + f.Note
	}
	return s
}
