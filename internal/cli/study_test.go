package cli_test

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A native-class study of the embedded audit, coded offline: create, export
// a blind sheet, fill it in, import it (a bad row stores nothing), report.
func TestStudySheetRoundTrip(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	if _, stderr, err := runCLI(t, dir, "foils", "audit", "--resamples", "50", "--permutations", "50"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "foils-native", "--n", "6", "--annotators", "ana,ben", "--decoys", "2")
	if err != nil || !strings.Contains(out, "study 1: 6 items") {
		t.Fatalf("%v %s\n%s", err, out, stderr)
	}
	// Two decoys: one miss is 50 %, below the bar; said at once, and
	// again in the report's decoy section (below).
	const few = "with 2 decoys, one miss puts an annotator below the 80 % bar (1 of 2 is 50 %); 5 decoys or more allow one"
	if !strings.Contains(stderr, "note: "+few) {
		t.Fatalf("two decoys, unsaid:\n%s", stderr)
	}
	if _, _, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "deflect-rubric", "--annotators", "a"); err == nil || !strings.Contains(err.Error(), "needs a deflect run") {
		t.Fatalf("a DeflectBench study of a foils run: %v", err)
	}
	sheet, recs := exportSheet(t, dir, "1")
	if len(recs) != 1+2*8 || recs[0][5] != "code (A/B/N)" {
		t.Fatalf("sheet: %d rows, header %v", len(recs), recs[0])
	}
	if strings.Contains(sheet, "native:") || strings.Contains(sheet, "matched") || strings.Contains(sheet, "tfidf") {
		t.Fatal("the sheet shows what the study hides (item keys, conditions, the detector)")
	}
	// Both code everything N; ben writes one code that is not a choice.
	for i := 1; i < len(recs); i++ {
		recs[i][5] = "n"
	}
	bad := append([][]string(nil), recs...)
	bad[3] = append([]string(nil), recs[3]...)
	bad[3][5] = "Q"
	write := func(name string, rows [][]string) string {
		p := filepath.Join(dir, name)
		f, _ := os.Create(p)
		w := csv.NewWriter(f)
		w.WriteAll(rows)
		f.Close()
		return p
	}
	if _, _, err := runCLI(t, dir, "study", "import", "1", write("bad.csv", bad)); err == nil || !strings.Contains(err.Error(), "bad.csv line 4") || !strings.Contains(err.Error(), `"Q" is not one of its choices`) {
		t.Fatalf("bad sheet: %v", err)
	}
	for _, bar := range []string{"1.5", "-0.1", "80", "NaN"} {
		if _, _, err := runCLI(t, dir, "study", "report", "1", "--decoy-bar", bar); err == nil || !strings.Contains(err.Error(), "--decoy-bar") {
			t.Fatalf("--decoy-bar %s: %v", bar, err)
		}
	}
	rep, _, _ := runCLI(t, dir, "study", "report", "1", "--resamples", "50")
	if !strings.Contains(rep, "With 2 decoys, one miss puts an annotator below the 80 % bar") {
		t.Fatalf("the report's decoy section does not say that one miss flags:\n%s", rep)
	}
	if rep, _, _ := runCLI(t, dir, "study", "report", "1", "--resamples", "50", "--decoy-bar", "0.5"); strings.Contains(rep, "one miss puts") {
		t.Fatal("at a 50 % bar, one miss of two is allowed")
	}
	if !strings.Contains(rep, "| ana | 8 | 0 | 0 | 8 |") {
		t.Fatalf("a refused sheet stored answers:\n%s", rep)
	}
	if out, _, err := runCLI(t, dir, "study", "import", "1", write("good.csv", recs)); err != nil || !strings.Contains(out, "16 answers") {
		t.Fatalf("import: %v %s", err, out)
	}
	rep, _, err = runCLI(t, dir, "study", "report", "1", "--resamples", "50")
	if err != nil {
		t.Fatal(err)
	}
	// Everyone says N: the decoys (known A) are all missed and flagged; the
	// six native items are all N.
	for _, want := range []string{"| ana | 8 | 8 | 0 | 0 |", "| ana | 2 | 0 | 0.0 [0.0, 65.8] (n=2) | below the bar", "| N | 6 | 100.0 [61.0, 100.0] (n=6)"} {
		if !strings.Contains(rep, want) {
			t.Fatalf("report lacks %q:\n%s", want, rep)
		}
	}
	// Their agreement on every item is an interval that is the point
	// itself, which the meta counts.
	pointsCounted(t, rep)
	// The run's own report ends with its studies.
	audit, _, err := runCLI(t, dir, "foils", "report", "--run", "1")
	if err != nil || !strings.Contains(audit, "## Human validation") || !strings.Contains(audit, "| 1 | foils-native of run 1 | foils-native | 8 | 2 | 16 | fallacylab study report 1 |") {
		t.Fatalf("the audit's report does not list its study: %v\n%s", err, audit)
	}
	links, _, _ := runCLI(t, dir, "study", "links", "1", "--base", "http://lab.example:7411")
	if strings.Count(links, "http://lab.example:7411/annotate/login/") != 2 {
		t.Fatalf("links:\n%s", links)
	}
	// Deleting the run would delete the human answers: refused, nothing goes.
	if _, _, err := runCLI(t, dir, "runs", "rm", "1"); err == nil || !strings.Contains(err.Error(), "1 study with 16 answers") || !strings.Contains(err.Error(), "--with-studies") {
		t.Fatalf("runs rm of a run with a study: %v", err)
	}
	if list, _, _ := runCLI(t, dir, "study", "list"); !strings.Contains(list, "ana 8/8, ben 8/8") {
		t.Fatalf("a refused runs rm lost answers:\n%s", list)
	}
	// A second study goes alone. It asks for more items than the run has:
	// it has them all, and says so.
	if _, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "foils-native", "--n", "5000", "--annotators", "cy"); err != nil ||
		!strings.Contains(stderr, "note: --n 5000 asked for more items than run 1 has to sample (") {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if out, _, err := runCLI(t, dir, "study", "rm", "2"); err != nil || !strings.Contains(out, "deleted study 2") || !strings.Contains(out, "its 0 human answers") {
		t.Fatalf("study rm: %v %s", err, out)
	}
	if out, _, err := runCLI(t, dir, "runs", "rm", "1", "--with-studies"); err != nil || !strings.Contains(out, "with its 1 study and their 16 human answers") {
		t.Fatalf("runs rm --with-studies: %v %s", err, out)
	}
}

