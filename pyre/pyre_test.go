package pyre

import "testing"

func TestTranslate(t *testing.T) {
	for in, want := range map[string]string{
		`(?i)^premise( 3\.?\d?)?: (.+)$`: `(?i)^prem[iIİı]se( 3\.?[\p{Nd}]?)?: (.+)$`,
		`a\sb\S[\dx]`:                    `a[` + space + `]b[^` + space + `][\p{Nd}x]`,
		`[^i]i`:                          `[^i]i`,
		`(?i)[a-i]`:                      `(?i)[a-iIİı]`,
		`[\d\D]+?`:                       `[\p{Nd}\P{Nd}]+?`,
	} {
		got, err := Translate(in)
		if err != nil || got != want {
			t.Errorf("Translate(%q) = %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`(?x)a`, `[a`, `a\`, `[\S]`, `[\W]`} {
		if _, err := Translate(bad); err == nil {
			t.Errorf("Translate(%q) took a pattern it cannot translate", bad)
		}
	}
	re := MustCompile(`(?i)^fallacious premise( 3\.?\d?)?: x$`)
	for s, want := range map[string]bool{"FALLACIOUS PREMİSE: x": true, "fallacıous premise 3.١: x": true, "fallacious premise 3.a: x": false} {
		if re.MatchString(s) != want {
			t.Errorf("%q: %v", s, !want)
		}
	}
	if any := MustCompile(`a[\d\D]+?b`); !any.MatchString("a\n٣x\nb") {
		t.Error("[\\d\\D] is not any character, newlines included")
	}
	if Strip("\x1c a \u3000\x1f") != "a" || Lower("İ") != "i\u0307" {
		t.Fatal("Strip or Lower")
	}
}

// TestLowerIsPythons: reference values from CPython 3.11's str.lower().
func TestLowerIsPythons(t *testing.T) {
	for in, want := range map[string]string{
		"ΑΣ": "ας", "Σ": "σ", "ΑΣΑ": "ασα", "ΑΣ.": "ας.", "Α.Σ": "α.ς", "ΑΣ'Α": "ασ'α",
		"İS": "i\u0307s", "ΑΣ\u0301": "ας\u0301", "ὈΔΥΣΣΕΎΣ": "ὀδυσσεύς", "aΣb": "aσb",
		"aΣ1": "aς1", "Σa": "σa", "\u0345Σ": "\u0345σ", "ABC": "abc",
	} {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, Python %q", in, got, want)
		}
	}
}
