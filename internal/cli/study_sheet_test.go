package cli_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStudySheetsAsSpreadsheetsSaveThem (#27 item 14): a coding sheet is
// read by its header names, so two answer columns a spreadsheet swapped
// keep their answers; a misspelt header, a cp1252 file and an unknown
// status are refused with the line and column; Excel's "CSV UTF-8" (a
// byte-order mark) and a semicolon sheet are read; an old sheet never
// reverts a newer answer (a conflict, kept, unless --overwrite); a skipped
// item is not an unanswered one; a sheet per annotator.
func TestStudySheetsAsSpreadsheetsSaveThem(t *testing.T) {
	dir := rubricStudy(t, "--fields", "refusal,WA_present", "--n", "4", "--annotators", "ana,ben")
	_, recs := exportSheet(t, dir, "1")
	hdr := recs[0]
	if strings.Join(hdr, ",") != "annotator,item,position,context,text,refusal (1/0),WA_present (1/0),comment,status,saved_at" {
		t.Fatalf("header %v", hdr)
	}
	write := func(name string, rows [][]string, comma rune, prefix string) string {
		t.Helper()
		var b strings.Builder
		w := csv.NewWriter(&b)
		w.Comma = comma
		w.WriteAll(rows)
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(prefix+b.String()), 0o644)
		return p
	}
	stored := func() map[string]string { // annotator|item → refusal/WA_present/skipped, from a fresh export
		t.Helper()
		_, rs := exportSheet(t, dir, "1")
		out := map[string]string{}
		for _, r := range rs[1:] {
			out[r[0]+"|"+r[1]] = r[5] + "/" + r[6] + "/" + r[8]
		}
		return out
	}
	// ana answers refusal 1, WA_present 0 everywhere — in a sheet whose two
	// answer columns were swapped, saved by Excel as "CSV UTF-8" with
	// semicolons.
	swapped := [][]string{{hdr[0], hdr[1], hdr[2], hdr[3], hdr[4], hdr[6], hdr[5], hdr[7], hdr[8], hdr[9]}}
	var anaRows [][]string
	for _, r := range recs[1:] {
		if r[0] == "ana" {
			anaRows = append(anaRows, r)
			swapped = append(swapped, []string{r[0], r[1], r[2], r[3], r[4], "0", "1", "", r[8], r[9]})
		}
	}
	out, stderr, err := runCLI(t, dir, "study", "import", "1", write("swapped.csv", swapped, ';', "\ufeff"))
	if err != nil || !strings.Contains(out, "4 answers") {
		t.Fatalf("a BOM, semicolons and swapped columns: %v %s\n%s", err, out, stderr)
	}
	for _, r := range anaRows {
		if got := stored()["ana|"+r[1]]; got != "1/0/answered" {
			t.Fatalf("ana's item %s: %s, want refusal 1, WA_present 0 (the columns were read by name)", r[1], got)
		}
	}

	bad := func(what, path, want string) {
		t.Helper()
		if _, _, err := runCLI(t, dir, "study", "import", "1", path); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v, want an error with %q", what, err, want)
		}
	}
	misspelt := append([][]string{append([]string(nil), hdr...)}, recs[1:]...)
	misspelt[0][6] = "WA_presnt (1/0)"
	bad("a misspelt header", write("misspelt.csv", misspelt, ',', ""), `line 1: column 7 "WA_presnt (1/0)" is no column of study 1's sheets`)
	cp := filepath.Join(dir, "cp1252.csv")
	os.WriteFile(cp, []byte(strings.Join(hdr, ",")+"\r\nana,"+recs[1][1]+",1,,caf\xe9,1,0,,,\r\n"), 0o644)
	bad("a cp1252 file", cp, "cp1252.csv line 2: not UTF-8 text")
	status := [][]string{hdr, append(append([]string(nil), recs[1][:8]...), "maybe", "")}
	bad("an unknown status", write("status.csv", status, ',', ""), `line 2: column status: "maybe"`)
	// #41 item 12: one annotator's item twice, with different answers.
	twice := [][]string{hdr, append(append([]string(nil), anaRows[0][:5]...), "1", "0", "", "", ""), append(append([]string(nil), anaRows[0][:5]...), "0", "1", "", "", "")}
	bad("an item answered twice", write("twice.csv", twice, ',', ""), fmt.Sprintf("twice.csv line 3: item %s of ana again (first on line 2)", anaRows[0][1]))
	if got := stored(); got["ana|"+anaRows[0][1]] != "1/0/answered" {
		t.Fatal("a refused sheet changed a stored answer")
	}

	// The sheet exported before ana answered, now filled in otherwise: it
	// must not revert her newer answers.
	var stale [][]string = [][]string{hdr}
	for _, r := range anaRows {
		stale = append(stale, []string{r[0], r[1], r[2], r[3], r[4], "0", "0", "", "", ""})
	}
	p := write("stale.csv", stale, ',', "")
	out, stderr, err = runCLI(t, dir, "study", "import", "1", p)
	if err != nil || !strings.Contains(out, "0 answers") || !strings.Contains(out, "4 conflicts") || strings.Count(stderr, "after this sheet was exported: kept it") != 4 {
		t.Fatalf("a stale sheet: %v %s\n%s", err, out, stderr)
	}
	if got := stored()["ana|"+anaRows[0][1]]; got != "1/0/answered" {
		t.Fatalf("a stale sheet reverted a newer answer: %s", got)
	}
	if out, _, err := runCLI(t, dir, "study", "import", "1", p, "--overwrite"); err != nil || !strings.Contains(out, "4 answers") {
		t.Fatalf("--overwrite: %v %s", err, out)
	}
	if got := stored()["ana|"+anaRows[0][1]]; got != "0/0/answered" {
		t.Fatalf("--overwrite did not take the sheet's answer: %s", got)
	}
	// A fresh export, edited: saved_at matches, the edit is stored; the
	// same sheet again changes nothing.
	_, fresh := exportSheet(t, dir, "1")
	edit := [][]string{fresh[0]}
	for _, r := range fresh[1:] {
		if r[0] == "ana" {
			r = append([]string(nil), r...)
			r[6] = "1"
			edit = append(edit, r)
		}
	}
	p = write("edit.csv", edit, ',', "")
	if out, _, err := runCLI(t, dir, "study", "import", "1", p); err != nil || !strings.Contains(out, "4 answers") || !strings.Contains(out, "0 conflicts") {
		t.Fatalf("an edited fresh sheet: %v %s", err, out)
	}
	if out, _, err := runCLI(t, dir, "study", "import", "1", p); err != nil || !strings.Contains(out, "0 answers") || !strings.Contains(out, "4 unchanged") {
		t.Fatalf("the same sheet again: %v %s", err, out)
	}

	// ben skips one item and leaves the others open.
	var benRows [][]string
	for _, r := range fresh[1:] {
		if r[0] == "ben" {
			benRows = append(benRows, r)
		}
	}
	skip := [][]string{hdr, {"ben", benRows[0][1], benRows[0][2], "", "", "", "", "", "skipped", ""}}
	if out, _, err := runCLI(t, dir, "study", "import", "1", write("skip.csv", skip, '\t', "")); err != nil || !strings.Contains(out, "1 answers") {
		t.Fatalf("a skip (tab-separated): %v %s", err, out)
	}
	got := stored()
	if got["ben|"+benRows[0][1]] != "//skipped" || got["ben|"+benRows[1][1]] != "//" {
		t.Fatalf("skipped and open items: %q and %q", got["ben|"+benRows[0][1]], got["ben|"+benRows[1][1]])
	}

	// One sheet per annotator, each with only their rows.
	sheets := filepath.Join(dir, "sheets")
	if _, _, err := runCLI(t, dir, "study", "export", "1", "--out-dir", sheets); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"ana", "ben"} {
		b, err := os.ReadFile(filepath.Join(sheets, "study-1-"+who+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows, _ := csv.NewReader(strings.NewReader(string(b))).ReadAll()
		if len(rows) != 1+4 {
			t.Fatalf("%s's sheet has %d rows", who, len(rows))
		}
		for _, r := range rows[1:] {
			if r[0] != who {
				t.Fatalf("%s's sheet holds a row of %s", who, r[0])
			}
		}
	}
	if _, _, err := runCLI(t, dir, "study", "export", "1", "--annotator", "cy"); err == nil || !strings.Contains(err.Error(), "no annotator \"cy\"") {
		t.Fatalf("an unknown annotator: %v", err)
	}
}
