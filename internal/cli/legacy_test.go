package cli_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/store/sqlite"
)

// TestLegacyStore opens a store made by the fallacylab of before the run
// lifecycle (schema 1: records as JSON labels; testdata/legacy/mkfixture.go.txt
// made it, with the reports that build wrote from it) and reports it again:
// every report is byte-identical but for the store's path, the version and
// the changes made since on purpose, patched into the files by hand with
// nothing else touched: the Wald p-value of the Firth table's intercept,
// which underflowed to 0 before #11, is 4.28e-28 in foils-old.md, its
// per-type gaps carry the bootstrap intervals #14 added and its confusion
// table is the matrix #14 made of it, its wrong-scheme note cites the
// paper's 31 of 40 valid rather than "about three quarters" (#27), and
// deflect-old.* have #11's per-field disagreement table and the note on
// mean |J1 − J2| and the "effective resamples" row added (the report is
// run with --min-clusters -1, as the previous release showed every interval);
// since #25 they also hold the tables that give every number upstream
// analysis.py prints a counterpart, and the three columns added to existing
// tables (any fallacy − clean, residual generations, parse error rate):
// additions only, every line the earlier fixture had is otherwise unchanged.
// #44 gave every figure of deflect-old.* an interval or a reason (κ's
// asymptotic SE a column of its own), the variance-shares table and the
// line on how to get the judged rates corrected: their values are the
// ones the earlier fixture had, with the intervals added. #43 made
// missci-old.md name fallacylab's version and its run, as every Task's
// report does. The χ² section of deflect-old.* now says that it counts
// each generation as independent, and its notes name the outcomes left
// out and the one outcome every generation has, where they gave column
// numbers and stats' error; its figures are unchanged. Its meta says how
// many of its intervals are the point itself (report.NotePointIntervals).
func TestLegacyStore(t *testing.T) {
	dir := t.TempDir()
	in, err := os.Open(filepath.Join("testdata", "legacy", "legacy.db.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	out.Close()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	norm := func(s string) string {
		s = runInStore.ReplaceAllString(s, "$1 in (store)")
		return versionLine.ReplaceAllString(s, "${1}(version)")
	}
	for _, c := range []struct {
		args []string
		old  string
	}{
		// The previous release showed intervals on cells from fewer than 5 claims.
		{[]string{"deflect", "report", "--run", "1", "--resamples", "100", "--min-clusters", "-1"}, "deflect-old.md"},
		{[]string{"deflect", "report", "--run", "1", "--resamples", "100", "--min-clusters", "-1", "--format", "json"}, "deflect-old.json"},
		{[]string{"missci", "report", "--run", "3", "--k", "all"}, "missci-old.md"},
		{[]string{"foils", "report", "--run", "2"}, "foils-old.md"},
	} {
		got, stderr, err := runCLI(t, dir, c.args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, stderr)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "legacy", c.old))
		if err != nil {
			t.Fatal(err)
		}
		// The one deliberate change since: a report names its benchmark by
		// its one registered name, not the old "deflectbench".
		w := strings.Replace(string(want), `"benchmark": "deflectbench"`, `"benchmark": "deflect"`, 1)
		if g, w := norm(got), norm(w); g != w {
			gl, wl := strings.Split(g, "\n"), strings.Split(w, "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("%v differs from %s at line %d:\n got: %.300s\nwant: %.300s", c.args, c.old, i+1, gl[i], wl[i])
				}
			}
			t.Fatalf("%v: %d lines, %s has %d", c.args, len(gl), c.old, len(wl))
		}
	}
	// The runs of the old store are done, not running forever.
	got, _, err := runCLI(t, dir, "runs")
	if err != nil || strings.Count(got, " done ") != 3 {
		t.Fatalf("runs of the legacy store: %v\n%s", err, got)
	}
	// Its DeflectBench run has no analysis snapshots (it was stored before
	// they existed; the store, which knows no benchmark, cannot make them):
	// the reports above were analysed from its records.
	st, err := sqlite.OpenWith(t.Context(), filepath.Join(dir, "f.db"), sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n, recs int
	if err := st.DB().QueryRow(`SELECT (SELECT COUNT(*) FROM record_snapshots WHERE run_id = 1), (SELECT COUNT(*) FROM records WHERE run_id = 1)`).Scan(&n, &recs); err != nil || n != 0 || recs == 0 {
		t.Fatalf("the upgraded store's DeflectBench run has %d snapshots and %d records (%v), want none and its records", n, recs, err)
	}
}
