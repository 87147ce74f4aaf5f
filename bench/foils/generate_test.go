package foils

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

func sourceItems(perType int) []Item {
	var items []Item
	for _, t := range Types {
		for i := range perType {
			items = append(items, Item{ID: fmt.Sprintf("%s-%02d", t, i), Text: fmt.Sprintf("%s source %d", t, i), Gold: t})
		}
	}
	items = append(items, Item{ID: "n", Gold: None}, Item{ID: "o", Gold: OutOfSpace})
	return items
}

func TestAssignTargetsBalancedAndSeeded(t *testing.T) {
	as := AssignTargets(sourceItems(15), 7)
	if len(as) != 15*len(Types) {
		t.Fatalf("%d assignments: none and out-of-space items must be skipped", len(as))
	}
	count := map[string]map[string]int{}
	ids := map[string]map[int]bool{}
	for _, a := range as {
		if a.Target == a.Item.Gold || a.Target == "" {
			t.Fatalf("τ′ = %q for τ = %q", a.Target, a.Item.Gold)
		}
		if count[a.Item.Gold] == nil {
			count[a.Item.Gold], ids[a.Item.Gold] = map[string]int{}, map[int]bool{}
		}
		count[a.Item.Gold][a.Target]++
		ids[a.Item.Gold][a.ID] = true
	}
	for typ, c := range count {
		lo, hi := 1<<30, 0
		for _, o := range Types {
			if o == typ {
				continue
			}
			lo, hi = min(lo, c[o]), max(hi, c[o])
		}
		// 15 items over 7 other types: every τ′ gets 2 or 3.
		if lo != 2 || hi != 3 {
			t.Fatalf("%s: targets unbalanced %v", typ, c)
		}
		for i := 1; i <= 15; i++ {
			if !ids[typ][i] {
				t.Fatalf("%s: ids are not 1..15: %v", typ, ids[typ])
			}
		}
	}
	again := AssignTargets(sourceItems(15), 7)
	other := AssignTargets(sourceItems(15), 8)
	same, diff := true, false
	for i := range as {
		same = same && as[i] == again[i]
		diff = diff || as[i].Item.ID != other[i].Item.ID || as[i].Target != other[i].Target
	}
	if !same || !diff {
		t.Fatalf("seeding: same seed reproduces %v, another seed differs %v", same, diff)
	}
}

func TestJudgePlanAsksPairwiseCriteriaInBothOrders(t *testing.T) {
	a := AssignTargets(sourceItems(1), 1)[0]
	cands := []Candidate{{Cond: Matched, A: a, Text: "GENERATED"}, {Cond: WrongScheme, A: a, Text: "SWITCHED"}, {Cond: Matched, A: a, Failed: "boom"}}
	var jobs []engine.Job
	for j := range JudgePlan(cands, llm.Spec{Provider: "p", Model: "judge"}).Jobs {
		jobs = append(jobs, j)
	}
	// Matched: 2 pairwise × 2 orders + 2 single; wrong-scheme: 2 × 2 + 1; the failed candidate: none.
	if len(jobs) != 6+5 {
		t.Fatalf("%d judge jobs", len(jobs))
	}
	var first, second string
	for _, j := range jobs {
		q := j.Request.Messages[0].Content
		switch j.ID {
		case fmt.Sprintf("matched/%s#1/scheme_fidelity/0", a.Item.Gold):
			first = q
		case fmt.Sprintf("matched/%s#1/scheme_fidelity/1", a.Item.Gold):
			second = q
		}
		if j.Request.Temperature == nil || *j.Request.Temperature != 0 {
			t.Fatal("judge calls must be at temperature 0")
		}
	}
	src := a.Item.Text
	if !strings.Contains(first, "Argument A: "+src+"\n\nArgument B: GENERATED") || !strings.Contains(second, "Argument A: GENERATED\n\nArgument B: "+src) {
		t.Fatalf("orders not swapped:\n%s\n---\n%s", first, second)
	}
}

