package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// formatOfExt is the report format a file extension names.
var formatOfExt = map[string]string{".md": "md", ".markdown": "md", ".csv": "csv", ".json": "json", ".tex": "tex", ".html": "html", ".htm": "html"}

// writesAs are the formats of an export that are written as another
// format's file ("long csv": study export --format long writes CSV), which
// an --out of that extension does not contradict.
var writesAs = map[string]bool{"long csv": true, "sheet csv": true, "label-studio json": true, "argilla json": true, "inspect json": true, "calls json": true}

// formatFromOut makes a report command's --out and --format agree, for
// every command that has both: without --format, the format is the one
// --out's extension names (report.html is HTML, not Markdown in an .html
// file); a --format that contradicts the extension is refused.
func formatFromOut(cmd *cobra.Command) error {
	ff, of := cmd.Flags().Lookup("format"), cmd.Flags().Lookup("out")
	if ff == nil || of == nil || of.Value.String() == "" || of.Value.String() == "-" {
		return nil
	}
	out := of.Value.String()
	ext, ok := formatOfExt[strings.ToLower(filepath.Ext(out))]
	if !ok || strings.HasSuffix(out, string(filepath.Separator)) {
		return nil
	}
	if !ff.Changed {
		if writesAs[ff.Value.String()+" "+ext] {
			return nil // the default is written as that file already (study export's sheet as .csv)
		}
		return ff.Value.Set(ext)
	}
	if ff.Value.String() != ext && !writesAs[ff.Value.String()+" "+ext] {
		return fmt.Errorf("--format %s and --out %s disagree: leave out --format (the extension chooses it) or name a .%s file", ff.Value.String(), out, ff.Value.String())
	}
	return nil
}
