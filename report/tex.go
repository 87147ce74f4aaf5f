package report

import (
	"fmt"
	"strings"
	"unicode"
)

// texEscaper makes text safe for plain pdflatex: TeX's special characters
// escaped, and the symbols and Greek letters fallacylab's reports use
// (κ, α, χ², ≤, —, …) written as TeX commands, since pdflatex's UTF-8
// input sets Latin letters only and stops at "Unicode character κ not set
// up for use with LaTeX". Anything else beyond Latin is texOther's.
var texEscaper = strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
	"{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`, "\n", " ",
	"α", `$\alpha$`, "β", `$\beta$`, "γ", `$\gamma$`, "δ", `$\delta$`, "Δ", `$\Delta$`, "ε", `$\varepsilon$`,
	"θ", `$\theta$`, "κ", `$\kappa$`, "λ", `$\lambda$`, "μ", `$\mu$`, "π", `$\pi$`, "ρ", `$\rho$`, "σ", `$\sigma$`,
	"τ", `$\tau$`, "φ", `$\phi$`, "χ", `$\chi$`, "ω", `$\omega$`,
	"²", `\textsuperscript{2}`, "³", `\textsuperscript{3}`, "×", `$\times$`, "±", `$\pm$`, "≤", `$\leq$`, "≥", `$\geq$`,
	"≈", `$\approx$`, "≠", `$\neq$`, "−", `$-$`, "√", `$\surd$`, "→", `$\rightarrow$`, "←", `$\leftarrow$`, "·", `$\cdot$`,
	"∞", `$\infty$`, "—", `---`, "–", `--`, "…", `\ldots{}`, "“", "``", "”", "''", "‘", "`", "’", "'", "•", `$\bullet$`,
	"\u00a0", "~", "✓", `$\checkmark$`)

// texText is s escaped for pdflatex (texEscaper), every character it
// still cannot set written as its code point, [U+XXXX].
func texText(s string) string {
	out := texEscaper.Replace(s)
	if isTeXSafe(out) {
		return out
	}
	var b strings.Builder
	for _, r := range out {
		if texSafeRune(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "[U+%04X]", r)
		}
	}
	return b.String()
}

// texComment is s for a TeX comment line (one line, settable text).
func texComment(s string) string { return texText(strings.ReplaceAll(s, "\n", " ")) }

func isTeXSafe(s string) bool {
	for _, r := range s {
		if !texSafeRune(r) {
			return false
		}
	}
	return true
}

// texSafeRune reports whether pdflatex's default UTF-8 input sets r: ASCII
// and the Latin letters of Latin-1 and Latin Extended-A.
func texSafeRune(r rune) bool {
	return r < 0x80 || (r >= 0xc0 && r <= 0x17f && r != 0xd7 && r != 0xf7 && unicode.IsLetter(r))
}
