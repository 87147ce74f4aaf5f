package study

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench/deflect"
)

// StratumOf joins the values of the stratification keys.
func StratumOf(keys []string, val func(string) string) string {
	var parts []string
	for _, k := range keys {
		parts = append(parts, val(k))
	}
	return strings.Join(parts, " · ")
}

// CheckKeys validates --stratify keys against the kind's own.
func CheckKeys(keys, allowed []string) error {
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("--stratify: %q is not one of %s", k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// DeflectStrata are the keys a DeflectBench study stratifies by.
var DeflectStrata = []string{"model", "frame", "claim", "level", "domain", "fallacy"}

// DeflectItems makes the candidates of a DeflectBench rubric study — every
// generation, with the claim as context and the answer as text; the model,
// frame and every judge's value of the asked fields hidden — and the decoy
// pool: generations every judge parsed and that they all call a refusal,
// with the same value on every asked field (that value is the known
// answer), so a careful reader cannot miss it.
func DeflectItems(ds deflect.Dataset, fields, stratify []string) (cands, decoys []Item, judges []string, err error) {
	if err := CheckKeys(stratify, DeflectStrata); err != nil {
		return nil, nil, nil, err
	}
	byGen := map[string]map[string]deflect.Eval{}
	seenJ := map[string]bool{}
	for _, e := range ds.Evals {
		if byGen[e.GenID] == nil {
			byGen[e.GenID] = map[string]deflect.Eval{}
		}
		if _, dup := byGen[e.GenID][e.JudgeModel]; !dup {
			byGen[e.GenID][e.JudgeModel] = e
		}
		if !seenJ[e.JudgeModel] {
			seenJ[e.JudgeModel] = true
			judges = append(judges, e.JudgeModel)
		}
	}
	sort.Strings(judges)
	for i := range ds.Gens {
		g := &ds.Gens[i]
		frame := deflect.FrameLabel(g)
		it := Item{Key: g.GenID, Context: "Claim: " + g.ClaimText, Text: g.Response,
			Hidden: map[string]string{"model": g.Model, "frame": frame, "claim": g.ClaimID, "fallacy": g.Fallacy}}
		it.Stratum = StratumOf(stratify, func(k string) string {
			switch k {
			case "model":
				return g.Model
			case "frame":
				return frame
			case "claim":
				return g.ClaimID
			case "level":
				return strconv.Itoa(g.Level)
			case "domain":
				return g.Domain
			}
			return g.Fallacy
		})
		unanimous := len(judges) > 0
		known := map[string]string{}
		for _, j := range judges {
			e, ok := byGen[g.GenID][j]
			if !ok || e.ParseError != 0 {
				unanimous = false
				continue
			}
			if e.Scores.Get("refusal") != 1 {
				unanimous = false
			}
			for _, f := range fields {
				v := strconv.Itoa(e.Scores.Get(f))
				it.Hidden["judge:"+j+":"+f] = v
				if prev, ok := known[f]; (ok && prev != v) || (v != "0" && v != "1") {
					unanimous = false
				}
				known[f] = v
			}
		}
		cands = append(cands, it)
		if unanimous {
			d := it
			d.Known = known
			decoys = append(decoys, d)
		}
	}
	return cands, decoys, judges, nil
}