// A validity study's report makes the audit again on the negatives the
// annotators confirmed: two items every annotator calls invalid are left
// out of it.
func TestStudyValidityConfirmedAudit(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	if _, stderr, err := runCLI(t, dir, "foils", "audit", "--resamples", "50", "--permutations", "50"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "foils-validity", "--per-type", "2", "--annotators", "a,b,c"); err != nil || !strings.Contains(out, "study 1: 16 items") {
		t.Fatalf("%v %s\n%s", err, out, stderr)
	}
	sheet, _, _ := runCLI(t, dir, "study", "export", "1")
	recs, _ := csv.NewReader(strings.NewReader(sheet)).ReadAll()
	invalid := map[string]bool{recs[1][1]: true, recs[2][1]: true} // two items, by number
	for i := 1; i < len(recs); i++ {
		recs[i][5] = "V"
		if invalid[recs[i][1]] {
			recs[i][5] = "I"
		}
	}
	p := filepath.Join(dir, "sheet.csv")
	f, _ := os.Create(p)
	csv.NewWriter(f).WriteAll(recs)
	f.Close()
	if _, _, err := runCLI(t, dir, "study", "import", "1", p); err != nil {
		t.Fatal(err)
	}
	rep, _, err := runCLI(t, dir, "study", "report", "1", "--resamples", "50")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| all | 16 | 14 | 87.5", "## The audit on the human-confirmed subset", "only the 14 matched and wrong-scheme negatives", "matched (M): FPR"} {
		if !strings.Contains(rep, want) {
			t.Fatalf("report lacks %q:\n%s", want, rep)
		}
	}
}

