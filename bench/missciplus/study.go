package missciplus

import (
	"context"
	"fmt"
	"strings"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/study"
)

// PremiseStudy puts a subtask 3 run's reconstructed premises to people,
// each beside the passages its prompt gave and the argument's reference
// premises: is it grounded in the passages, and does it express the same
// fallacious reasoning as a reference premise? The second question checks
// the premise judge that aligned the run (a zero-shot stand-in for
// upstream's fine-tuned one): the report gives its precision and recall
// against the people's majority.
var PremiseStudy = study.RegisterKind(study.KindSpec{
	Kind:      "missciplus-premise",
	Benchmark: Name,
	Summary: "a MissciPlus subtask 3 run's reconstructed premises, read beside their passages and the reference premises: grounded? " +
		"the same reasoning as a reference? (yes / no); default stratum: whether the premise judge aligned it; decoys: a reference premise " +
		"beside its own passage (yes, yes) and another argument's beside this one's (no, no)",
	Questions: []study.Question{
		study.YesNo("grounded", "Grounded: does the premise rest on what the passages say (not on something they do not say)?"),
		study.YesNo("matches", "Matches: does it express the same fallacious reasoning as one of the reference premises?"),
	},
	Strata:   []string{"aligned", "class"},
	Items:    premiseItems,
	Analyze:  analyzeJudge,
	Report:   correctAlignment,
	Corrects: correctAlignment,
	Judged:   isSubtask3,
})

// premiseItems are a subtask 3 run's counted predictions and the decoys.
func premiseItems(ctx context.Context, d study.Draw) (cands, decoys []study.Item, facts map[string]string, err error) {
	setup, _, err := LoadRun(ctx, d.Records, d.Run.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	if setup.Subtask != 3 {
		return nil, nil, nil, fmt.Errorf("run %d is a subtask %d run: a premise study needs a subtask 3 run", d.Run.ID, setup.Subtask)
	}
	if err := study.CheckKeys(d.Stratify, []string{"aligned", "class"}); err != nil {
		return nil, nil, nil, err
	}
	args, err := Load(setup.Split)
	if err != nil {
		return nil, nil, nil, err
	}
	byID := map[string]Argument{}
	for _, a := range args {
		byID[a.ID] = a
	}
	preds, err := LoadReconstructions(ctx, d.Records, d.Run.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	stratify := d.Stratify
	if len(stratify) == 0 {
		stratify = []string{"aligned"}
	}
	var order []Argument
	for _, p := range preds {
		a := byID[p.Argument]
		order = append(order, a)
		aligned := map[string]bool{}
		for _, ids := range p.Alignment {
			for _, id := range ids {
				aligned[id] = true
			}
		}
		for _, pr := range p.Prompts {
			for _, f := range pr.Fallacies {
				if !f.counted() {
					continue
				}
				it := study.Item{Key: p.Argument + "/" + f.PredictionID, Context: a.Claim(),
					Text: premiseText(a, pr.From, f.Premise, f.class()),
					Hidden: map[string]string{"argument": p.Argument, "class": f.class(), "aligned": map[bool]string{true: "1", false: "0"}[aligned[f.PredictionID]],
						"from": strings.Join(pr.From, " ")}}
				it.Stratum = study.StratumOf(stratify, func(k string) string { return it.Hidden[k] })
				cands = append(cands, it)
			}
		}
	}
	// Decoys: each argument's first reference premise beside its own
	// passage (yes, yes), and the next argument's beside this one's (no,
	// no) — both in the run's register of passages and premises.
	for i, a := range order {
		f := a.Argument.Fallacies[0]
		g := f.Interchangeable[0]
		from := []string{"accurate_premise"}
		if len(f.Mapping) > 0 {
			from = []string{f.Mapping[0].Passage}
		} else if ids := a.P0Passages(); len(ids) > 0 {
			from = []string{ids[0]}
		}
		decoys = append(decoys, study.Item{Key: a.ID + "/gold", Context: a.Claim(), Text: premiseText(a, from, g.Premise, g.Class),
			Known: map[string]string{"grounded": "1", "matches": "1"}, Hidden: map[string]string{"argument": a.ID, "decoy": "reference premise"}})
		o := order[(i+1)%len(order)]
		if o.ID == a.ID {
			continue
		}
		og := o.Argument.Fallacies[0].Interchangeable[0]
		decoys = append(decoys, study.Item{Key: a.ID + "/other", Context: a.Claim(), Text: premiseText(a, from, og.Premise, og.Class),
			Known: map[string]string{"grounded": "0", "matches": "0"}, Hidden: map[string]string{"argument": a.ID, "decoy": "another argument's premise"}})
	}
	return cands, decoys, nil, nil
}

// premiseText is what an item shows: the passages, the premise and its
// class, the reference premises.
func premiseText(a Argument, from []string, premise, class string) string {
	var b strings.Builder
	for _, id := range from {
		if id == "accurate_premise" {
			fmt.Fprintf(&b, "Accurate premise: %s\n\n", a.P0())
			continue
		}
		p, _ := a.Study.All.Get(id)
		fmt.Fprintf(&b, "Passage (%s): %s\n\n", p.Section, p.Text(false))
	}
	fmt.Fprintf(&b, "Premise: %s (%s)\n\nReference premises:\n", premise, class)
	n := 0
	for _, f := range a.Argument.Fallacies {
		for _, g := range f.Interchangeable {
			n++
			fmt.Fprintf(&b, "%d. %s (%s)\n", n, g.Premise, g.Class)
		}
	}
	return strings.TrimSpace(b.String())
}

// analyzeJudge adds the premise judge's validity: its alignment against
// the people's majority on "matches".
func analyzeJudge(rep *report.Report, s study.Study, anns []study.Annotation, o study.AnalyzeOptions) error {
	maj := study.Majorities(s, anns, "matches")
	var tp, fp, fn, tn int
	var human, judge []string
	for _, it := range s.Items {
		h, ok := maj[it.Key]
		if it.Decoy || !ok {
			continue
		}
		j := it.Hidden["aligned"]
		human, judge = append(human, h), append(judge, j)
		switch {
		case j == "1" && h == "1":
			tp++
		case j == "1":
			fp++
		case h == "1":
			fn++
		default:
			tn++
		}
	}
	sec := rep.AddSection("Premise judge", "The run's premise judge aligned a reconstructed premise to a reference one when it judged them the same reasoning; here the people's majority on \"matches\" is the truth. Precision: of the premises the judge aligned, the share people say match; recall: of those people say match, the share the judge aligned (Wilson intervals).")
	t := sec.Add(&report.Table{ID: "premise_judge", Title: "The premise judge against people", Columns: report.Cols("items with a majority", "precision", "recall", "agreement", "Cohen's κ")})
	k := report.NA("no item with a majority")
	if len(human) > 0 {
		if kk, err := stats.CohenKappa(human, judge); err == nil {
			k = report.NA(kk.Reason)
			if kk.Reason == "" {
				k = report.F(kk.Kappa, 3)
			}
		}
	}
	t.Rows = append(t.Rows, []report.Cell{report.I(len(human)), o.Ratio(tp, tp+fp), o.Ratio(tp, tp+fn), o.Ratio(tp+tn, len(human)), k})
	return nil
}
