package deflect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/fallacylab/fallacylab/stats"

	"github.com/fallacylab/fallacylab/report"
)

// TestEveryFigureHasAnInterval (#44 item 4): in the JSON report of a
// synthetic full grid, every number is a count (int), has an interval
// (lo, hi), or says in its note why it has none; every empty cell says
// why it is empty.
func TestEveryFigureHasAnInterval(t *testing.T) {
	d, _, _ := Synthesize(SynthOptions{Models: []string{"m1", "m2"}, Samples: 2, Seed: 5, SoftFlip: 0.05, JudgeNoise: 0.05, ParseErrors: 0.01, ErrorRate: 0.002})
	walkReport(t, d)
	// Two claims: too few for the claim bootstrap, every figure says so.
	var few Dataset
	keep := map[string]bool{}
	for _, g := range d.Gens {
		if len(keep) < 2 || keep[g.ClaimID] {
			keep[g.ClaimID] = true
			few.Gens = append(few.Gens, g)
		}
	}
	for _, e := range d.Evals {
		for _, g := range few.Gens {
			if g.GenID == e.GenID {
				few.Evals = append(few.Evals, e)
				break
			}
		}
	}
	walkReport(t, few)
}

// walkReport walks the JSON report of d for figures without an interval
// or a reason.
func walkReport(t *testing.T, d Dataset) {
	t.Helper()
	rep, err := Analyze(d, Options{Resamples: 50, MinClusters: DefaultMinClusters})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, rep, report.JSON); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	var doc struct {
		Sections []struct {
			Tables []struct {
				ID      string
				Columns []struct{ Label string }
				Rows    [][]map[string]any
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	bad := map[string]int{}
	var first []string
	figures := 0
	for _, s := range doc.Sections {
		for _, tb := range s.Tables {
			for _, row := range tb.Rows {
				for j, c := range row {
					kind, _ := c["kind"].(string)
					_, hasLo := c["lo"]
					note, _ := c["note"].(string)
					switch kind {
					case "text", "int":
						continue
					case "empty":
						if note != "" {
							continue
						}
					default:
						figures++
						if hasLo || note != "" {
							continue
						}
					}
					bad[tb.ID]++
					if len(first) < 10 {
						first = append(first, fmt.Sprintf("%s, column %q: %v", tb.ID, tb.Columns[j].Label, c))
					}
				}
			}
		}
	}
	if len(bad) > 0 {
		var ids []string
		for id, n := range bad {
			ids = append(ids, fmt.Sprintf("%s (%d)", id, n))
		}
		sort.Strings(ids)
		t.Fatalf("%d figures; without an interval or a reason: %v\nfirst: %q", figures, ids, first)
	}
	t.Logf("%d figures, each with an interval or a reason", figures)
}

// TestValueHistDescribes: the weighted describe of counted values equals
// stats.Describe (pandas' describe()) of the multiset the weights make,
// also after another resample's describe (which shares its buffer).
func TestValueHistDescribes(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for trial := range 50 {
		claims := 1 + rng.IntN(8)
		var x []float64
		var claimOf []int
		for range 1 + rng.IntN(60) {
			x = append(x, float64(rng.IntN(40)))
			claimOf = append(claimOf, rng.IntN(claims))
		}
		h := newValueHist(x, claimOf, claims)
		w := make([]int, claims)
		for c := range w {
			w[c] = rng.IntN(3)
		}
		var multi []float64
		for i, v := range x {
			for range w[claimOf[i]] {
				multi = append(multi, v)
			}
		}
		other := make([]int, claims) // a resample before: its counts must not stay in h's buffer
		for c := range other {
			other[c] = 1 + rng.IntN(4)
		}
		h.describe(other)
		got := h.describe(w)
		if len(multi) < 2 {
			continue
		}
		d, err := stats.Describe(multi)
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{d.Mean, d.SD, d.Min, d.Q25, d.Q50, d.Q75, d.Max}
		for j := range want {
			if math.Abs(got[j]-want[j]) > 1e-9*math.Max(1, math.Abs(want[j])) {
				t.Fatalf("trial %d stat %d: %v, Describe %v", trial, j, got, want)
			}
		}
	}
}
