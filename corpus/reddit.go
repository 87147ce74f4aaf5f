package corpus

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// BadRows collects rows skipped with SkipBadRows.
type BadRows struct {
	Count  int
	Errors []string // the first few
}

func (b *BadRows) add(err error) {
	b.Count++
	if len(b.Errors) < 10 {
		b.Errors = append(b.Errors, err.Error())
	}
}

// LoadOptions control corpus loading.
type LoadOptions struct {
	// SkipBadRows skips malformed rows, counting them in Bad, instead of
	// failing on the first.
	SkipBadRows bool
	Bad         *BadRows
}

func (o LoadOptions) bad(err error) error {
	if !o.SkipBadRows {
		return err
	}
	if o.Bad != nil {
		o.Bad.add(err)
	}
	return nil
}

// LoadReddit reads the Sahai et al. (2021) corpus from fsys under dir:
// raw/<type>_annotated.csv (comma CSV with a leading unnamed pandas index
// column and multi-line quoted fields), raw/<type>_negative-samples.csv
// (tab-separated despite the name, no index column) and splits.tsv (the
// train/dev/test split of every comment). The text is the comment of
// interest (the "parent" column); the context is the thread title. An
// annotated row with fallacy_exists = 1 has its file's type as gold; every
// other row is "none".
func LoadReddit(fsys fs.FS, dir string, o LoadOptions) ([]Item, error) {
	splits, err := readSplits(fsys, path.Join(dir, "splits.tsv"))
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, raw := range SortedKeys(RedditRaw) {
		for _, kind := range []string{"annotated", "negative-samples"} {
			name := path.Join(dir, "raw", raw+"_"+kind+".csv")
			got, err := readRedditFile(fsys, name, raw, kind == "annotated", splits, o)
			if err != nil {
				return nil, err
			}
			items = append(items, got...)
		}
	}
	return items, nil
}

type splitKey struct{ file, id string }

type splitPair struct{ full, annotated string }

func readSplits(fsys fs.FS, name string) (map[splitKey]splitPair, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("reddit splits: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	r.FieldsPerRecord = 6
	hdr, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	if hdr[0] != "comment_id" || hdr[5] != "full_dataset_split" {
		return nil, fmt.Errorf("%s: unexpected header %v", name, hdr)
	}
	out := map[splitKey]splitPair{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[splitKey{rec[1], rec[0]}] = splitPair{rec[5], rec[4]}
	}
	return out, nil
}

func readRedditFile(fsys fs.FS, name, raw string, annotated bool, splits map[splitKey]splitPair, o LoadOptions) ([]Item, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("reddit corpus: %w", err)
	}
	defer f.Close()
	delim := ','
	if !annotated {
		delim = '\t' // the negative samples are TSV despite the .csv name
	}
	r := NewPandasReader(f, delim)
	hdr, _, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range hdr {
		col[h] = i
	}
	for _, need := range []string{"comment_id", "title", "parent", "fallacy_exists"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: header has no %q column (got %v)", name, need, hdr)
		}
	}
	if annotated && hdr[0] != "" {
		return nil, fmt.Errorf("%s: expected the leading unnamed pandas index column, got %q", name, hdr[0])
	}
	base := path.Base(name)
	var out []Item
	for {
		rec, line, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		if len(rec) != len(hdr) {
			if err := o.bad(LineErr(name, line, "%d fields, header has %d", len(rec), len(hdr))); err != nil {
				return nil, err
			}
			continue
		}
		id := rec[col["comment_id"]]
		exists := strings.TrimSpace(rec[col["fallacy_exists"]])
		if exists != "0" && exists != "1" {
			if err := o.bad(LineErr(name, line, "field fallacy_exists: %q is not 0 or 1", exists)); err != nil {
				return nil, err
			}
			continue
		}
		split, ok := splits[splitKey{base, id}]
		if !ok {
			if err := o.bad(LineErr(name, line, "field comment_id: %s is not in splits.tsv", id)); err != nil {
				return nil, err
			}
			continue
		}
		gold := None
		if annotated && exists == "1" {
			gold = RedditRaw[raw]
		}
		out = append(out, Item{ID: raw + "/" + id, Corpus: "reddit", Text: rec[col["parent"]], Context: rec[col["title"]],
			Gold: gold, Split: split.full, AnnotatedSplit: split.annotated, Source: base})
	}
	return out, nil
}