// A Missci premise study of a model run: the sheet is answered in the
// paper's True / False, imported, and reported as Tables 14, 4 and 13 with
// the run's own P@1.
func TestStudyMissciPremise(t *testing.T) {
	_, dir := guaranteeEnv(t, missciScripted(t))
	if _, stderr, err := runCLI(t, dir, "missci", "run", "--model", "openai:gpt-4.1", "--split", "dev", "--max-unusable", "0.6"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	out, stderr, err := runCLI(t, dir, "study", "create", "--run", "1", "--kind", "missci-premise", "--annotators", "ana,ben", "--decoys", "2", "--n", "10")
	if err != nil || !strings.Contains(out, "study 1: 10 items") {
		t.Fatalf("%v %s\n%s", err, out, stderr)
	}
	sheet, recs := exportSheet(t, dir, "1")
	if len(recs) != 1+2*12 || recs[0][5] != "q1 (1/0)" || recs[0][8] != "q4 (1/0)" {
		t.Fatalf("sheet: %d rows, header %v", len(recs), recs[0])
	}
	if strings.Contains(sheet, "gpt-4.1") || strings.Contains(sheet, "p4-connect") {
		t.Fatal("the sheet shows the model or the template")
	}
	// Both say True to every generated premise and False to empty ones and
	// to the decoys (whose "generated" premise is the study's own p0).
	const acc = "Accurate premise (what the study reports): "
	for i := 1; i < len(recs); i++ {
		ctx, text := recs[i][3], recs[i][4]
		p0 := ctx[strings.Index(ctx, acc)+len(acc) : strings.Index(ctx, "\nReference")]
		v := "True"
		if strings.Contains(text, "(no premise generated)") || strings.Contains(text, p0) {
			v = "False"
		}
		for q := 5; q <= 8; q++ {
			recs[i][q] = v
		}
	}
	p := filepath.Join(dir, "sheet.csv")
	f, _ := os.Create(p)
	csv.NewWriter(f).WriteAll(recs)
	f.Close()
	if out, _, err := runCLI(t, dir, "study", "import", "1", p); err != nil || !strings.Contains(out, "24 answers") {
		t.Fatalf("import: %v %s", err, out)
	}
	rep, _, err := runCLI(t, dir, "study", "report", "1", "--resamples", "50")
	if err != nil {
		t.Fatal(err)
	}
	// The scripted model's wrong lines are exactly its empty ones: h correct
	// 1, h incorrect 0, so the approximation is the run's P@1 (35/72, as its
	// own report gives it).
	for _, want := range []string{"## Premise quality (Tables 13, 14 and 4)", "| ana | 2 | 2 | 100.0 [",
		"| openai:gpt-4.1 gen_cls/p4-connect-D | q4 | 100.0 [56.6, 100.0] (n=5) | 0.0 [0.0, 43.4] (n=5) | 0.486 | 0.486 |", "| METEOR | 5 | 5 |"} {
		if !strings.Contains(rep, want) {
			t.Fatalf("report lacks %q:\n%s", want, rep)
		}
	}
}

// A foils-native study made with no --run studies the latest audit of the
// corpus (study.KindSpec's LatestRun), stratified by corpus file, each item
// with its context, and --sheet writes its coding sheet at once (as `foils
// sheet export` did, which now names this line); `foils sheet import`
// still scores an old two-coder sheet and sends a study's sheet to `study
// import`. A sheet that cannot be written keeps no study.
func TestFoilsSheetIsAStudy(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	create := []string{"study", "create", "--kind", "foils-native", "--corpus", "reddit", "--annotators", "coder_1,coder_2", "--n", "12"}
	if _, _, err := runCLI(t, dir, create...); err == nil || !strings.Contains(err.Error(), "run fallacylab foils audit --corpus reddit first") {
		t.Fatalf("no audit yet: %v", err)
	}
	if _, _, err := runCLI(t, dir, "study", "create", "--kind", "missci-premise", "--annotators", "a"); err == nil || !strings.Contains(err.Error(), "--run: a missci-premise study names the run it studies") {
		t.Fatalf("a kind with no latest run, no --run: %v", err)
	}
	if _, _, err := runCLI(t, dir, "foils", "sheet", "export", "--n", "12", "--out", "s.csv"); err == nil ||
		!strings.Contains(err.Error(), "fallacylab study create --kind foils-native --corpus reddit --n 12 --seed 1 --annotators coder_1,coder_2 --sheet s.csv") {
		t.Fatalf("the old export line: %v", err)
	}
	if _, stderr, err := runCLI(t, dir, "foils", "audit", "--resamples", "20", "--permutations", "20"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, _, err := runCLI(t, dir, append(create, "--sheet", filepath.Join(dir, "no", "such", "dir", "s.csv"))...); err == nil || !strings.Contains(err.Error(), "--sheet") {
		t.Fatalf("an unwritable sheet: %v", err)
	}
	if out, _, err := runCLI(t, dir, "study", "list"); err != nil || strings.Contains(out, "foils-native") {
		t.Fatalf("a study kept without its sheet: %v\n%s", err, out)
	}
	sheet := filepath.Join(dir, "sheet.csv")
	out, _, err := runCLI(t, dir, append(create, "--sheet", sheet)...)
	if err != nil || !strings.Contains(out, "run 1: the latest a foils-native study can sample") || !strings.Contains(out, "12 items") ||
		!strings.Contains(out, "fallacylab --db "+filepath.Join(dir, "f.db")+" study import 1 "+sheet) {
		t.Fatalf("%v %s", err, out)
	}
	b, _ := os.ReadFile(sheet)
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil || len(recs) != 1+2*12 {
		t.Fatalf("%v: %d rows", err, len(recs))
	}
	withContext := 0
	for _, r := range recs[1:] {
		if r[3] != "" {
			withContext++
		}
	}
	if withContext == 0 {
		t.Fatal("no native item shows its context")
	}
	if _, _, err := runCLI(t, dir, "foils", "sheet", "import", sheet); err == nil || !strings.Contains(err.Error(), "study import STUDY") {
		t.Fatalf("a study sheet through the old import: %v", err)
	}
	legacy := filepath.Join(dir, "old.csv")
	os.WriteFile(legacy, []byte("item_id,corpus,stratum,context,text,code_1,code_2,resolved\n1,reddit,s,c,t,A,A,\n2,reddit,s,c,t,B,N,\n"), 0o644)
	if rep, _, err := runCLI(t, dir, "foils", "sheet", "import", legacy); err != nil || !strings.Contains(rep, "| reddit | 2 | 1 |") {
		t.Fatalf("an old sheet: %v\n%s", err, rep)
	}
}

// exportSheet is study export's sheet of a study, and its rows.
func exportSheet(t *testing.T, dir, study string) (string, [][]string) {
	t.Helper()
	sheet, _, err := runCLI(t, dir, "study", "export", study)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(sheet)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return sheet, recs
}

// rubricStudy makes a folder whose store holds a synthetic DeflectBench
// run of one model (run 1) and a rubric study of it (study 1) made with
// the study create flags given (--run and --kind are set).
func rubricStudy(t *testing.T, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("{}\n"), 0o644)
	syn := filepath.Join(dir, "syn")
	for _, args := range [][]string{
		{"deflect", "synth", "--models", "m-one", "--samples", "1", "--out-dir", syn},
		{"deflect", "import", "--generations", filepath.Join(syn, "generations.jsonl"), "--evals", filepath.Join(syn, "evals.jsonl")},
		append([]string{"study", "create", "--run", "1", "--kind", "deflect-rubric"}, flags...),
	} {
		if out, stderr, err := runCLI(t, dir, args...); err != nil {
			t.Fatalf("%v: %v %s\n%s", args, err, out, stderr)
		}
	}
	return dir
}

// importRows writes rows as a sheet dir/name and imports it into study 1
// (with flags), returning what the import said.
func importRows(t *testing.T, dir, name string, rows [][]string, flags ...string) (string, string, error) {
	t.Helper()
	var sheet bytes.Buffer
	csv.NewWriter(&sheet).WriteAll(rows)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, sheet.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return runCLI(t, dir, append([]string{"study", "import", "1", p}, flags...)...)
}
