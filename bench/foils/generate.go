package foils

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/fallacylab/fallacylab/detect"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/textmetric"
)

// Namespaces of generation calls.
const (
	NSGenerate = "foils/generate"
	NSJudge    = "foils/judge"
)

// Assignment is one source item with its wrong-scheme target τ′.
type Assignment struct {
	Item   Item
	ID     int    // per-type index, 1-based, as in the released files
	Target string // τ′
}

// AssignTargets gives every fallacious source item a τ′ ≠ τ, balanced over
// the other seven types under a fixed seed (SPEC C.9 [ASSUMPTION]): for each
// type, shuffle its items with the seed, then assign τ′ round-robin over the
// other types in the fixed order of Types.
func AssignTargets(items []Item, seed uint64) []Assignment {
	byType := map[string][]Item{}
	for _, it := range items {
		if it.Gold != None && it.Gold != OutOfSpace {
			byType[it.Gold] = append(byType[it.Gold], it)
		}
	}
	var out []Assignment
	for ti, t := range Types {
		list := byType[t]
		sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
		rng := rand.New(rand.NewPCG(seed, uint64(ti)))
		rng.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
		var others []string
		for _, o := range Types {
			if o != t {
				others = append(others, o)
			}
		}
		for i, it := range list {
			out = append(out, Assignment{Item: it, ID: i + 1, Target: others[i%len(others)]})
		}
	}
	return out
}

func matchedPrompt(a Assignment) string {
	s := Schemes[a.Item.Gold]
	return fmt.Sprintf(`The argument below commits the fallacy "%s". It uses the argumentation scheme "%s", whose critical question is: %s

Write one new argument that keeps the same topic, the same conclusion, the same scheme and the same register (length, tone, informality), but is valid: it must answer the critical question convincingly, so that it no longer commits the fallacy. Do not mention fallacies, schemes or critical questions. Output only the argument.

Argument: %s`, a.Item.Gold, s.Name, s.Question, a.Item.Text)
}

func wrongPrompt(a Assignment) string {
	s := Schemes[a.Target]
	return fmt.Sprintf(`Write one new argument on the same topic and for the same conclusion as the argument below, in the same register (length, tone, informality), but built on a different argumentation scheme: "%s" (the scheme behind "%s"), used validly — it must answer its critical question: %s
Do not reuse the original argument's reasoning. Do not mention fallacies or schemes. Output only the argument.

Argument: %s`, s.Name, a.Target, s.Question, a.Item.Text)
}

// GenerationPlan asks the generator for one matched and one wrong-scheme
// argument per source item.
func GenerationPlan(as []Assignment, gen llm.Spec, temperature *float64) engine.Plan {
	var jobs []engine.Job
	for _, a := range as {
		for _, c := range []struct {
			cond, prompt string
		}{{Matched, matchedPrompt(a)}, {WrongScheme, wrongPrompt(a)}} {
			req := llm.UserPrompt("", c.prompt)
			req.Temperature, req.MaxTokens = temperature, 400
			jobs = append(jobs, engine.Job{ID: fmt.Sprintf("%s/%s#%d", c.cond, a.Item.Gold, a.ID), Namespace: NSGenerate, Spec: gen, Request: req,
				Meta: genKey{c.cond, a.Item.Gold, a.ID}})
		}
	}
	return engine.SlicePlan("foils generate", jobs)
}

type genKey struct {
	Cond, Type string
	ID         int
}

// GenKeyOf returns the (condition, type, id) of a generation result.
func GenKeyOf(r engine.Result) (cond, typ string, id int, ok bool) {
	k, ok := r.Job.Meta.(genKey)
	return k.Cond, k.Type, k.ID, ok
}

// Criterion is one judge question.
type Criterion struct {
	Name     string
	Pairwise bool // asked in both orders
	Drop     bool // failing it drops the item (otherwise: needs_review)
}

