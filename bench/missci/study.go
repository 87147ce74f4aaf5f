package missci

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/study"
	"github.com/fallacylab/fallacylab/textmetric"
)

// premiseQuestions are Missci's q1…q4 (SPEC A.12, paper E.4). The paper's
// sheet (human-analysis/human-eval.csv) gives their names and True/False
// answers but the SPEC and the repository do not give their wording; these
// texts are our reading of the four criteria, checked against the sheet's
// own comments ("does not consider the context!" fails q2, "I think it
// would be Composition" fails q3, "means the same (Q4)" passes q4, and a
// premise that only restates the study fails q1). Answers are stored as
// 1 / 0 so that a sheet exports to the paper's True / False columns.
var premiseQuestions = []study.Question{
	study.YesNo("q1", "q1 — a fallacious premise: does it state a reasoning step that goes beyond what the study reports (not empty, not a restatement of the study or the claim)?"),
	study.YesNo("q2", "q2 — connects: together with the accurate premise, would it lead a reader from the study to the claim?"),
	study.YesNo("q3", "q3 — class: does the applied fallacy class describe this premise's reasoning?"),
	study.YesNo("q4", "q4 — matches: does it express the same fallacious reasoning as the reference premise?"),
}

// PremiseStudy is the study of a reconstruction run's premises: people
// answer q1…q4 of each line's top-1 generated premise (SPEC A.12, the
// paper's human evaluation).
var PremiseStudy = study.RegisterKind(study.KindSpec{
	Kind:      "missci-premise",
	Benchmark: Name,
	Summary: "a Missci run's top-1 generated premises: q1…q4, yes / no, read beside the claim, the accurate premise and the reference " +
		"premise; default stratum: whether the class is correct, as the paper sampled; decoys: each argument's accurate premise offered " +
		"as the generated one (q1 and q4 are no) and a second gold premise of a line offered against its first (q1 and q4 are yes)",
	Questions: premiseQuestions,
	Strata:    PremiseStrata,
	Items:     premiseStudyItems,
	Analyze:   analyzePremises,
})

