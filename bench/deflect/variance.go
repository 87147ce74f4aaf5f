package deflect

import (
	"math"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
)

// shareCells are one model's (or every model's) refusal counts by claim and
// prompt: what the variance shares are computed from, under any weights
// of the claims.
type shareCells struct {
	prompts []string
	sum, n  [][]float64 // [claim][prompt]
}

// newShareCells counts the rows' defined refusal consensus by claim and
// prompt_id.
func (p *prepared) newShareCells(rows []*Row) shareCells {
	claimIdx := map[string]int{}
	for i, c := range p.claims {
		claimIdx[c] = i
	}
	var sc shareCells
	promptIdx := map[string]int{}
	for _, r := range rows {
		if _, ok := promptIdx[r.Gen.PromptID]; !ok {
			promptIdx[r.Gen.PromptID] = len(sc.prompts)
			sc.prompts = append(sc.prompts, r.Gen.PromptID)
		}
	}
	sc.sum, sc.n = make([][]float64, len(p.claims)), make([][]float64, len(p.claims))
	for c := range p.claims {
		sc.sum[c], sc.n[c] = make([]float64, len(sc.prompts)), make([]float64, len(sc.prompts))
	}
	for _, r := range rows {
		v, ok := r.has(fRefusal)
		if !ok {
			continue
		}
		c, k := claimIdx[r.Gen.ClaimID], promptIdx[r.Gen.PromptID]
		sc.sum[c][k] += v
		sc.n[c][k]++
	}
	return sc
}

// shares are η² of claim and of prompt_id (the between-group sums of
// squares over the total, of the 0/1 refusal), the rest (interaction and
// noise), and the frame-to-claim ratio, with claim c counted w[c] times
// (nil: once).
func (sc shareCells) shares(w []int) []float64 {
	nan := []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	var S, N, ssClaim float64
	sp, np := make([]float64, len(sc.prompts)), make([]float64, len(sc.prompts))
	for c := range sc.sum {
		k := 1.0
		if w != nil {
			k = float64(w[c])
		}
		if k == 0 {
			continue
		}
		var sc1, nc float64
		for j := range sc.prompts {
			sc1 += sc.sum[c][j]
			nc += sc.n[c][j]
			sp[j] += k * sc.sum[c][j]
			np[j] += k * sc.n[c][j]
		}
		if nc > 0 {
			ssClaim += k * sc1 * sc1 / nc
		}
		S, N = S+k*sc1, N+k*nc
	}
	if N == 0 {
		return nan
	}
	base := S * S / N
	total := S - base // Σv² − (Σv)²/N, v ∈ {0, 1}
	if total <= 0 {
		return nan
	}
	var ssPrompt float64
	for j := range sp {
		if np[j] > 0 {
			ssPrompt += sp[j] * sp[j] / np[j]
		}
	}
	claim, prompt := (ssClaim-base)/total, (ssPrompt-base)/total
	return []float64{claim, prompt, 1 - claim - prompt, prompt / claim}
}

// varianceShares is the table of how much of refusal's variance the claim
// and the prompt frame explain, per model and over every model, with
// percentile intervals from a bootstrap over claims.
func (p *prepared) varianceShares() *report.Table {
	t := &report.Table{ID: "variance_shares", Title: "Variance of refusal explained by the claim and by the prompt frame",
		Columns: report.Cols("model", "claim (η²)", "prompt frame (η²)", "interaction and noise", "frame ÷ claim")}
	groups := append([]string{}, p.models...)
	if len(p.models) > 1 {
		groups = append(groups, "all models")
	}
	for _, m := range groups {
		rows := p.byModel[m]
		if m == "all models" {
			rows = p.rows
		}
		sc := p.newShareCells(rows)
		est := sc.shares(nil)
		reps, err := stats.ClusterBootstrap(len(p.claims), p.opt.Resamples, p.opt.Seed, func(w []int) ([]float64, bool) { return sc.shares(w), true })
		row := []report.Cell{report.T(m)}
		for i, v := range est {
			switch {
			case math.IsNaN(est[0]):
				row = append(row, report.NA("refusal does not vary: nothing to share"))
				continue
			case math.IsNaN(v) || math.IsInf(v, 0):
				row = append(row, report.NA("the claim explains none of the variance"))
				continue
			case p.thin(len(p.claims)):
				row = append(row, noInterval(report.F(v, 4), p.thinNote(len(p.claims))))
				continue
			case err != nil:
				row = append(row, report.F(v, 4))
				continue
			}
			lo, hi := reps.Percentile(i, p.opt.Level)
			row = append(row, report.NCI(v, lo, hi, 4))
		}
		t.Rows = append(t.Rows, row)
	}
	t.Note = "η² = between-group sum of squares / total sum of squares of the 0/1 refusal consensus, for claim and for prompt_id (frame × fallacy), one factor at a time (orthogonal in the balanced grid); the rest is their interaction and sampling noise. Intervals: percentile bootstrap over claims (frames fixed), the report's resamples and seed."
	return t
}