// Criteria per condition (SPEC C.9).
var Criteria = map[string][]Criterion{
	Matched:     {{"scheme_fidelity", true, true}, {"conclusion_preservation", true, true}, {"critical_question", false, false}, {"register", false, false}},
	WrongScheme: {{"scheme_switch", true, true}, {"on_topic", true, false}, {"register", false, false}},
}

// Candidate is a generated item awaiting the judge.
type Candidate struct {
	Cond   string
	A      Assignment
	Text   string
	Failed string // generation error, if any
	// Key is the generation call's cache key ("" : none answered).
	Key string
}

func judgeQuestion(c Candidate, crit string, first, second string) string {
	schemeOf := func(t string) string { return Schemes[t].Name }
	switch crit {
	case "scheme_fidelity":
		return fmt.Sprintf("Argument A: %s\n\nArgument B: %s\n\nDo A and B use the same argumentation scheme (%s)? Answer yes or no.", first, second, schemeOf(c.A.Item.Gold))
	case "conclusion_preservation":
		return fmt.Sprintf("Argument A: %s\n\nArgument B: %s\n\nDo A and B argue for the same conclusion? Answer yes or no.", first, second)
	case "scheme_switch":
		return fmt.Sprintf("Argument A: %s\n\nArgument B: %s\n\nDoes the generated argument rely on the scheme \"%s\" rather than on \"%s\"? Answer yes or no.", first, second, schemeOf(c.A.Target), schemeOf(c.A.Item.Gold))
	case "on_topic":
		return fmt.Sprintf("Argument A: %s\n\nArgument B: %s\n\nAre A and B about the same topic? Answer yes or no.", first, second)
	case "critical_question":
		return fmt.Sprintf("Argument: %s\n\nDoes the argument answer this critical question convincingly: %s Answer yes or no.", c.Text, Schemes[c.A.Item.Gold].Question)
	case "register":
		return fmt.Sprintf("Argument: %s\n\nCould this argument plausibly be an online comment written by an ordinary person (informal register, no essay style)? Answer yes or no.", c.Text)
	}
	return ""
}

type judgeKey struct {
	Cond, Type string
	ID         int
	Crit       string
	Order      int
}

// JudgePlan asks the judge every criterion; pairwise criteria are asked in
// both orders with the roles relabelled.
func JudgePlan(cands []Candidate, judge llm.Spec) engine.Plan {
	var jobs []engine.Job
	for _, c := range cands {
		if c.Failed != "" {
			continue
		}
		for _, cr := range Criteria[c.Cond] {
			orders := [][2]string{{c.A.Item.Text, c.Text}}
			if cr.Pairwise {
				orders = append(orders, [2]string{c.Text, c.A.Item.Text})
			}
			for o, pair := range orders {
				req := llm.UserPrompt("You are a careful judge of arguments. Answer with one word: yes or no.", judgeQuestion(c, cr.Name, pair[0], pair[1]))
				req.Temperature, req.MaxTokens = llm.Temp(0), 8
				jobs = append(jobs, engine.Job{ID: fmt.Sprintf("%s/%s#%d/%s/%d", c.Cond, c.A.Item.Gold, c.A.ID, cr.Name, o), Namespace: NSJudge,
					Spec: judge, Request: req, Meta: judgeKey{c.Cond, c.A.Item.Gold, c.A.ID, cr.Name, o}})
			}
		}
	}
	return engine.SlicePlan("foils judge", jobs)
}

// Verdicts collects judge answers: key → criterion → order → passed.
type Verdicts map[string]map[string]map[int]bool

// Add records one judge result; an unparsable or failed answer is a fail.
func (v Verdicts) Add(r engine.Result) {
	k, ok := r.Job.Meta.(judgeKey)
	if !ok {
		return
	}
	pass := false
	if r.Err == nil {
		l, ok := detect.ParseBinary(r.Response.Text)
		pass = ok && l == detect.Flagged
	}
	id := fmt.Sprintf("%s/%s#%d", k.Cond, k.Type, k.ID)
	if v[id] == nil {
		v[id] = map[string]map[int]bool{}
	}
	if v[id][k.Crit] == nil {
		v[id][k.Crit] = map[int]bool{}
	}
	v[id][k.Crit][k.Order] = pass
}

