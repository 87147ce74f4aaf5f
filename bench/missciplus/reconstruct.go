package missciplus

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// Subtask 3's prompts, as upstream's run_subtask_3.py makes them:
// passage-wise (a prompt per selected passage beside the p0 passage, and
// one with p0 alone; templates reconstruct-passage/) and concat (the p0
// passage and the fallacies' passages — every selected passage with
// AllPassages — in one prompt, in a chosen order; templates
// reconstruct-concat/). p0's passage is drawn by CPython's shuffle after
// random.seed(Seed), one generator through the split, as upstream's
// set_seed(seed).

// ReconstructOptions say how subtask 3 prompts.
type ReconstructOptions struct {
	Spec     llm.Spec
	Template string // e.g. reconstruct-passage/p7-passage-DLE
	Layout   string // PassageWise or "concat"
	// Order of a concat prompt's passages: ordered, p0-ordered, random or
	// p0-random (templates p1–p6 need a p0-… order).
	Order       string
	AddSection  bool
	AllPassages bool // concat: every selected passage, not only the fallacies'
	Seed        uint64
	Temperature *float64
	MaxTokens   int
}

// Concat is the concatenated layout's name on the command line (upstream's
// prompt version concat-all).
const Concat = "concat"

// reconstructTemplate reads a subtask 3 template ("" error: none such).
func reconstructTemplate(name string) (string, error) {
	b, err := fs.ReadFile(data, "data/prompt_templates/"+name+".txt")
	if err != nil || !strings.HasPrefix(name, "reconstruct-") {
		var names []string
		for _, dir := range []string{"reconstruct-passage", "reconstruct-concat"} {
			ents, _ := fs.ReadDir(data, "data/prompt_templates/"+dir)
			for _, e := range ents {
				names = append(names, dir+"/"+strings.TrimSuffix(e.Name(), ".txt"))
			}
		}
		return "", fmt.Errorf("template %q: want one of %s", name, strings.Join(names, ", "))
	}
	return strings.TrimSpace(string(b)), nil
}

// promptPassage is a passage as a prompt gives it: its text, and its id
// ("accurate_premise" for p0 itself when no passage states it).
type promptPassage struct{ text, id string }

// p0Passages are the passages stating p0 (upstream's get_p0_passages with
// p0 itself as the backup).
func (o ReconstructOptions) p0Passages(a Argument) []promptPassage {
	var out []promptPassage
	for _, id := range a.P0Passages() {
		p, _ := a.Study.Selected.Get(id)
		out = append(out, promptPassage{p.Text(o.AddSection), id})
	}
	if len(out) == 0 {
		out = []promptPassage{{a.P0(), "accurate_premise"}}
	}
	return out
}

// reconstructPrompt is one prompt of an argument and the passages it gave.
type reconstructPrompt struct {
	Arg    int
	Prompt string
	From   []string
}

// numOf is a passage id's number (upstream sorts by it).
func numOf(id string) int {
	n, _ := strconv.Atoi(id[strings.LastIndex(id, "-")+1:])
	return n
}

// Prompts are every argument's subtask 3 prompts, in upstream's order
// (keep: the arguments chosen; nil: all; the draws are the whole split's).
func (o ReconstructOptions) Prompts(args []Argument, keep map[string]bool) ([]reconstructPrompt, error) {
	tpl, err := reconstructTemplate(o.Template)
	if err != nil {
		return nil, err
	}
	base := path.Base(o.Template)
	p0Template := false
	for i := 1; i <= 6; i++ {
		p0Template = p0Template || strings.HasPrefix(base, fmt.Sprintf("p%d-", i))
	}
	if err := o.checkLayout(p0Template); err != nil {
		return nil, err
	}
	r := missci.NewPyRandom(o.Seed)
	var out []reconstructPrompt
	for i, a := range args {
		p0s := o.p0Passages(a)
		pyShuffle(r, p0s)
		p0 := p0s[0]
		var ps []reconstructPrompt
		if o.Layout == PassageWise {
			ps, err = o.passageWise(tpl, i, a, p0)
		} else {
			ps, err = o.concat(tpl, r, i, a, p0, p0Template)
		}
		if err != nil {
			return nil, err
		}
		if keep == nil || keep[a.ID] {
			out = append(out, ps...)
		}
	}
	return out, nil
}

