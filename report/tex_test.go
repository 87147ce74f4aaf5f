package report

import (
	"bytes"
	"strings"
	"testing"
)

// The TeX output sets with plain pdflatex (#27 item 15): the Greek letters
// and symbols of the reports become TeX commands, Latin letters stay, and
// anything else (an emoji in a model's name) is written as its code point,
// never left raw for pdflatex to stop at.
func TestTeXIsPlainPdflatex(t *testing.T) {
	r := &Report{Title: "κ — study"}
	sec := r.AddSection("s", "")
	tb := sec.Add(&Table{ID: "t", Title: "Fleiss' κ and Krippendorff's α; χ² ≤ 3…", Columns: Cols("model", "κ")})
	tb.Rows = append(tb.Rows, []Cell{T("café–model 🤖 Ω"), F(0.5, 2)})
	tb.Note = "“quoted” × 2"
	var b bytes.Buffer
	if err := Render(&b, r, LaTeX); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`$\kappa$`, `$\alpha$`, `$\chi$\textsuperscript{2}`, `$\leq$`, `\ldots{}`, "café--model", "[U+1F916]", "[U+03A9]", "``quoted''", `$\times$`, "---"} {
		if !strings.Contains(out, want) {
			t.Errorf("TeX output lacks %q:\n%s", want, out)
		}
	}
	for _, r := range out {
		if !texSafeRune(r) {
			t.Fatalf("TeX output holds %q, which pdflatex cannot set:\n%s", r, out)
		}
	}
}