// premiseStudyItems reads a reconstruction run's predictions and its split
// and draws a premise study's items, with the run's P@1 as a fact.
func premiseStudyItems(ctx context.Context, d study.Draw) (cands, decoys []study.Item, facts map[string]string, err error) {
	rec, err := LoadRecord(ctx, d.Records, d.Run.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	args, err := Load(rec.Split)
	if err != nil {
		return nil, nil, nil, err
	}
	cands, decoys, pAt1, err := PremiseItems(args, rec, d.Stratify)
	return cands, decoys, map[string]string{FactPAt1(rec.Source): strconv.FormatFloat(pAt1, 'g', -1, 64)}, err
}

// PremiseStrata are the keys a Missci premise study stratifies by
// ("correct": whether the top-1 class is a gold class of its line, the
// paper's two strata; "class": the applied class).
var PremiseStrata = []string{"correct", "class"}

// PremiseItems makes the candidates of a premise study of one Missci run —
// each reasoning line's top-1 generated premise and class, read beside the
// claim, the accurate premise p0 and the reference premise it is paired
// with (SPEC A.7), the model and template, whether the class is gold and
// the premise's METEOR hidden — and the decoy pool: each argument's
// accurate premise offered as the "generated" one, which restates the
// study (known: q1 no, q4 no). pAt1 is the run's P@1, for the Table 4
// approximation.
func PremiseItems(args []Argument, rec Record, stratify []string) (cands, decoys []study.Item, pAt1 float64, err error) {
	if len(stratify) == 0 {
		stratify = []string{"correct"}
	}
	if err := study.CheckKeys(stratify, PremiseStrata); err != nil {
		return nil, nil, 0, err
	}
	// A run of a subset (--limit, --sample-id) is studied on the arguments
	// it reconstructed, and its P@1 is theirs.
	args = Covered(args, rec.Preds).Args
	if len(args) == 0 {
		return nil, nil, 0, fmt.Errorf("the run reconstructed no whole argument: nothing to study")
	}
	// A line whose call failed or gave no premise is still put to the
	// annotators, as an empty premise (the paper's sheet has one).
	preds := Predictions{}
	for _, a := range args {
		for _, l := range a.Lines {
			if p := rec.Preds[l.ID]; len(p) > 0 {
				preds[l.ID] = p[:1]
			} else {
				preds[l.ID] = []Prediction{{}}
			}
		}
	}
	pairs, err := MatchPairs(args, preds, 1)
	if err != nil {
		return nil, nil, 0, err
	}
	byLine := map[string]Pair{}
	for _, p := range pairs {
		byLine[p.LineID] = p
	}
	correct := 0
	for _, a := range args {
		for _, l := range a.Lines {
			p := byLine[l.ID]
			m, err := textmetric.Meteor(p.Gold, p.Pred)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("METEOR of %s: %w", l.ID, err)
			}
			if p.Correct {
				correct++
			}
			it := study.Item{Key: l.ID, Context: premiseContext(a, p.Gold), Text: premiseText(p.Pred, p.PredClass),
				Hidden: map[string]string{"source": rec.Source, "correct": map[bool]string{true: "1", false: "0"}[p.Correct],
					"gold_class": p.GoldClass, "class": p.PredClass, "meteor": strconv.FormatFloat(m, 'g', -1, 64)}}
			it.Stratum = study.StratumOf(stratify, func(k string) string {
				if k == "class" {
					return p.PredClass
				}
				return map[bool]string{true: "class correct", false: "class wrong"}[p.Correct]
			})
			cands = append(cands, it)
		}
		if len(a.Lines) > 0 {
			l := a.Lines[0]
			decoys = append(decoys, study.Item{Key: "p0:" + a.ID, Context: premiseContext(a, l.Fallacies[0].Premise),
				Text: premiseText(a.P0, l.Fallacies[0].Class), Hidden: map[string]string{"source": rec.Source},
				Known: map[string]string{"q1": "0", "q4": "0"}})
		}
		// The other answer: a line's second interchangeable gold premise
		// offered against its first as the reference — a fallacious
		// premise in other words, the same reasoning (q1 and q4 are yes).
		for _, l := range a.Lines {
			if len(l.Fallacies) >= 2 && strings.TrimSpace(l.Fallacies[1].Premise) != strings.TrimSpace(l.Fallacies[0].Premise) {
				decoys = append(decoys, study.Item{Key: "alt:" + l.ID, Context: premiseContext(a, l.Fallacies[0].Premise),
					Text: premiseText(l.Fallacies[1].Premise, l.Fallacies[1].Class), Hidden: map[string]string{"source": rec.Source},
					Known: map[string]string{"q1": "1", "q4": "1"}})
				break
			}
		}
	}
	if n := len(pairs); n > 0 {
		pAt1 = float64(correct) / float64(n)
	}
	return cands, decoys, pAt1, nil
}

func premiseContext(a Argument, reference string) string {
	return "Claim: " + a.Claim + "\nAccurate premise (what the study reports): " + a.P0 + "\nReference fallacious premise: " + reference
}

func premiseText(premise, class string) string {
	if strings.TrimSpace(premise) == "" {
		premise = "(no premise generated)"
	}
	if class == "" {
		class = "(none)"
	}
	return "Generated fallacious premise: " + premise + "\nApplied fallacy class: " + class
}

// FactPAt1 is the Study.Facts key of a Missci run's P@1 for a source
// ("model template").
func FactPAt1(source string) string { return "p_at_1:" + source }

