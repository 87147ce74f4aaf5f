package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/store/sqlite"
)

// TestDecoyFileGivesTheOtherAnswer (#27 item 16): a Scheme Foils validity
// study's own decoys are the audit's fallacious items (known invalid); a
// --decoy-file of valid arguments the researcher wrote in the foils'
// register adds decoys known valid, so decoys of both answers are planted
// and answering "invalid" to everything fails half of them. A file with a
// wrong header or answer is refused with its line and column.
func TestDecoyFileGivesTheOtherAnswer(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	if _, stderr, err := runCLI(t, dir, "foils", "audit", "--resamples", "50", "--permutations", "50"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	gold := filepath.Join(dir, "gold.csv")
	os.WriteFile(gold, []byte("\ufefftext,validity\n"+
		"\"Most doctors who study vaccines say this one is safe, and their studies agree, so it is reasonable to trust it.\",valid\n"+
		"Our town has held the fair in June for decades because the weather suits it; keeping June makes sense.,V\n"+
		"\"If the bridge keeps losing bolts, it will weaken, and a weak bridge can fail: inspect it now.\",V\n"), 0o644)
	// #41 item 15: without the file, every decoy is known invalid, and
	// study create says so and how to plant the other answer.
	if out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "foils-validity", "--per-type", "1", "--annotators", "a,b",
		"--decoys", "4"); err != nil || !strings.Contains(stderr, `Every decoy has the same known answer to validity ("I")`) || !strings.Contains(stderr, "--decoy-file") {
		t.Fatalf("a study of one polarity of decoys: %v %s\n%s", err, out, stderr)
	}
	if _, _, err := runCLI(t, dir, "study", "rm", "1"); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "foils-validity", "--per-type", "1", "--annotators", "a,b",
		"--decoys", "6", "--decoy-file", gold)
	var id int64
	if _, serr := fmt.Sscanf(out, "study %d:", &id); err != nil || serr != nil || strings.Contains(stderr, "same known answer") {
		t.Fatalf("%v %s\n%s", err, out, stderr)
	}
	st, err := sqlite.Open(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Study(t.Context(), id)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]int{}
	for _, it := range s.Items {
		if it.Decoy {
			known[it.Known["validity"]]++
		}
	}
	if known["V"] != 3 || known["I"] != 3 {
		t.Fatalf("decoys by known answer %v: want 3 valid (the file's) and 3 invalid", known)
	}
	for _, c := range []struct{ csv, want string }{
		{"text,valdity\nx,V\n", "gold.csv line 1 column 2: \"valdity\" is not text, context or a question"},
		{"text,validity\nx,maybe\n", "gold.csv line 2 column 2 (validity): \"maybe\" is not one of its answers"},
		{"text,validity\nx,\n", "gold.csv line 2: no known answer"},
	} {
		os.WriteFile(gold, []byte(c.csv), 0o644)
		if _, _, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "foils-validity", "--per-type", "1", "--annotators", "a", "--decoy-file", gold); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.csv, err, c.want)
		}
	}
}
