package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStudyExportHelpExample (#41 item 14): the help's own example —
// study export N --annotator NAME --out NAME.csv — writes that
// annotator's sheet.
func TestStudyExportHelpExample(t *testing.T) {
	dir := rubricStudy(t, "--fields", "refusal", "--n", "3", "--annotators", "ana,dan")
	out := filepath.Join(dir, "ana.csv")
	if _, stderr, err := runCLI(t, dir, "study", "export", "1", "--annotator", "dan", "--out", out); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "\ndan,") || strings.Contains(string(b), "\nana,") {
		t.Fatalf("dan's sheet: %v\n%s", err, b)
	}
}
