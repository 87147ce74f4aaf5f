package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/study"
)

// writeExport writes a study's answers in an analyst's format (long,
// label-studio, argilla) to out (default stdout) or into dir, for the
// annotators who.
func writeExport(g *Global, st study.Study, anns []study.Annotation, who []study.Annotator, format, out, dir string) error {
	st.Annotators = who
	anns = slices.DeleteFunc(slices.Clone(anns), func(a study.Annotation) bool {
		// the adjudicator's gold answers go with every export (the long
		// one writes them; the others leave them out)
		return a.Annotator != study.Adjudicator && !slices.ContainsFunc(who, func(x study.Annotator) bool { return x.Name == a.Annotator })
	})
	var body func(io.Writer) error
	var name string
	switch format {
	case "long":
		name = fmt.Sprintf("study-%d-long.csv", st.ID)
		body = func(w io.Writer) error {
			cw := report.NewCSVWriter(w) // no cell is run as a formula
			for _, row := range study.Long(st, anns) {
				cw.Write(row)
			}
			cw.Flush()
			return cw.Error()
		}
	case "label-studio":
		name = fmt.Sprintf("study-%d-label-studio.json", st.ID)
		body = func(w io.Writer) error {
			b, err := study.LabelStudio(st, anns)
			if err == nil {
				_, err = w.Write(append(b, '\n'))
			}
			return err
		}
	case "argilla":
		name = fmt.Sprintf("study-%d-argilla.jsonl", st.ID)
		body = func(w io.Writer) error {
			b, err := study.Argilla(st, anns)
			if err == nil {
				_, err = w.Write(b)
			}
			return err
		}
	default:
		return fmt.Errorf("--format %q: want sheet, long, label-studio or argilla", format)
	}
	if dir == "" {
		if out == "" {
			out = "-"
		}
		if format == "label-studio" {
			fmt.Fprintf(g.Stderr, "the Label Studio project needs the labelling config: fallacylab study export %d --format label-studio --out-dir DIR writes it beside the tasks\n", st.ID)
		}
		return outfile.Write(g.Stdout, out, body)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := outfile.Write(g.Stdout, filepath.Join(dir, name), body); err != nil {
		return err
	}
	if format == "label-studio" {
		cfg, err := study.LabelStudioConfig(st)
		if err != nil {
			return err
		}
		return outfile.Write(g.Stdout, filepath.Join(dir, fmt.Sprintf("study-%d-label-config.xml", st.ID)), func(w io.Writer) error {
			_, err := io.WriteString(w, cfg)
			return err
		})
	}
	return nil
}
