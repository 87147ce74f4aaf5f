package pyre

import "testing"

func TestTranslateBacktracking(t *testing.T) {
	for in, want := range map[string]string{
		`(?u)^a\d`:                `^a[\p{Nd}]`,
		`[\w\-]{2,}`:              `[\p{L}\p{N}_\-]{2,}`,
		`\S+(?<=[0-9])\.`:         `[^` + netSpace + `]+(?<=[0-9])\.`,
		`[\U0001EE00-\U0001EEBB]`: "[\U0001EE00-\U0001EEBB]",
		`\U000000e9\u00e9`:        `\u00E9\u00e9`,
		`[]a]`:                    `[\]a]`,
	} {
		got, err := TranslateBacktracking(in)
		if err != nil || got != want {
			t.Errorf("TranslateBacktracking(%q) = %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`(?i)a`, `(?P<x>a)`, `a\Z`, `[a-[b]]`, `[\S]`, `a\`, `[a`, `\U0001`} {
		if _, err := TranslateBacktracking(bad); err == nil {
			t.Errorf("TranslateBacktracking(%q) took a pattern it cannot translate", bad)
		}
	}
	// Python: re.compile(r"(?<=[a-z])\.(?=[A-Z])|,").finditer("ab.Cd,e.f")
	// gives (2, 3) and (5, 6); \w takes "é" and "٣" (Unicode), \s takes
	// U+2003, as Python's do.
	re, err := CompileBacktracking(`(?<=[a-z])\.(?=[A-Z])|,`)
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]int
	for m, _ := re.FindStringMatch("ab.Cd,e.f"); m != nil; m, _ = re.FindNextMatch(m) {
		got = append(got, [2]int{m.Index, m.Index + m.Length})
	}
	if len(got) != 2 || got[0] != [2]int{2, 3} || got[1] != [2]int{5, 6} {
		t.Errorf("finditer = %v", got)
	}
	w, err := CompileBacktracking(`^\w+\s\d$`)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := w.MatchString("é٣\u2003٣"); !ok {
		t.Error(`\w, \s or \d is not Python's`)
	}
}
