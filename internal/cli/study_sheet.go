package cli

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/decode"
	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/study"
)

// A coding sheet is a study's items for annotators who answer offline, one
// row per annotator and item: study export writes it, a spreadsheet fills
// it in, study import reads it back. Its columns are found by their header
// names (in any order: a spreadsheet may move them); the status column
// tells a skipped item from one not yet answered, and saved_at is when the
// answer the sheet shows was saved, so that importing an old sheet never
// reverts an answer given since.

// sheetHeader is the start of a coding sheet's header; one column per
// question, then sheetTail.
var sheetHeader = []string{"annotator", "item", "position", "context", "text"}

// sheetTail are the columns after the questions.
var sheetTail = []string{"comment", "status", "saved_at"}

// Statuses of a sheet's rows.
const (
	sheetAnswered = "answered"
	sheetSkipped  = "skipped"
)

func newStudyExportCmd(g *Global) *cobra.Command {
	var out, dir, annotator, format string
	cmd := &cobra.Command{
		Use:   "export STUDY",
		Short: "Write coding sheets (CSV): each annotator's queue in their order, blind, with their answers so far",
		Example: `  fallacylab study export 3 --out-dir sheets/        # one sheet per annotator: sheets/study-3-ana.csv …
  fallacylab study export 3 --annotator ana --out ana.csv
  fallacylab study export 3 > all.csv                  # every annotator's rows in one sheet
  fallacylab study export 3 --format long --out answers.csv         # a row per answer, for analysis
  fallacylab study export 3 --format label-studio --out-dir ls/     # tasks + labelling config
  fallacylab study export 3 --format argilla --out records.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir != "" && out != "" {
				return fmt.Errorf("--out and --out-dir: give one (--out-dir writes a sheet per annotator)")
			}
			s, st, err := browseStudy(g, cmd, args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			anns, err := s.st.Annotations(cmd.Context(), st.ID)
			if err != nil {
				return err
			}
			var who []study.Annotator
			for _, a := range st.Annotators {
				if annotator == "" || a.Name == annotator {
					who = append(who, a)
				}
			}
			if len(who) == 0 {
				return fmt.Errorf("study %d has no annotator %q (its annotators: %s)", st.ID, annotator, annotatorNames(st))
			}
			if format != "sheet" {
				return writeExport(g, st, anns, who, format, out, dir)
			}
			if dir == "" {
				if out == "" {
					out = "-"
				}
				return outfile.Write(g.Stdout, out, func(w io.Writer) error { return writeSheet(st, anns, who, w) })
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			for _, a := range who {
				p := filepath.Join(dir, fmt.Sprintf("study-%d-%s.csv", st.ID, fileSafe(a.Name)))
				if err := outfile.Write(g.Stdout, p, func(w io.Writer) error { return writeSheet(st, anns, []study.Annotator{a}, w) }); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "sheet file (default stdout)")
	cmd.Flags().StringVar(&dir, "out-dir", "", "write one sheet per annotator into this folder (study-N-NAME.csv)")
	cmd.Flags().StringVar(&annotator, "annotator", "", "only this annotator's rows")
	cmd.Flags().StringVar(&format, "format", "sheet", "sheet (blind coding sheets, for study import), long (the analyst's: a row per answer, with item keys and hidden fields), label-studio (task import; --out-dir adds the labelling config) or argilla (Argilla 2 records, JSONL)")
	return cmd
}

// fileSafe is a name as a file name's part.
func fileSafe(name string) string {
	return regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(name, "_")
}

func annotatorNames(st study.Study) string {
	var names []string
	for _, a := range st.Annotators {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}

// writeSheet writes the coding sheet of the annotators who: each one's
// queue in their order, blind, with their answers so far.
func writeSheet(st study.Study, anns []study.Annotation, who []study.Annotator, w io.Writer) error {
	got := map[[2]string]study.Annotation{}
	for _, a := range anns {
		got[[2]string{a.Annotator, a.Item}] = a
	}
	num := itemNumbers(st)
	cw := report.NewCSVWriter(w) // no cell is run as a formula
	hdr := append([]string(nil), sheetHeader...)
	for _, q := range st.Questions {
		var keys []string
		for _, c := range q.Choices {
			keys = append(keys, c.Key)
		}
		if q.Type == study.Multi {
			hdr = append(hdr, q.ID+" (any of "+strings.Join(keys, "/")+", split by commas)")
			continue
		}
		hdr = append(hdr, q.ID+" ("+strings.Join(keys, "/")+")")
	}
	cw.Write(append(hdr, sheetTail...))
	for _, a := range who {
		for i, k := range a.Order {
			it, _ := st.Item(k)
			prev, saved := got[[2]string{a.Name, k}]
			row := []string{a.Name, strconv.Itoa(num[k]), strconv.Itoa(i + 1), it.Context, it.Text}
			for _, q := range st.Questions {
				row = append(row, prev.Answers[q.ID])
			}
			status, at := "", ""
			if saved {
				status, at = sheetAnswered, prev.At.UTC().Format(time.RFC3339Nano)
				if prev.Skipped {
					status = sheetSkipped
				}
			}
			cw.Write(append(row, prev.Comment, status, at))
		}
	}
	cw.Flush()
	return cw.Error()
}

// itemNumbers are the opaque numbers sheets name items by (their place in
// the study's shuffled item list: they tell neither a decoy nor a model).
func itemNumbers(st study.Study) map[string]int {
	out := map[string]int{}
	for i, it := range st.Items {
		out[it.Key] = i + 1
	}
	return out
}

func newStudyImportCmd(g *Global) *cobra.Command {
	var overwrite bool
	cmd := &cobra.Command{
		Use:   "import STUDY SHEET.csv",
		Short: "Read a completed coding sheet: every row checked first, then all stored at once (a bad row stores nothing)",
		Long: `Reads a coding sheet (study export's, or the same saved by a spreadsheet: comma, semicolon or tab
separated, with or without Excel's UTF-8 byte-order mark; columns found by their names, in any
order). Every row is checked before any is stored. A row whose answer was changed in the browser
(or by another sheet) after this sheet was exported keeps that newer answer and is listed as a
conflict; --overwrite takes the sheet's answer instead.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, st, err := editStudy(g, cmd, args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			data, err := os.ReadFile(args[1])
			if err != nil {
				return err
			}
			rows, err := readSheet(data, args[1], st)
			if err != nil {
				return err
			}
			stored, err := s.st.Annotations(cmd.Context(), st.ID)
			if err != nil {
				return err
			}
			m := mergeSheet(rows, stored, overwrite)
			if len(m.put) > 0 {
				if err := s.st.PutAnnotations(cmd.Context(), m.put); err != nil {
					return err
				}
			}
			num := itemNumbers(st)
			for _, c := range m.conflicts {
				fmt.Fprintf(g.Stderr, "%s line %d: %s's answer to item %d was saved at %s, after this sheet was exported: kept it (the sheet's differs; --overwrite takes the sheet's)\n",
					args[1], c.line, c.annotator, num[c.item], c.at.Format(time.RFC3339))
			}
			fmt.Fprintf(g.Stdout, "study %d: %d answers from %s (%d unchanged, %d conflicts kept as they were)\n", st.ID, len(m.put), args[1], m.unchanged, len(m.conflicts))
			return nil
		},
	}
	cmd.Flags().BoolVar(&overwrite, "overwrite", false, "take the sheet's answer where a newer one is stored")
	return cmd
}