// analyzePremises is SPEC A.12 on the study's answers: per source and
// question, the human-majority share of "yes" among lines whose class is
// correct and the others (Table 14's strata), the Table 4 approximation
// s = P@1·h_correct + (1 − P@1)·h_incorrect with the run's P@1, and
// Table 13: METEOR's mean on q4 = yes and no and its Pearson r with q4.
func analyzePremises(rep *report.Report, s study.Study, anns []study.Annotation, o study.AnalyzeOptions) error {
	sec := rep.AddSection("Premise quality (Tables 13, 14 and 4)",
		"Each line's answer to a question is its annotators' majority (ties left out). h correct and h incorrect are the shares of yes among lines whose top-1 class is gold and the others; the approximation is P@1·h_correct + (1 − P@1)·h_incorrect with the run's own P@1 (SPEC A.12).")
	type tally struct{ yes, n int }
	type key struct {
		source  string
		q       int
		correct bool
	}
	t := map[key]*tally{}
	get := func(k key) *tally {
		if t[k] == nil {
			t[k] = &tally{}
		}
		return t[k]
	}
	// Each line's answer to a question is its annotators' majority.
	maj := map[string]map[string]string{}
	for _, q := range s.Questions {
		maj[q.ID] = study.Majorities(s, anns, q.ID)
	}
	var sources []string
	var meteor, q4 []float64
	for _, it := range s.Items {
		if it.Decoy {
			continue
		}
		src := it.Hidden["source"]
		if !slices.Contains(sources, src) {
			sources = append(sources, src)
		}
		for qi, q := range s.Questions {
			v, ok := maj[q.ID][it.Key]
			if !ok {
				continue
			}
			x := get(key{src, qi, it.Hidden["correct"] == "1"})
			x.n++
			if v == "1" {
				x.yes++
			}
			if q.ID == "q4" {
				m, err := strconv.ParseFloat(it.Hidden["meteor"], 64)
				if err != nil {
					return fmt.Errorf("item %s: METEOR %q: %w", it.Key, it.Hidden["meteor"], err)
				}
				meteor = append(meteor, m)
				q4 = append(q4, map[bool]float64{true: 1}[v == "1"])
			}
		}
	}
	sort.Strings(sources)
	t14 := sec.Add(&report.Table{ID: "table14", Title: "Human judgements by stratum (Table 14) and the Table 4 approximation",
		Columns: report.Cols("source", "question", "h correct", "h incorrect", "P@1", "approximation")})
	for _, src := range sources {
		p, hasP := 0.0, false
		if v, ok := s.Facts[FactPAt1(src)]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				p, hasP = f, true
			}
		}
		for qi, q := range s.Questions {
			c, i := get(key{src, qi, true}), get(key{src, qi, false})
			row := []report.Cell{report.T(src), report.T(q.ID), o.Prop(c.yes, c.n), o.Prop(i.yes, i.n)}
			switch {
			case !hasP:
				row = append(row, report.NA("not recorded"), report.NA(""))
			case c.n == 0 || i.n == 0:
				row = append(row, report.F(p, 3), report.NA("a stratum has no answered line"))
			default:
				hc, hi := float64(c.yes)/float64(c.n), float64(i.yes)/float64(i.n)
				row = append(row, report.F(p, 3), report.F(p*hc+(1-p)*hi, 3))
			}
			t14.Rows = append(t14.Rows, row)
		}
	}
	t13 := sec.Add(&report.Table{ID: "table13", Title: "METEOR against the human q4 (Table 13)", Columns: report.Cols("metric", "q4 = yes (n)", "q4 = no (n)", "mean yes", "mean no", "r", "p")})
	var ys, ns []float64
	for i, m := range meteor {
		if q4[i] == 1 {
			ys = append(ys, m)
		} else {
			ns = append(ns, m)
		}
	}
	row := []report.Cell{report.T("METEOR"), report.I(len(ys)), report.I(len(ns)), meanCell(ys), meanCell(ns)}
	if c, err := stats.Pearson(meteor, q4); err == nil && len(ys) > 0 && len(ns) > 0 {
		row = append(row, report.F(c.R, 4), report.PV(c.P))
	} else {
		row = append(row, report.NA("needs lines judged yes and no"), report.NA(""))
	}
	t13.Rows = append(t13.Rows, row)
	return nil
}

func meanCell(x []float64) report.Cell {
	m, err := stats.Mean(x)
	if err != nil {
		return report.NA("no lines")
	}
	return report.F(m, 4)
}
