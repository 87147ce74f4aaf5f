package deflect

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestVarianceSharesMatchStatsmodels: η² of claim and of prompt equal
// statsmodels' two-way ANOVA sums of squares over the total
// (testdata/refs/make_variance_refs.py) on balanced grids, and a claim
// counted twice by the bootstrap's weights counts as two claims.
func TestVarianceSharesMatchStatsmodels(t *testing.T) {
	b, err := os.ReadFile("testdata/refs/variance_refs.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs struct {
		Cases []struct {
			Rows []struct {
				Claim, Prompt string
				Y             float64
			}
			EtaClaim  float64 `json:"eta_claim"`
			EtaPrompt float64 `json:"eta_prompt"`
		}
	}
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	for i, c := range refs.Cases {
		build := func(copies map[string]int) shareCells {
			claims, prompts := map[string]int{}, map[string]int{}
			var sc shareCells
			var order []string
			for _, r := range c.Rows {
				for k := range max(1, copies[r.Claim]) {
					name := r.Claim
					if k > 0 {
						name += "'"
					}
					if _, ok := claims[name]; !ok {
						claims[name] = len(order)
						order = append(order, name)
					}
				}
				if _, ok := prompts[r.Prompt]; !ok {
					prompts[r.Prompt] = len(sc.prompts)
					sc.prompts = append(sc.prompts, r.Prompt)
				}
			}
			sc.sum, sc.n = make([][]float64, len(order)), make([][]float64, len(order))
			for k := range order {
				sc.sum[k], sc.n[k] = make([]float64, len(sc.prompts)), make([]float64, len(sc.prompts))
			}
			for _, r := range c.Rows {
				for k := range max(1, copies[r.Claim]) {
					name := r.Claim
					if k > 0 {
						name += "'"
					}
					sc.sum[claims[name]][prompts[r.Prompt]] += r.Y
					sc.n[claims[name]][prompts[r.Prompt]]++
				}
			}
			return sc
		}
		got := build(nil).shares(nil)
		if math.Abs(got[0]-c.EtaClaim) > 1e-12 || math.Abs(got[1]-c.EtaPrompt) > 1e-12 || math.Abs(got[0]+got[1]+got[2]-1) > 1e-12 {
			t.Fatalf("case %d: η² claim %v prompt %v, statsmodels %v %v", i, got[0], got[1], c.EtaClaim, c.EtaPrompt)
		}
		// Weights: the first claim twice, the second not at all, equals
		// the grid with the first claim copied and the second dropped.
		sc := build(nil)
		w := make([]int, len(sc.sum))
		for k := range w {
			w[k] = 1
		}
		w[0], w[1] = 2, 0
		first := c.Rows[0].Claim
		second := ""
		var kept []struct {
			Claim, Prompt string
			Y             float64
		}
		for _, r := range c.Rows {
			if r.Claim != first && second == "" {
				second = r.Claim
			}
			if r.Claim != second {
				kept = append(kept, r)
			}
		}
		c.Rows = kept
		want := build(map[string]int{first: 2}).shares(nil)
		gotW := sc.shares(w)
		for k := range want {
			if math.Abs(gotW[k]-want[k]) > 1e-12 {
				t.Fatalf("case %d: weighted %v, copied %v", i, gotW, want)
			}
		}
	}
}
