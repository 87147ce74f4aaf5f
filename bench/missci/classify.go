package missci

import (
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// ClassifyUnit is one classification prompt: an interchangeable fallacy
// (with the gold premise), a reasoning line (without premise), or a
// reasoning line with a generated premise (consistency).
type ClassifyUnit struct {
	ID      string // fallacy id or line id
	LineID  string
	Premise string
	Gold    string // gold class (classify-gold) or the generated class (consistency)
}

type unitMeta struct{ Unit ClassifyUnit }

// UnitOf returns the unit of a classification result.
func UnitOf(r engine.Result) (ClassifyUnit, bool) {
	m, ok := r.Job.Meta.(unitMeta)
	return m.Unit, ok
}

// GoldPremiseUnits lists every interchangeable fallacy (SPEC A.8).
func GoldPremiseUnits(args []Argument) []ClassifyUnit {
	var out []ClassifyUnit
	for _, a := range args {
		for _, l := range a.Lines {
			for _, f := range l.Fallacies {
				out = append(out, ClassifyUnit{ID: f.ID, LineID: l.ID, Premise: f.Premise, Gold: f.Class})
			}
		}
	}
	return out
}

// LineUnits lists every reasoning line (SPEC A.9).
func LineUnits(args []Argument) []ClassifyUnit {
	var out []ClassifyUnit
	for _, a := range args {
		for _, l := range a.Lines {
			out = append(out, ClassifyUnit{ID: l.ID, LineID: l.ID})
		}
	}
	return out
}

// ConsistencyUnits pairs each line with its single generated prediction (SPEC A.10).
func ConsistencyUnits(args []Argument, single map[string]Prediction) []ClassifyUnit {
	var out []ClassifyUnit
	for _, a := range args {
		for _, l := range a.Lines {
			p := single[l.ID]
			out = append(out, ClassifyUnit{ID: l.ID, LineID: l.ID, Premise: p.Premise, Gold: p.Class})
		}
	}
	return out
}

// ClassifyPlan fills a classification template for every unit.
func ClassifyPlan(args []Argument, units []ClassifyUnit, template string, spec llm.Spec, maxTokens int) (engine.Plan, error) {
	tpl, err := Template(template)
	if err != nil {
		return engine.Plan{}, err
	}
	lines := map[string]struct {
		a Argument
		l Line
	}{}
	for _, a := range args {
		for _, l := range a.Lines {
			lines[l.ID] = struct {
				a Argument
				l Line
			}{a, l}
		}
	}
	var jobs []engine.Job
	for _, u := range units {
		x, ok := lines[u.LineID]
		if !ok {
			return engine.Plan{}, fmt.Errorf("unit %s: unknown reasoning line %s", u.ID, u.LineID)
		}
		prompt, err := Fill(template, tpl, x.a.Claim, x.l.Context, x.a.P0, u.Premise)
		if err != nil {
			return engine.Plan{}, fmt.Errorf("%s: %w", u.ID, err)
		}
		req := llm.UserPrompt("", prompt)
		req.MaxTokens = maxTokens
		jobs = append(jobs, engine.Job{ID: u.ID, Namespace: Namespace + "/" + template, Spec: spec, Request: req, Meta: unitMeta{u}})
	}
	return engine.SlicePlan("missci "+template, jobs), nil
}

// Consistency is Matches@1 (SPEC A.10).
type Consistency struct {
	N, Matches int
	Excluded   []string // lines whose premise names the predicted class
	MatchesAt1 float64  // percent
}

// EvaluateConsistency compares the classification of each generated premise
// with the class generated with it. Items whose premise contains the
// classified class name (upstream's safety assert) are excluded and listed;
// strict aborts on them as upstream does.
func EvaluateConsistency(units []ClassifyUnit, classified map[string]string, strict bool) (Consistency, error) {
	var c Consistency
	for _, u := range units {
		f, ok := classified[u.ID]
		if !ok {
			return c, fmt.Errorf("no classification for %s", u.ID)
		}
		if strings.Contains(strings.ToLower(u.Premise), strings.ToLower(f)) {
			if strict {
				return c, fmt.Errorf("%s: the generated premise names its own class %q (upstream aborts here)", u.ID, f)
			}
			c.Excluded = append(c.Excluded, u.ID)
			continue
		}
		c.N++
		if f == u.Gold {
			c.Matches++
		}
	}
	if c.N > 0 {
		c.MatchesAt1 = 100 * float64(c.Matches) / float64(c.N)
	}
	return c, nil
}