func TestFilterBothOrdersAndDropRules(t *testing.T) {
	a := AssignTargets(sourceItems(1), 1)[0]
	key := func(cond string) string { return fmt.Sprintf("%s/%s#%d", cond, a.Item.Gold, a.ID) }
	allPass := func(cond string) map[string]map[int]bool {
		m := map[string]map[int]bool{}
		for _, c := range Criteria[cond] {
			m[c.Name] = map[int]bool{0: true, 1: true}
		}
		return m
	}
	cases := []struct {
		name         string
		cond         string
		change       func(map[string]map[int]bool)
		failed       string
		kept         bool
		drop, review string
	}{
		{"all pass", Matched, nil, "", true, "", ""},
		{"scheme fidelity fails in the second order only", Matched, func(m map[string]map[int]bool) { m["scheme_fidelity"][1] = false }, "", false, "scheme_fidelity", ""},
		{"conclusion flip in the first order", Matched, func(m map[string]map[int]bool) { m["conclusion_preservation"][0] = false }, "", false, "conclusion_preservation", ""},
		{"register fails: kept for review", Matched, func(m map[string]map[int]bool) { m["register"][0] = false }, "", true, "", "register"},
		{"critical question fails: kept for review", Matched, func(m map[string]map[int]bool) { m["critical_question"][0] = false }, "", true, "", "critical_question"},
		{"missing verdict is a fail", Matched, func(m map[string]map[int]bool) { delete(m, "scheme_fidelity") }, "", false, "scheme_fidelity", ""},
		{"scheme switch fails in one order", WrongScheme, func(m map[string]map[int]bool) { m["scheme_switch"][0] = false }, "", false, "scheme_switch", ""},
		{"off topic in one order: review, not drop", WrongScheme, func(m map[string]map[int]bool) { m["on_topic"][1] = false }, "", true, "", "on_topic"},
		{"generation failed", Matched, nil, "timeout", false, "generation failed", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := allPass(c.cond)
			if c.change != nil {
				c.change(m)
			}
			v := Verdicts{key(c.cond): m}
			g := Filter([]Candidate{{Cond: c.cond, A: a, Text: "A valid argument about the same topic.", Failed: c.failed}}, v)[0]
			if g.Kept != c.kept || strings.Join(g.DropReasons, ",") != c.drop || strings.Join(g.NeedsReview, ",") != c.review {
				t.Fatalf("kept %v drop %v review %v", g.Kept, g.DropReasons, g.NeedsReview)
			}
		})
	}
}

func TestVerdictsAddParsesJudgeAnswers(t *testing.T) {
	a := AssignTargets(sourceItems(1), 1)[0]
	jobs := map[string]engine.Job{}
	for j := range JudgePlan([]Candidate{{Cond: WrongScheme, A: a, Text: "x"}}, llm.Spec{Provider: "p", Model: "j"}).Jobs {
		jobs[j.ID] = j
	}
	id := fmt.Sprintf("wrong_scheme/%s#1", a.Item.Gold)
	v := Verdicts{}
	v.Add(engine.Result{Job: jobs[id+"/scheme_switch/0"], Response: &llm.Response{Text: "Yes."}})
	v.Add(engine.Result{Job: jobs[id+"/scheme_switch/1"], Response: &llm.Response{Text: "yes, it does"}})
	v.Add(engine.Result{Job: jobs[id+"/on_topic/0"], Response: &llm.Response{Text: "No"}})
	v.Add(engine.Result{Job: jobs[id+"/on_topic/1"], Response: &llm.Response{Text: "Maybe"}})
	v.Add(engine.Result{Job: jobs[id+"/register/0"], Err: errors.New("refused")})
	got := v[id]
	if !got["scheme_switch"][0] || !got["scheme_switch"][1] || got["on_topic"][0] || got["on_topic"][1] || got["register"][0] {
		t.Fatalf("verdicts %v", got)
	}
}

func TestDropCountsAndCSV(t *testing.T) {
	a := AssignTargets(sourceItems(1), 1)[0]
	gs := []Generated{
		{Candidate: Candidate{Cond: Matched, A: a, Text: "kept"}, Kept: true, NeedsReview: []string{"register"}},
		{Candidate: Candidate{Cond: Matched, A: a, Text: "dropped"}, DropReasons: []string{"scheme_fidelity"}, NeedsReview: []string{"register"}},
		{Candidate: Candidate{Cond: WrongScheme, A: a, Text: "ws"}, Kept: true},
	}
	dc := DropCounts(gs)
	m := dc[Matched]
	if m["candidates"] != 2 || m["kept"] != 1 || m["dropped: scheme_fidelity"] != 1 || m["needs_review: register"] != 1 || dc[WrongScheme]["kept"] != 1 {
		t.Fatalf("drop counts %v", dc)
	}
	rows := CSVRows(gs, Matched)
	if len(rows) != 2 || rows[0][0] != "fallacy_type" || rows[1][2] != "kept" || rows[1][3] != "no" || rows[1][4] != "needs_review" {
		t.Fatalf("matched CSV %v", rows)
	}
	rows = CSVRows(gs, WrongScheme)
	if len(rows) != 2 || rows[0][1] != "target_type" || rows[1][1] != a.Target || rows[1][5] != "pass" {
		t.Fatalf("wrong-scheme CSV %v", rows)
	}
}
