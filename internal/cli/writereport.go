package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/report"
)

// writeReport renders to stdout, a file (atomically) or, for csv and a
// directory, one file per table.
func writeReport(g *Global, rep *report.Report, f report.Format, out string) error {
	if out == "" || out == "-" {
		return report.Render(g.Stdout, rep, f)
	}
	if st, err := os.Stat(out); (err == nil && st.IsDir()) || strings.HasSuffix(out, string(filepath.Separator)) {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if f == report.CSV {
			for _, t := range rep.Tables() {
				if err := outfile.Write(g.Stdout, filepath.Join(out, t.ID+".csv"), func(w io.Writer) error { return report.RenderCSVTable(w, t) }); err != nil {
					return err
				}
			}
			fmt.Fprintf(g.Stderr, "wrote %d tables to %s\n", len(rep.Tables()), out)
			return nil
		}
		out = filepath.Join(out, "report."+string(f))
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, rep, f); err != nil {
		return err
	}
	if err := outfile.Write(g.Stdout, out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return err
	}
	fmt.Fprintf(g.Stderr, "wrote %s\n", out)
	return nil
}
