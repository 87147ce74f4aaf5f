package corpus

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestLoadLogic: LOGIC and LogicClimate load from the data folder with
// their splits (data README: 1,849 / 300 / 300 and 855 / 277 / 219 rows, of
// which LogicClimate's 24 / 7 / 8 with no text are skipped) and their 13
// classes, multi-line fields whole.
func TestLoadLogic(t *testing.T) {
	if _, err := os.Stat(sharedData + "/logic"); err != nil {
		t.Skip("shared data not present")
	}
	for name, want := range map[string][3]int{"logic": {1849, 300, 300}, "logicclimate": {831, 270, 211}} {
		items, err := Load(os.DirFS(sharedData), name, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		labels := map[string]bool{}
		for _, it := range items {
			labels[it.NativeLabel()] = true
			if !slices.Contains(LabelsOf(name), it.NativeLabel()) {
				t.Fatalf("%s: %s has label %q, not one of LabelsOf", name, it.ID, it.NativeLabel())
			}
		}
		got := [3]int{len(Split(items, "train")), len(Split(items, "dev")), len(Split(items, "test"))}
		if got != want || len(labels) != 13 {
			t.Fatalf("%s: splits %v (want %v), %d labels", name, got, want, len(labels))
		}
	}
	_, err := ParseLogic(strings.NewReader("source_article,updated_label\n\"a\nb\",ad hominem\nc,strawman\n"), "x.csv", "logic", "test")
	if err == nil || !strings.Contains(err.Error(), "x.csv line 4: field updated_label: unknown label \"strawman\"") {
		t.Fatalf("a bad label: %v", err)
	}
}

// TestNativeLabels: every item of the embedded corpora has a label of its
// corpus's own set.
func TestNativeLabels(t *testing.T) {
	for _, name := range []string{"reddit", "argotario"} {
		items, err := Load(nil, name, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, it := range items {
			seen[it.NativeLabel()]++
		}
		for l := range seen {
			if !slices.Contains(LabelsOf(name), l) {
				t.Fatalf("%s: label %q not in %v", name, l, LabelsOf(name))
			}
		}
		if len(seen) != len(LabelsOf(name)) {
			t.Fatalf("%s: labels %v, want every one of %v", name, seen, LabelsOf(name))
		}
	}
}
