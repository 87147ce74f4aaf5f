// Command mkembed builds corpus/data/reddit.jsonl.gz, the embedded copy
// of the Sahai et al. (2021) Reddit corpus (MIT), from its raw files with the
// same loader the audit uses:
//
//	go run ./corpus/internal/mkembed ../shared/data reddit_fallacy corpus/data/reddit.jsonl.gz
package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"

	"github.com/fallacylab/fallacylab/corpus"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: mkembed DATA_ROOT REDDIT_DIR OUT")
		os.Exit(2)
	}
	items, err := corpus.LoadReddit(os.DirFS(os.Args[1]), os.Args[2], corpus.LoadOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f, err := os.Create(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := zw.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
	fmt.Printf("wrote %d items to %s\n", len(items), os.Args[3])
}
