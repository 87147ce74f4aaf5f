package tokenize

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// BenchmarkSpacyEnglishCold tokenises the texts of spaCy's own tests and
// of the fuzz fixture (2,500 texts) with a tokenizer built afresh each
// time, so no span is cached: rules compiled, special cases loaded, every
// span through the regular expressions.
func BenchmarkSpacyEnglishCold(b *testing.B) {
	texts := benchTexts(b)
	r, err := ParseRules(spacyEnglish)
	if err != nil {
		b.Fatal(err)
	}
	chars := 0
	for _, s := range texts {
		chars += len([]rune(s))
	}
	b.ResetTimer()
	for range b.N {
		t, err := NewSpacy(r)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range texts {
			t.Tokens(s)
		}
	}
	b.ReportMetric(float64(chars*b.N)/b.Elapsed().Seconds(), "chars/s")
}

// BenchmarkSpacyEnglishWarm: the same texts once every span is cached.
func BenchmarkSpacyEnglishWarm(b *testing.B) {
	texts := benchTexts(b)
	t := SpacyEnglish()
	chars := 0
	for _, s := range texts {
		t.Tokens(s)
		chars += len([]rune(s))
	}
	b.ResetTimer()
	for range b.N {
		for _, s := range texts {
			t.Tokens(s)
		}
	}
	b.ReportMetric(float64(chars*b.N)/b.Elapsed().Seconds(), "chars/s")
}

func benchTexts(b *testing.B) []string {
	b.Helper()
	var texts []string
	data, err := os.ReadFile("testdata/spacy/fuzz.json")
	if err != nil {
		b.Fatal(err)
	}
	var fz struct{ Cases [][2]json.RawMessage }
	if err := json.Unmarshal(data, &fz); err != nil {
		b.Fatal(err)
	}
	for _, c := range fz.Cases {
		var s string
		if err := json.Unmarshal(c[0], &s); err != nil {
			b.Fatal(err)
		}
		texts = append(texts, s)
	}
	data, err = os.ReadFile("testdata/spacy/spacy_tests.json")
	if err != nil {
		b.Fatal(err)
	}
	var st struct {
		Texts map[string]map[string]json.RawMessage
	}
	if err := json.Unmarshal(data, &st); err != nil {
		b.Fatal(err)
	}
	for s := range st.Texts["en"] {
		if strings.TrimSpace(s) != "" {
			texts = append(texts, s)
		}
	}
	return texts
}
