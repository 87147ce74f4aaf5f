package missciplus

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"testing"
)

// TestReconstructionEvalEqualsUpstream: on crafted, mapped predictions
// for every dev argument (testdata/make_reconstruct_eval.py), subtask 3's
// scores — the stats, and for every prediction and each top k the
// claim-level F1s and per-class scores and the fallacy-level alignment
// counts, recalls, precisions and Arg@1, with the judge's alignment and by
// class alone — equal upstream's own evaluator's to 1e-9, scoring every
// passage and only the gold ones.
func TestReconstructionEvalEqualsUpstream(t *testing.T) {
	f, err := os.Open("testdata/reconstruct_predictions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	preds, err := ParsePredictions(f, "reconstruct_predictions.jsonl")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/reconstruct_eval.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Version string
		Runs    []struct {
			AllPassages       bool `json:"all_passages"`
			OnlyMappedContext bool `json:"only_mapped_context"`
			Scores            map[string]any
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	gold, err := Load("dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Runs) != 4 {
		t.Fatalf("%d reference runs", len(ref.Runs))
	}
	for _, run := range ref.Runs {
		got, err := EvaluateReconstruction(preds, gold, EvalOptions{Version: ref.Version, AllPassages: run.AllPassages, OnlyMappedContext: run.OnlyMappedContext})
		if err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		var have map[string]any
		json.Unmarshal(gb, &have)
		name := fmt.Sprintf("all %v mapped %v", run.AllPassages, run.OnlyMappedContext)
		n := compareJSON(t, name, run.Scores, have)
		if n < 290 {
			t.Errorf("%s: only %d figures compared", name, n)
		}
	}
}

// compareJSON compares upstream's scores (want) with fallacylab's (have),
// number by number; lists of passages compare as sets. It returns how
// many numbers it compared.
func compareJSON(t *testing.T, path string, want, have any) int {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			t.Errorf("%s: fallacylab has %v", path, have)
			return 0
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		n := 0
		for _, k := range keys {
			hv, ok := h[k]
			if !ok {
				t.Errorf("%s.%s: missing", path, k)
				continue
			}
			n += compareJSON(t, path+"."+k, w[k], hv)
		}
		return n
	case []any:
		h, _ := have.([]any)
		var ws, hs []string
		for _, x := range w {
			ws = append(ws, fmt.Sprint(x))
		}
		for _, x := range h {
			hs = append(hs, fmt.Sprint(x))
		}
		slices.Sort(ws)
		slices.Sort(hs)
		if !slices.Equal(ws, hs) {
			t.Errorf("%s: %v, upstream %v", path, hs, ws)
		}
		return 1
	case float64:
		h, ok := have.(float64)
		if !ok || math.Abs(h-w) > 1e-9 {
			t.Errorf("%s: %v, upstream %v", path, have, w)
		}
		return 1
	default:
		t.Errorf("%s: upstream's %v (%T) is not compared", path, want, want)
		return 0
	}
}
