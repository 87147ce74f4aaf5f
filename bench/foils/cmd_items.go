package foils

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/textwrap"
)

// newFoilsItemsCmd is `fallacylab foils items`: the texts an audit's
// detector labels, with the ids --detector file:PREDS.csv reads, so that
// a detector of one's own labels them offline. A command of its own: it
// writes a file and makes no run.
func newFoilsItemsCmd(h bench.Host) *cobra.Command {
	o := foilsOptions{Corpus: "reddit", Variant: "annotated"}
	var out, format, dir string
	cmd := &cobra.Command{
		Use:   "items",
		Short: "Write the texts an audit's detector labels (id, text, context), to label them offline and audit with --detector file:PREDS.csv",
		Long: textwrap.Wrap("Every text the audit of the same flags asks a detector to label, once each: the corpus' "+
			"test items (ids T:<item id>), the scheme-matched foils (M:<type>#<id>) and the wrong-scheme foils (W:<type>#<id>), "+
			"as JSONL (default) or CSV with columns id, text, context. Label each text with your detector and write PREDS.csv "+
			"with columns id and label, a label being one of: "+strings.Join(Labels, ", ")+". Then fallacylab foils audit "+
			"--detector file:PREDS.csv, with the same --corpus, --limit, --matched and --wrong, audits it.", 94),
		Example: `  fallacylab foils items --out items.jsonl
  fallacylab foils items --corpus cocolofa --data-dir ../shared/data --format csv --out items.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format == "" {
				format = strings.TrimPrefix(filepath.Ext(out), ".")
			}
			if format != "jsonl" && format != "csv" && format != "" {
				return fmt.Errorf("--format %q: use jsonl or csv", format)
			}
			var bad corpus.BadRows
			items, err := LoadCorpus(o.Corpus, h.DataDir(dir), corpus.LoadOptions{SkipBadRows: o.SkipBadRows, Bad: &bad})
			if err != nil {
				return err
			}
			if items, err = redditVariant(o.Corpus, o.Variant, items); err != nil {
				return err
			}
			sets, _, err := auditSets(o, items)
			if err != nil {
				return err
			}
			if o.Limit > 0 {
				sets = sets.Limit(o.Limit)
			}
			in := sets.Inputs()
			write := func(w io.Writer) error {
				if format == "csv" {
					cw := csv.NewWriter(w)
					cw.Write([]string{"id", "text", "context"})
					for _, x := range in {
						cw.Write([]string{x.ID, x.Text, x.Context})
					}
					cw.Flush()
					return cw.Error()
				}
				enc := json.NewEncoder(w)
				enc.SetEscapeHTML(false)
				for _, x := range in {
					if err := enc.Encode(map[string]string{"id": x.ID, "text": x.Text, "context": x.Context}); err != nil {
						return err
					}
				}
				return nil
			}
			stdout, stderr := h.Settings().Stdout, h.Settings().Stderr
			if out == "" || out == "-" {
				if err := write(stdout); err != nil {
					return err
				}
			} else {
				if err := outfile.Write(stdout, out, write); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "wrote %d texts to %s (%d test, %d matched, %d wrong-scheme): label them and audit with --detector file:PREDS.csv (columns id, label)\n",
					len(in), out, len(sets.Test), len(sets.Matched), len(sets.Wrong))
			}
			if bad.Count > 0 {
				fmt.Fprintf(stderr, "skipped %d malformed corpus rows (first: %s)\n", bad.Count, bad.Errors[0])
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Corpus, "corpus", o.Corpus, "reddit (embedded) or cocolofa (needs --data-dir)")
	f.StringVar(&dir, "data-dir", "", "data directory")
	f.StringVar(&o.Variant, "reddit-variant", o.Variant, "annotated or full, as the audit's")
	f.StringVar(&o.Matched, "matched", "", "matched set CSV, as the audit's")
	f.StringVar(&o.Wrong, "wrong", "", "wrong-scheme set CSV, as the audit's")
	f.IntVar(&o.Limit, "limit", 0, "as the audit's --limit: the texts of a quick look")
	f.BoolVar(&o.SkipBadRows, "skip-bad-rows", false, "skip malformed corpus rows, as the audit does with it")
	f.StringVar(&out, "out", "", "file to write (default: standard output)")
	f.StringVar(&format, "format", "", "jsonl or csv (default: the --out file's extension, else jsonl)")
	return cmd
}