// sheetRow is one answered (or skipped) row of a sheet.
type sheetRow struct {
	line    int
	ann     study.Annotation
	savedAt time.Time // the stored answer the sheet was exported with (zero: none)
}

// sheetConflict is a row whose stored answer is newer than the sheet.
type sheetConflict struct {
	line            int
	annotator, item string
	at              time.Time
}

// merged is what an import stores, and what it leaves.
type merged struct {
	put       []study.Annotation
	unchanged int
	conflicts []sheetConflict
}

// mergeSheet decides each row against what is stored: the same answer is
// left; an answer saved after the sheet was exported is kept (a conflict)
// unless overwrite; everything else is stored.
func mergeSheet(rows []sheetRow, stored []study.Annotation, overwrite bool) merged {
	cur := map[[2]string]study.Annotation{}
	for _, a := range stored {
		cur[[2]string{a.Annotator, a.Item}] = a
	}
	var m merged
	for _, r := range rows {
		c, has := cur[[2]string{r.ann.Annotator, r.ann.Item}]
		switch {
		case has && sameAnswer(c, r.ann):
			m.unchanged++
		case has && c.At.After(r.savedAt) && !overwrite:
			m.conflicts = append(m.conflicts, sheetConflict{r.line, r.ann.Annotator, r.ann.Item, c.At})
		default:
			m.put = append(m.put, r.ann)
		}
	}
	return m
}

func sameAnswer(a, b study.Annotation) bool {
	return a.Skipped == b.Skipped && a.Comment == b.Comment && maps.Equal(a.Answers, b.Answers)
}

