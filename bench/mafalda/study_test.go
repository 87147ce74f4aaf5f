package mafalda_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/bench/benchtest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/store/sqlite"
	"github.com/fallacylab/fallacylab/study"
)

// TestSpanStudy: a level-2 run's predicted fallacy spans become a
// mafalda-span study's items (in their text, stratified by the gold's
// credit), with decoys of the gold's own spans; annotations that accept
// every other span give the report's precision and recall of the gold's
// credit against people. A level-1 run is refused. The run's own report
// lists its study.
func TestSpanStudy(t *testing.T) {
	released(t) // the shared data
	h := benchtest.New(t, func(c llmtest.Call) llmtest.Reply {
		if strings.Contains(c.Prompt, "Sentence: \"I ") || strings.Contains(c.Prompt, "Sentence: \"The") {
			return llmtest.Reply{Text: "ad hominem, slippery slope"}
		}
		return llmtest.Reply{Text: "Not fallacious."}
	})
	for _, level := range []string{"2", "1"} {
		if _, stderr, err := h.Try("--data-dir", sharedData, "mafalda", "run", "--model", "openai:gpt-4.1-mini", "--limit", "40", "--level", level); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr)
		}
	}
	if _, stderr, err := h.Try("study", "create", "--run", "2", "--kind", "mafalda-span", "--annotators", "ana,ben"); err == nil || !strings.Contains(stderr+err.Error(), "level-2 run") {
		t.Fatalf("a span study of a level-1 run: %v\n%s", err, stderr)
	}
	if out, stderr, err := h.Try("study", "create", "--run", "1", "--kind", "mafalda-span", "--annotators", "ana,ben", "--decoys", "4", "--seed", "3"); err != nil {
		t.Fatalf("study create: %v\n%s\n%s", err, out, stderr)
	}
	st, err := sqlite.Open(h.DB())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _, err := st.Study(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	var anns []study.Annotation
	var both, onlyGold, onlyPeople, decoys int
	for i, it := range s.Items {
		h := map[bool]string{true: "1", false: "0"}[i%2 == 0]
		if it.Decoy {
			decoys++
			h = it.Known["label"]
			if !strings.Contains(it.Text, "Fallacy named: ") || it.Known["fallacious"] != "1" {
				t.Fatalf("decoy %+v", it)
			}
		} else {
			if !strings.HasPrefix(it.Text, "Span: ") || it.Context == "" || (it.Hidden["gold"] != "1" && it.Hidden["gold"] != "0") {
				t.Fatalf("item %+v", it)
			}
			switch g := it.Hidden["gold"]; {
			case g == "1" && h == "1":
				both++
			case g == "1":
				onlyGold++
			case h == "1":
				onlyPeople++
			}
		}
		for _, who := range []string{"ana", "ben"} {
			anns = append(anns, study.Annotation{StudyID: 1, Annotator: who, Item: it.Key, Answers: map[string]string{"fallacious": "1", "label": h}, At: time.Unix(1700000000, 0)})
		}
	}
	if decoys != 4 || both+onlyGold == 0 || both+onlyPeople == 0 {
		t.Fatalf("%d decoys; %d credited and accepted, %d credited only, %d accepted only", decoys, both, onlyGold, onlyPeople)
	}
	if err := st.PutAnnotations(t.Context(), anns); err != nil {
		t.Fatal(err)
	}
	js, stderr, err := h.Try("study", "report", "1", "--format", "json", "--resamples", "20")
	if err != nil {
		t.Fatalf("study report: %v\n%s", err, stderr)
	}
	rep, err := report.FromJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	row := rep.Table("gold_check").Rows[0]
	p, r := float64(both)/float64(both+onlyGold), float64(both)/float64(both+onlyPeople)
	if math.Abs(row[1].Value-p) > 1e-12 || math.Abs(row[2].Value-r) > 1e-12 || row[5].Value != float64(onlyPeople) {
		t.Fatalf("precision %v recall %v accepted-only %v, want %v %v %d", row[1].Value, row[2].Value, row[5].Value, p, r, onlyPeople)
	}
	js, stderr, err = h.Try("mafalda", "report", "--run", "1", "--format", "json")
	if err != nil {
		t.Fatalf("run report: %v\n%s", err, stderr)
	}
	if rep, err = report.FromJSON([]byte(js)); err != nil {
		t.Fatal(err)
	}
	if tb := rep.Table("studies"); tb == nil || len(tb.Rows) != 1 || tb.Rows[0][2].Text != "mafalda-span" {
		t.Fatalf("the run's report does not list its study: %+v", tb)
	}
}
