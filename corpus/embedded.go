package corpus

import (
	"bufio"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
)

// The corpora whose licences allow it are embedded: Reddit (MIT) and the
// English Argotario (CC0); see NOTICE.
//
//go:embed data/*
var data embed.FS

// EmbeddedReddit returns the Sahai et al. (2021) Reddit corpus embedded in
// the binary (MIT), as LoadReddit reads it from the raw files.
func EmbeddedReddit() ([]Item, error) {
	f, err := data.Open("data/reddit.jsonl.gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("embedded reddit corpus: %w", err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var out []Item
	for sc.Scan() {
		var it Item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("embedded reddit corpus: %w", err)
		}
		out = append(out, it)
	}
	return out, sc.Err()
}

// EmbeddedArgotario returns the English Argotario corpus (CC0) embedded in the binary.
func EmbeddedArgotario() ([]Item, error) {
	f, err := data.Open("data/argotario-en.tsv")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseArgotario(f, "argotario-en.tsv")
}
