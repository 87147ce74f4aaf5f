package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --out's extension chooses the format when --format is not given, for
// every report command; a --format that contradicts it is refused.
func TestOutExtensionChoosesFormat(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	if _, stderr, err := runCLI(t, dir, "foils", "audit", "--resamples", "50", "--permutations", "50", "--out", filepath.Join(dir, "audit.json")); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(read("audit.json")), &doc); err != nil {
		t.Fatalf("foils audit --out audit.json is not JSON: %v", err)
	}
	if _, _, err := runCLI(t, dir, "foils", "report", "--run", "1", "--out", filepath.Join(dir, "r.html")); err != nil {
		t.Fatal(err)
	}
	if h := read("r.html"); !strings.Contains(h[:min(len(h), 200)], "<html") {
		t.Fatalf("foils report --out r.html is not HTML: %.80q", h)
	}
	if _, _, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "foils-native", "--n", "4", "--annotators", "a"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, dir, "study", "report", "1", "--resamples", "20", "--out", filepath.Join(dir, "s.json")); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(read("s.json")), &doc); err != nil {
		t.Fatalf("study report --out s.json is not JSON: %v", err)
	}
	if _, _, err := runCLI(t, dir, "foils", "report", "--run", "1", "--format", "md", "--out", filepath.Join(dir, "x.html")); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Fatalf("--format md --out x.html: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.html")); err == nil {
		t.Fatal("a refused report was written")
	}
	// An extension that names no format leaves the default.
	if _, _, err := runCLI(t, dir, "foils", "report", "--run", "1", "--out", filepath.Join(dir, "r.txt")); err != nil || !strings.HasPrefix(read("r.txt"), "#") {
		t.Fatalf("--out r.txt: %v", err)
	}
}