// readSheet parses a coding sheet: UTF-8 (a byte-order mark is dropped;
// anything else is refused with the fix), comma, semicolon or tab
// separated (whichever the header line holds most of), columns found by
// name. A row with no answer, no comment and not skipped is left out.
// Every error names the file, line and column.
func readSheet(data []byte, name string, st study.Study) ([]sheetRow, error) {
	data = decode.StripBOM(data)
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:invalidUTF8At(data)], []byte("\n"))
		return nil, fmt.Errorf("%s line %d: not UTF-8 text (a spreadsheet's \"CSV\" in a Windows code page?): save it as \"CSV UTF-8\", or convert it (iconv -f cp1252 -t utf-8 %s)", name, line, name)
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comma = sniffDelimiter(data)
	cr.FieldsPerRecord = -1
	hdr, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col, err := sheetColumns(hdr, st)
	if err != nil {
		return nil, fmt.Errorf("%s line 1: %w", name, err)
	}
	byNum := map[int]string{}
	for k, n := range itemNumbers(st) {
		byNum[n] = k
	}
	field := func(rec []string, c string) string {
		if i, ok := col[c]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var out []sheetRow
	now := time.Now().UTC()
	first := map[[2]string]int{} // (annotator, item) → the line that answered it
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(rec) != len(hdr) {
			return nil, fmt.Errorf("%s line %d: %d fields, the header has %d", name, line, len(rec), len(hdr))
		}
		n, err := strconv.Atoi(strings.TrimSpace(field(rec, "item")))
		if err != nil || byNum[n] == "" {
			return nil, fmt.Errorf("%s line %d: column item: %q is not an item of study %d", name, line, field(rec, "item"), st.ID)
		}
		r := sheetRow{line: line, ann: study.Annotation{StudyID: st.ID, Annotator: strings.TrimSpace(field(rec, "annotator")), Item: byNum[n],
			Answers: map[string]string{}, Comment: report.CSVUnsafe(field(rec, "comment")), At: now}}
		for _, q := range st.Questions {
			if v := strings.TrimSpace(field(rec, "q:"+q.ID)); v != "" {
				r.ann.Answers[q.ID] = q.Normalize(v)
			}
		}
		switch status := strings.ToLower(strings.TrimSpace(field(rec, "status"))); status {
		case "", sheetAnswered, "open":
		case sheetSkipped:
			r.ann.Skipped = len(r.ann.Answers) == 0 // an answer written in later wins
		default:
			return nil, fmt.Errorf("%s line %d: column status: %q, want %s, %s or empty", name, line, status, sheetAnswered, sheetSkipped)
		}
		if at := strings.TrimSpace(field(rec, "saved_at")); at != "" {
			if r.savedAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
				return nil, fmt.Errorf("%s line %d: column saved_at: %q is not a time (leave it as study export wrote it)", name, line, at)
			}
		}
		if len(r.ann.Answers) == 0 && r.ann.Comment == "" && !r.ann.Skipped {
			continue
		}
		if err := st.Validate(r.ann); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		// Two rows of one annotator's answer to one item: which one is
		// meant is not for the import to guess.
		who := [2]string{r.ann.Annotator, r.ann.Item}
		if at, ok := first[who]; ok {
			return nil, fmt.Errorf("%s line %d: item %d of %s again (first on line %d): keep one row per item and annotator", name, line, n, r.ann.Annotator, at)
		}
		first[who] = line
		out = append(out, r)
	}
	return out, nil
}

// sheetColumns maps a sheet's header onto its columns: the fixed ones by
// name, a question's by its id (study export writes "id (keys)"); a column
// the study's sheets do not have, one named twice, or a missing required
// one is an error naming it.
func sheetColumns(hdr []string, st study.Study) (map[string]int, error) {
	known := map[string]bool{}
	for _, c := range append(append([]string(nil), sheetHeader...), sheetTail...) {
		known[c] = true
	}
	questions := map[string]bool{}
	for _, q := range st.Questions {
		questions[q.ID] = true
	}
	col := map[string]int{}
	for i, h := range hdr {
		h = strings.TrimSpace(h)
		id, _, _ := strings.Cut(h, " (")
		var c string
		switch {
		case known[strings.ToLower(h)]:
			c = strings.ToLower(h)
		case questions[id]:
			c = "q:" + id
		default:
			var qs []string
			for _, q := range st.Questions {
				qs = append(qs, q.ID)
			}
			return nil, fmt.Errorf("column %d %q is no column of study %d's sheets (%s, one per question: %s, %s)", i+1, h, st.ID,
				strings.Join(sheetHeader, ", "), strings.Join(qs, ", "), strings.Join(sheetTail, ", "))
		}
		if _, dup := col[c]; dup {
			return nil, fmt.Errorf("column %d %q: named twice", i+1, h)
		}
		col[c] = i
	}
	for _, c := range []string{"annotator", "item"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("no %s column (a sheet of study %d is written by fallacylab study export %d)", c, st.ID, st.ID)
		}
	}
	for _, q := range st.Questions {
		if _, ok := col["q:"+q.ID]; !ok {
			return nil, fmt.Errorf("no column for question %s (its header starts %q)", q.ID, q.ID)
		}
	}
	return col, nil
}

// sniffDelimiter is the delimiter the header line holds most of, outside
// quotes: a comma, or the semicolon a spreadsheet in a comma-decimal locale
// writes, or a tab.
func sniffDelimiter(data []byte) rune {
	counts := map[rune]int{}
	quoted := false
	for _, r := range string(data) {
		if r == '"' {
			quoted = !quoted
		}
		if !quoted && (r == '\n' || r == '\r') {
			break
		}
		if !quoted && (r == ',' || r == ';' || r == '\t') {
			counts[r]++
		}
	}
	best := ','
	for _, r := range []rune{';', '\t'} {
		if counts[r] > counts[best] {
			best = r
		}
	}
	return best
}

// invalidUTF8At is the offset of data's first byte that is not UTF-8.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(data)
}