// checkLayout refuses a layout, template and order that do not go
// together.
func (o ReconstructOptions) checkLayout(p0Template bool) error {
	switch {
	case o.Layout == PassageWise && !strings.HasPrefix(o.Template, "reconstruct-passage/"):
		return fmt.Errorf("--layout passage-wise takes a reconstruct-passage/ template")
	case o.Layout == Concat && !strings.HasPrefix(o.Template, "reconstruct-concat/"):
		return fmt.Errorf("--layout concat takes a reconstruct-concat/ template")
	case o.Layout != PassageWise && o.Layout != Concat:
		return fmt.Errorf("--layout %q: want passage-wise or concat", o.Layout)
	case o.Layout == Concat && p0Template && o.Order != "p0-ordered" && o.Order != "p0-random":
		return fmt.Errorf("template %s puts p0 apart: --order p0-ordered or p0-random", o.Template)
	case o.Layout == Concat && !slices.Contains([]string{"ordered", "p0-ordered", "random", "p0-random"}, o.Order):
		return fmt.Errorf("--order %q: want ordered, p0-ordered, random or p0-random", o.Order)
	}
	return nil
}

// fill fills the template tpl with an argument's claim, p0 and context.
func (o ReconstructOptions) fill(tpl, claim, p0, context string) (string, error) {
	for _, k := range []string{"@@claim@@", "@@context@@"} {
		if !strings.Contains(tpl, k) {
			return "", fmt.Errorf("template %s has no %s", o.Template, k)
		}
	}
	s := strings.ReplaceAll(tpl, "@@claim@@", claim)
	s = strings.ReplaceAll(s, "@@context@@", context)
	s = strings.ReplaceAll(s, "@@p0@@", p0)
	s = strings.ReplaceAll(s, "@@system_prompt@@", "")
	if strings.Contains(s, "@@") {
		return "", fmt.Errorf("template %s: a field is left unfilled", o.Template)
	}
	return s, nil
}

// passageWise are argument i's passage-wise prompts: one per selected
// passage besides p0's, then one with p0 alone.
func (o ReconstructOptions) passageWise(tpl string, i int, a Argument, p0 promptPassage) ([]reconstructPrompt, error) {
	var out []reconstructPrompt
	for _, id := range a.Passages(false) {
		if id == p0.id {
			continue
		}
		p, _ := a.Study.Selected.Get(id)
		s, err := o.fill(tpl, a.Claim(), p0.text, p.Text(o.AddSection))
		if err != nil {
			return nil, err
		}
		out = append(out, reconstructPrompt{i, s, []string{p0.id, id}})
	}
	s, err := o.fill(tpl, a.Claim(), p0.text, "")
	if err != nil {
		return nil, err
	}
	return append(out, reconstructPrompt{i, s, []string{p0.id}}), nil
}

// concat is argument i's one prompt of the concatenated passages, in the
// order --order asks (random orders draw from r).
func (o ReconstructOptions) concat(tpl string, r *missci.PyRandom, i int, a Argument, p0 promptPassage, p0Template bool) ([]reconstructPrompt, error) {
	relevant := a.selectedFallacyPassages()
	var others []promptPassage
	for _, id := range a.Passages(false) {
		if (o.AllPassages || relevant[id]) && id != p0.id {
			p, _ := a.Study.Selected.Get(id)
			others = append(others, promptPassage{p.Text(o.AddSection), id})
		}
	}
	var ps []promptPassage
	switch o.Order {
	case "ordered":
		if p0.id != "accurate_premise" {
			ps = append(others, p0)
			sort.SliceStable(ps, func(x, y int) bool { return numOf(ps[x].id) < numOf(ps[y].id) })
		} else {
			ps = append([]promptPassage{p0}, others...)
		}
	case "p0-ordered":
		ps = append([]promptPassage{p0}, others...)
	case "random":
		ps = append(others, p0)
		pyShuffle(r, ps)
	case "p0-random":
		pyShuffle(r, others)
		ps = append([]promptPassage{p0}, others...)
	}
	var texts, from []string
	for _, p := range ps {
		texts, from = append(texts, p.text), append(from, p.id)
	}
	ctx := strings.Join(texts, "\n\n")
	if p0Template {
		ctx = strings.Join(texts[1:], "\n\n")
	}
	s, err := o.fill(tpl, a.Claim(), ps[0].text, ctx)
	if err != nil {
		return nil, err
	}
	return []reconstructPrompt{{i, s, from}}, nil
}

// promptMeta ties a reconstruction call to its prompt.
type promptMeta struct{ N int }

// ReconstructPlan is one call per prompt.
func (o ReconstructOptions) ReconstructPlan(prompts []reconstructPrompt) engine.Plan {
	jobs := make([]engine.Job, len(prompts))
	for n, p := range prompts {
		req := llm.UserPrompt("", p.Prompt)
		req.Temperature, req.MaxTokens = o.Temperature, o.MaxTokens
		jobs[n] = engine.Job{ID: fmt.Sprintf("%d/%s", p.Arg, strings.Join(p.From, "+")), Namespace: Namespace + "/reconstruct/" + o.Template,
			Spec: o.Spec, Request: req, Meta: promptMeta{n}}
	}
	return engine.SlicePlan(Name+" reconstruction", jobs)
}
