package missci_test

import (
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/study"
	"github.com/fallacylab/fallacylab/study/studytest"
	"github.com/fallacylab/fallacylab/textmetric"
)

// The paper's own human evaluation (the embedded human-eval.csv, 240 lines,
// one answer each) put through a missci-premise study gives Table 14's
// strata, Table 4's published GPT-4 (D) approximations (0.674, 0.481) and
// Table 13 as `missci human-eval` computes them from the sheet.
func TestPremiseStudyReproducesThePaper(t *testing.T) {
	f, err := missci.HumanEvalCSV()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	args, _ := missci.Load("test")
	gold := map[string][]string{}
	for _, a := range args {
		for _, l := range a.Lines {
			gold[l.ID] = l.Classes()
		}
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	qs, _ := study.Questions(missci.PremiseStudy.Kind, nil)
	s := study.Study{ID: 1, Kind: missci.PremiseStudy.Kind, Questions: qs, Facts: map[string]string{missci.FactPAt1("GPT 4/definition"): "0.317"}}
	var anns []study.Annotation
	for i, r := range rows[1:] {
		m, err := textmetric.Meteor(r[col["reference_premise"]], r[col["generated_premise"]])
		if err != nil {
			t.Fatal(err)
		}
		correct := "0"
		if slices.Contains(gold[r[col["fallacy_id"]]], r[col["predicted_fallacy"]]) {
			correct = "1"
		}
		it := study.Item{Key: fmt.Sprint(i), Text: r[col["generated_premise"]],
			Hidden: map[string]string{"source": r[col["model"]] + "/" + r[col["prompt"]], "correct": correct, "meteor": strconv.FormatFloat(m, 'g', -1, 64)}}
		s.Items = append(s.Items, it)
		a := study.Annotation{StudyID: 1, Annotator: "paper", Item: it.Key, Answers: map[string]string{}, At: time.Unix(1, 0)}
		for _, q := range qs {
			a.Answers[q.ID] = map[bool]string{true: "1", false: "0"}[strings.EqualFold(r[col[q.ID]], "true")]
		}
		anns = append(anns, a)
	}
	s.Overlap = len(s.Items)
	order := make([]string, len(s.Items))
	for i, it := range s.Items {
		order[i] = it.Key
	}
	s.Annotators = []study.Annotator{{Name: "paper", Order: order}}
	rep, err := study.Analyze(s, anns, study.AnalyzeOptions{Resamples: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	strata, err := missci.EmbeddedTable14()
	if err != nil {
		t.Fatal(err)
	}
	t14 := studytest.Table(t, rep, "table14")
	if len(t14.Rows) != 4*len(strata) {
		t.Fatalf("%d rows for %d strata", len(t14.Rows), len(strata))
	}
	for _, st := range strata {
		src := st.Model + "/" + st.Prompt
		for q := range 4 {
			var row []float64
			for _, r := range t14.Rows {
				if r[0].Text == src && r[1].Text == fmt.Sprintf("q%d", q+1) {
					row = []float64{r[2].Value, r[3].Value, r[5].Value}
				}
			}
			if row == nil {
				t.Fatalf("no row for %s q%d", src, q+1)
			}
			studytest.Near(t, src+" h correct", row[0], st.Correct[q])
			studytest.Near(t, src+" h incorrect", row[1], st.Incorrect[q])
			if src == "GPT 4/definition" {
				want := map[int]float64{1: 0.674, 2: 0.481}
				if w, ok := want[q]; ok && math.Round(row[2]*1000)/1000 != w {
					t.Errorf("Table 4 approximation q%d = %.4f, published %.3f", q+1, row[2], w)
				}
			}
		}
	}
	h, err := missci.EmbeddedHumanEval()
	if err != nil {
		t.Fatal(err)
	}
	r13 := studytest.Table(t, rep, "table13").Rows[0]
	if int(r13[1].Value) != h.NYes || int(r13[2].Value) != h.NNo || h.NYes != 68 {
		t.Fatalf("q4 yes/no %v/%v, sheet %d/%d", r13[1].Value, r13[2].Value, h.NYes, h.NNo)
	}
	studytest.Near(t, "mean METEOR on q4 yes", r13[3].Value, h.YesMean)
	studytest.Near(t, "mean METEOR on q4 no", r13[4].Value, h.NoMean)
	studytest.Near(t, "Pearson r", r13[5].Value, h.R)
	studytest.Near(t, "p", r13[6].Value, h.P)
}

// A premise study of a run: every line an item beside its claim, p0 and
// reference premise; the model hidden; each argument's p0 a decoy (known
// no), and a second gold premise of a line a decoy known yes.
func TestPremiseItems(t *testing.T) {
	args, _ := missci.Load("dev")
	rec := missci.Record{Split: "dev", Source: "openai:m gen_cls/p4-connect-D", Preds: missci.Predictions{}}
	lines := 0
	for i, a := range args {
		for _, l := range a.Lines {
			lines++
			if i%2 == 0 {
				rec.Preds[l.ID] = []missci.Prediction{{Premise: "the sample speaks for all", Class: l.Fallacies[0].Class}, {Premise: "x", Class: "Ambiguity"}}
			} else {
				rec.Preds[l.ID] = []missci.Prediction{{Class: missci.Other}} // a failed call, as a run stores it
			}
		}
	}
	cands, decoys, pAt1, err := missci.PremiseItems(args, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	alts := 0 // arguments with a line of two different gold premises
	for _, a := range args {
		for _, l := range a.Lines {
			if len(l.Fallacies) >= 2 && strings.TrimSpace(l.Fallacies[1].Premise) != strings.TrimSpace(l.Fallacies[0].Premise) {
				alts++
				break
			}
		}
	}
	if len(cands) != lines || len(decoys) != len(args)+alts || alts == 0 {
		t.Fatalf("%d items for %d lines, %d decoys for %d arguments and %d with a second gold premise", len(cands), lines, len(decoys), len(args), alts)
	}
	yes := 0
	for _, d := range decoys {
		if d.Known["q1"] == "1" && d.Known["q4"] == "1" {
			yes++
			if strings.Contains(d.Text, "(no premise generated)") || !strings.Contains(d.Context, "Reference fallacious premise: ") {
				t.Fatalf("a yes decoy %+v", d)
			}
		}
	}
	if yes != alts {
		t.Fatalf("%d decoys known yes, want %d", yes, alts)
	}
	correct := 0
	for _, c := range cands {
		if c.Hidden["correct"] == "1" {
			correct++
			if c.Stratum != "class correct" || !strings.Contains(c.Text, "the sample speaks for all") {
				t.Fatalf("%+v", c)
			}
		} else if !strings.Contains(c.Text, "(no premise generated)") {
			t.Fatalf("a line without a prediction: %q", c.Text)
		}
		if strings.Contains(c.Text+c.Context, "openai:m") || !strings.Contains(c.Context, "Reference fallacious premise: ") {
			t.Fatalf("item shows the model or lacks the reference: %+v", c)
		}
	}
	if math.Abs(pAt1-float64(correct)/float64(lines)) > 1e-12 || correct == 0 {
		t.Fatalf("P@1 %v, %d of %d correct", pAt1, correct, lines)
	}
	if decoys[0].Known["q1"] != "0" || !strings.Contains(decoys[0].Text, args[0].P0) {
		t.Fatalf("decoy %+v", decoys[0])
	}
	if _, _, _, err := missci.PremiseItems(args, rec, []string{"model"}); err == nil {
		t.Fatal("an unknown stratification key is accepted")
	}
}
