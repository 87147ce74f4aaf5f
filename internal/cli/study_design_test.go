package cli_test

import (
	"strings"
	"testing"
)

// TestStudyDesignChanges (#27 item 21): in a running study, an annotator
// taking over another's queue gets only the items that one has not
// answered, and the replaced one's link stops; an added annotator gets the
// items every annotator sees; a revoked link is replaced by a new one. The
// answers given stay.
func TestStudyDesignChanges(t *testing.T) {
	dir := rubricStudy(t, "--fields", "refusal", "--n", "4", "--annotators", "ana,ben")
	links := func() map[string]string {
		out, _, err := runCLI(t, dir, "study", "links", "1")
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Split(l, "\t")
			m[f[0]] = f[1]
		}
		return m
	}
	before := links()
	// ben answers one item through a sheet.
	_, recs := exportSheet(t, dir, "1")
	var rows [][]string
	answered := ""
	for _, r := range recs {
		if r[0] == "annotator" || (r[0] == "ben" && answered == "") {
			if r[0] == "ben" {
				answered, r[5], r[7] = r[1], "1", "answered"
			}
			rows = append(rows, r)
		}
	}
	if out, stderr, err := importRows(t, dir, "ben.csv", rows); err != nil {
		t.Fatalf("%v %s\n%s", err, out, stderr)
	}
	out, stderr, err := runCLI(t, dir, "study", "add-annotator", "1", "eli", "--replace", "ben")
	if err != nil || !strings.Contains(out, "eli has 3 items") {
		t.Fatalf("replace: %v %s\n%s", err, out, stderr)
	}
	out, _, err = runCLI(t, dir, "study", "add-annotator", "1", "dana")
	if err != nil || !strings.Contains(out, "dana has 4 items") {
		t.Fatalf("add: %v %s", err, out)
	}
	if _, _, err := runCLI(t, dir, "study", "add-annotator", "1", "ana"); err == nil {
		t.Fatal("a second ana was added")
	}
	if _, _, err := runCLI(t, dir, "study", "revoke", "1", "ana"); err != nil {
		t.Fatal(err)
	}
	after := links()
	if len(after) != 3 || after["ben"] != "" || after["ana"] == before["ana"] || after["eli"] == "" || after["dana"] == "" {
		t.Fatalf("links before %v, after %v", before, after)
	}
	_, recs = exportSheet(t, dir, "1")
	got := map[string][]string{}
	for _, r := range recs[1:] {
		got[r[0]] = append(got[r[0]], r[1])
	}
	if len(got["ben"]) != 1 || got["ben"][0] != answered || len(got["eli"]) != 3 || strings.Contains(strings.Join(got["eli"], ","), answered) {
		t.Fatalf("queues after the replacement: %v (ben had answered item %s)", got, answered)
	}
	show, _, _ := runCLI(t, dir, "study", "export", "1", "--annotator", "ben")
	if !strings.Contains(show, ",answered,") {
		t.Fatalf("ben's answer is gone:\n%s", show)
	}
}