// Generated is a candidate after the judge, with its diagnostics.
type Generated struct {
	Candidate
	Kept        bool
	DropReasons []string
	NeedsReview []string
	Flesch      float64
	Words       int
	Overlap     float64 // Jaccard overlap of word sets with the source
}

// Filter applies the judge (SPEC C.9): a pairwise criterion passes only if
// both orders pass; a failed drop criterion drops the item; other failures
// mark it needs_review. Diagnostics are recorded, never used to drop.
func Filter(cands []Candidate, v Verdicts) []Generated {
	var out []Generated
	for _, c := range cands {
		g := Generated{Candidate: c}
		id := fmt.Sprintf("%s/%s#%d", c.Cond, c.A.Item.Gold, c.A.ID)
		if c.Failed != "" {
			g.DropReasons = append(g.DropReasons, "generation failed")
		} else {
			for _, cr := range Criteria[c.Cond] {
				ans := v[id][cr.Name]
				pass := ans[0] && (!cr.Pairwise || ans[1])
				if !pass && cr.Drop {
					g.DropReasons = append(g.DropReasons, cr.Name)
				} else if !pass {
					g.NeedsReview = append(g.NeedsReview, cr.Name)
				}
			}
		}
		g.Kept = len(g.DropReasons) == 0
		g.Flesch = textmetric.FleschReadingEase(c.Text)
		g.Words = len(strings.Fields(c.Text))
		g.Overlap = textmetric.Jaccard(detect.Tokens(c.Text), detect.Tokens(c.A.Item.Text))
		out = append(out, g)
	}
	return out
}

// CSVRows returns the kept items of one condition in the released CSV
// format (header first), with the diagnostics as extra columns.
func CSVRows(gs []Generated, cond string) [][]string {
	var rows [][]string
	if cond == Matched {
		rows = append(rows, []string{"fallacy_type", "id", "generated", "judge_register", "judge_overall", "source_text", "flesch", "words", "overlap"})
	} else {
		rows = append(rows, []string{"source_fallacy", "target_type", "id", "generated", "judge_scheme_switch", "judge_overall", "source_text", "flesch", "words", "overlap"})
	}
	for _, g := range gs {
		if g.Cond != cond || !g.Kept {
			continue
		}
		overall := "pass"
		if len(g.NeedsReview) > 0 {
			overall = "needs_review"
		}
		register := "yes"
		for _, n := range g.NeedsReview {
			if n == "register" {
				register = "no"
			}
		}
		diag := []string{g.A.Item.Text, fmt.Sprintf("%.1f", g.Flesch), fmt.Sprint(g.Words), fmt.Sprintf("%.3f", g.Overlap)}
		if cond == Matched {
			rows = append(rows, append([]string{g.A.Item.Gold, fmt.Sprint(g.A.ID), g.Text, register, overall}, diag...))
		} else {
			rows = append(rows, append([]string{g.A.Item.Gold, g.A.Target, fmt.Sprint(g.A.ID), g.Text, "yes", overall}, diag...))
		}
	}
	return rows
}

// DropCounts tallies drop reasons per condition.
func DropCounts(gs []Generated) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, g := range gs {
		if out[g.Cond] == nil {
			out[g.Cond] = map[string]int{}
		}
		out[g.Cond]["candidates"]++
		if g.Kept {
			out[g.Cond]["kept"]++
		}
		for _, r := range g.DropReasons {
			out[g.Cond]["dropped: "+r]++
		}
		if g.Kept { // review flags matter only for items that stay
			for _, r := range g.NeedsReview {
				out[g.Cond]["needs_review: "+r]++
			}
		}
	}
	return out
}
