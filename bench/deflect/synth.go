package deflect

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// SynthOptions shape a synthetic DeflectBench run.
type SynthOptions struct {
	Models  []string
	Samples int // runs per condition (default 5)
	Seed    uint64
	// Refusal gives each model's true refusal probability per prompt_num.
	Refusal func(model string, promptNum int) float64
	// SoftFlip is the probability that the second judge flips soft_refusal.
	SoftFlip float64
	// ErrorRate is the share of generations that are API errors.
	ErrorRate float64
	// JudgeNoise is the probability that the second judge flips each of
	// the other seven fields (0: it agrees with the first judge on them).
	JudgeNoise float64
	// ParseErrors is the share of judge answers that are not JSON, so
	// their rows are parse errors.
	ParseErrors float64
}

// Truth is the scripted ground truth of one synthetic generation.
type Truth map[string]int

// Synthesize builds a full-scale synthetic run on the embedded benchmark:
// models × 80 claims × 15 templates × samples generations and two judges, the
// first reporting the truth and the second the truth with soft_refusal
// flipped at SoftFlip. It returns the dataset and the truth per gen_id, so
// tests can compare the report with known rates.
func Synthesize(o SynthOptions) (Dataset, map[string]Truth, error) {
	b, err := Default()
	if err != nil {
		return Dataset{}, nil, err
	}
	if o.Samples == 0 {
		o.Samples = 5
	}
	if o.Refusal == nil {
		o.Refusal = func(m string, num int) float64 { return 0.1 + 0.1*float64(num%4) }
	}
	rng := rand.New(rand.NewPCG(o.Seed, 77))
	var d Dataset
	truth := map[string]Truth{}
	judges := []string{"synthetic:judge-a", "synthetic:judge-b"}
	for _, m := range o.Models {
		for _, c := range b.Claims {
			for _, t := range b.Templates {
				prompt, _ := b.Render(t, c)
				for run := 1; run <= o.Samples; run++ {
					g := Generation{GenID: GenID(c.ID, t.ID, m, run), ClaimID: c.ID, ClaimText: c.Text, Level: c.Level, Context: c.Context,
						Domain: c.Domain, Fallacy: t.Fallacy, Explicitness: t.Explicitness, Frame: t.Frame, PromptNum: t.Num,
						PromptID: t.ID, PromptText: prompt, Model: m, Run: run, InputTokens: 40 + rng.IntN(40)}
					if rng.Float64() < o.ErrorRate {
						g.Response, g.IsError = "ERROR: 500 from synthetic", 1
						d.Gens = append(d.Gens, g)
						continue
					}
					tr := Truth{}
					for _, f := range Fields {
						tr[f] = 0
					}
					if rng.Float64() < o.Refusal(m, t.Num) {
						tr["refusal"] = 1
						g.Response = "I can't help with that."
						g.OutputTokens = 10 + rng.IntN(30)
					} else {
						for _, f := range []string{"WA_present", "AH_present", "RH_present"} {
							if rng.Float64() < 0.4 {
								tr[f] = 1
							}
						}
						if tr["WA_present"]+tr["AH_present"]+tr["RH_present"] > 0 {
							tr["any_fallacy_present"] = 1
						}
						if rng.Float64() < 0.2 {
							tr["soft_refusal"] = 1
						}
						if rng.Float64() < 0.15 {
							tr["fallacy_labeled"] = 1
						}
						if tr["any_fallacy_present"] == 1 && tr["soft_refusal"] == 0 && tr["fallacy_labeled"] == 0 {
							tr["compliance_clean"] = 1
						}
						g.Response = fmt.Sprintf("Synthetic deflection %d of %s.", run, c.ID)
						g.OutputTokens = 50 + rng.IntN(600)
					}
					truth[g.GenID] = tr
					d.Gens = append(d.Gens, g)
					for ji, j := range judges {
						scores := map[string]any{"reasoning": "synthetic"}
						for k, v := range tr {
							scores[k] = v
						}
						if ji == 1 && rng.Float64() < o.SoftFlip {
							scores["soft_refusal"] = 1 - tr["soft_refusal"]
						}
						// The options below draw only when set, so a run made
						// without them is the same as before they existed.
						if ji == 1 && o.JudgeNoise > 0 {
							for _, f := range Fields {
								if f != "soft_refusal" && rng.Float64() < o.JudgeNoise {
									scores[f] = 1 - tr[f]
								}
							}
						}
						raw, _ := json.Marshal(scores)
						if o.ParseErrors > 0 && rng.Float64() < o.ParseErrors {
							raw = []byte("Sorry, here is my assessment: refusal yes")
						}
						e := EvalFromRaw(g.GenID, j, string(raw))
						e.GenModel = m
						d.Evals = append(d.Evals, e)
					}
				}
			}
		}
	}
	return d, truth, nil
}
