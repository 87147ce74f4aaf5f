package missciplus

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/fallacylab/fallacylab/engine"
)

// ScriptedAnswer is testdata/make_prp.py's scripted model: an answer
// chosen by the first byte of the prompt's SHA-256.
func ScriptedAnswer(prompt string) string {
	return []string{"Passage B", "Passage A", "Passage A is more relevant than Passage B.", "Neither is relevant."}[sha256.Sum256([]byte(prompt))[0]%4]
}

type prpRef struct {
	Iterations int
	Runs       []struct {
		InitialOrder string `json:"initial_order"`
		AddSection   bool   `json:"add_section"`
		Calls        int
		Rankings     map[string][][]string
		Scores       []map[string]float64
	}
}

func loadPRPRef(t *testing.T) prpRef {
	t.Helper()
	b, err := os.ReadFile("testdata/prp.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref prpRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Runs) != 3 {
		t.Fatalf("%d reference runs", len(ref.Runs))
	}
	return ref
}

// TestPRPEqualsUpstream: on the answers of a scripted model, the sliding
// window ranks every dev argument as upstream's own PRPSliding does
// (testdata/make_prp.py) after each of three iterations — from the
// passages' order, with section titles, and from a random order — with as
// many calls, and the prompts are upstream's byte for byte (the scripted
// answer hangs on them). Each iteration's scores equal upstream's
// evaluator's.
func TestPRPEqualsUpstream(t *testing.T) {
	ref := loadPRPRef(t)
	args, err := Load("dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range ref.Runs {
		o := PRPOptions{Template: "qin-claim", Iterations: ref.Iterations, Random: run.InitialOrder == "random", Seed: 1, AddSection: run.AddSection}
		calls := 0
		got, err := PRP(context.Background(), args, nil, o, func(_ context.Context, _ int, jobs []engine.Job) (map[int]string, error) {
			out := map[int]string{}
			for _, j := range jobs {
				calls++
				out[j.Meta.(pairMeta).Arg] = ScriptedAnswer(j.Request.Messages[0].Content)
			}
			return out, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if calls != run.Calls {
			t.Errorf("%s section %v: %d calls, upstream %d", run.InitialOrder, run.AddSection, calls, run.Calls)
		}
		for _, r := range got {
			want := run.Rankings[r.ID]
			for it := range want {
				if !slices.Equal(r.Iterations[it], want[it]) {
					t.Errorf("%s section %v %s after iteration %d: %v, upstream %v", run.InitialOrder, run.AddSection, r.ID, it+1, r.Iterations[it], want[it])
				}
			}
		}
		for it := range ref.Iterations {
			var rk []Ranking
			for _, r := range got {
				rk = append(rk, Ranking{ID: r.ID, Ranked: r.Iterations[it]})
			}
			sc, err := Score(1, args, rk, false)
			if err != nil {
				t.Fatal(err)
			}
			for j, m := range Subtask1Metrics {
				if w := run.Scores[it][m]; math.Abs(sc.Mean(j)-w) > 1e-9 {
					t.Errorf("%s iteration %d %s: %v, upstream %v", run.InitialOrder, it+1, m, sc.Mean(j), w)
				}
			}
		}
	}
}

// TestMoveAToFront reads answers as upstream's BasicPRPFiller.
func TestMoveAToFront(t *testing.T) {
	for answer, want := range map[string]bool{"Passage A": true, "Passage B": false, "Passage B, not Passage A": false,
		"Passage A over Passage B": true, "neither": false, "passage a": false} {
		if got := MoveAToFront(answer, false); got != want {
			t.Errorf("%q: %v", answer, got)
		}
	}
	if !MoveAToFront("no idea", true) {
		t.Error("the default is not kept")
	}
	if Comparisons(6, 3) != 12 || Comparisons(2, 3) != 1 {
		t.Error("comparisons")
	}
}
