package missci

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/store"
)

var _ bench.Compares = Task{}

// Arms implements bench.Compares: for reconstruction runs, the run's
// model and template, P@1 line by line (the first prediction's class is
// one of the line's gold classes; an argument's lines move together, the
// argument is the cluster) and Arg@1 argument by argument (one of its
// lines right at rank 1); for classification runs, classifyArm. Runs of
// two tasks do not compare (their Design).
func (Task) Arms(ctx context.Context, env bench.Env, run store.Run) ([]bench.Arm, error) {
	c, isClassify, err := LoadClassification(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	if isClassify {
		return classifyArm(c)
	}
	rec, err := LoadRecord(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	args, err := Load(rec.Split)
	if err != nil {
		return nil, err
	}
	p1 := compare.Metric{Name: "P@1", Binary: true, Unit: "argument"}
	arg1 := compare.Metric{Name: "Arg@1", Binary: true, Unit: "argument"}
	calls, answers := map[string][]string{}, map[string]string{}
	for _, a := range args {
		hit, seen := 0.0, false
		for _, l := range a.Lines {
			list, ok := rec.Preds[l.ID]
			if !ok {
				continue // not in this run (a selection)
			}
			seen = true
			v := 0.0
			if len(list) > 0 {
				answers[l.ID] = list[0].Class
				if contains(l.Classes(), list[0].Class) {
					v, hit = 1, 1
				}
			}
			p1.Items = append(p1.Items, compare.Item{ID: l.ID, Cluster: a.ID, Value: v})
			if k := rec.CallKeys[l.ID]; k != "" {
				calls[l.ID] = []string{k}
				calls[a.ID] = append(calls[a.ID], k)
			}
		}
		if seen {
			arg1.Items = append(arg1.Items, compare.Item{ID: a.ID, Cluster: a.ID, Value: hit})
		}
	}
	// Pool: the split's arguments, which a --limit run took some of.
	return []bench.Arm{{Model: rec.Source, Metrics: []compare.Metric{p1, arg1}, Calls: calls, Answers: answers, Design: "reconstruction", Pool: len(args)}}, nil
}

// classifyArm is a classification run's arm: each unit right or not, as
// its report counts it — classify-gold: the class named is the unit's gold
// one; classify-only: one of its line's gold classes; consistency: the
// class its own premise was made for (a premise that names its class is
// left out, as the report leaves it out). The unit's argument is its
// cluster.
func classifyArm(c ClassifyRecord) ([]bench.Arm, error) {
	args, err := Load(c.Split)
	if err != nil {
		return nil, err
	}
	argOf, lineOf := map[string]string{}, map[string]Line{}
	for _, a := range args {
		for _, l := range a.Lines {
			argOf[l.ID], lineOf[l.ID] = a.ID, l
		}
	}
	name := map[string]string{"consistency": "consistent"}[c.Task]
	m := compare.Metric{Name: cmp.Or(name, "accuracy"), Binary: true, Unit: "argument"}
	calls, answers := map[string][]string{}, map[string]string{}
	for _, u := range c.Units {
		line := cmp.Or(u.LineID, u.ID)
		arg, ok := argOf[line]
		if !ok {
			return nil, fmt.Errorf("unit %s: line %s is not in the %s split", u.ID, line, c.Split)
		}
		var right bool
		switch c.Task {
		case "classify-only":
			right = contains(lineOf[line].Classes(), u.Pred)
		case "consistency":
			if strings.Contains(strings.ToLower(u.Premise), strings.ToLower(u.Pred)) {
				continue
			}
			right = u.Pred == u.Gold
		default:
			right = u.Pred == u.Gold
		}
		v := 0.0
		if right {
			v = 1
		}
		m.Items = append(m.Items, compare.Item{ID: u.ID, Cluster: arg, Value: v})
		answers[u.ID] = u.Pred
		if u.CallKey != "" {
			calls[u.ID] = []string{u.CallKey}
		}
	}
	return []bench.Arm{{Model: c.Source, Metrics: []compare.Metric{m}, Calls: calls, Answers: answers, Design: c.Task, Pool: len(args)}}, nil
}
