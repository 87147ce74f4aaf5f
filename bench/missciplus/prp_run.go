package missciplus

import (
	"context"
	"fmt"

	"github.com/fallacylab/fallacylab/bench/missci"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// Namespace keeps MissciPlus's calls apart from other benchmarks' in the
// cache.
const Namespace = Name

// PRPOptions say how PRP ranks.
type PRPOptions struct {
	Spec       llm.Spec
	Template   string
	Iterations int
	// Random starts from a random order (CPython's shuffle after
	// random.seed(Seed), through the whole split, as upstream); else from
	// the passages' order.
	Random     bool
	Seed       uint64
	AddSection bool
	Full       bool
	// Temperature and MaxTokens of each call (nil, 0: the provider's).
	Temperature *float64
	MaxTokens   int
}

// PRPRanking is one argument's PRP ranking after each iteration.
type PRPRanking struct {
	ID         string
	Iterations [][]string
}

// pairMeta ties a comparison's call to its argument.
type pairMeta struct{ Arg int }

// initial are the arguments' starting orders: numbered, or shuffled by
// one generator through all of them (upstream's random initial order).
func (o PRPOptions) initial(args []Argument) [][]string {
	var r *missci.PyRandom
	if o.Random {
		r = missci.NewPyRandom(o.Seed)
	}
	out := make([][]string, len(args))
	for i, a := range args {
		out[i] = a.Passages(o.Full)
		if r != nil {
			pyShuffle(r, out[i])
		}
	}
	return out
}

// job is the call comparing passages a and b of argument i.
func (o PRPOptions) job(args []Argument, i int, a, b string) (engine.Job, error) {
	arg := args[i]
	pa, _ := arg.Study.All.Get(a)
	pb, _ := arg.Study.All.Get(b)
	prompt, err := PRPPrompt(o.Template, arg.Claim(), pa, pb, o.AddSection)
	if err != nil {
		return engine.Job{}, err
	}
	req := llm.UserPrompt("", prompt)
	req.Temperature, req.MaxTokens = o.Temperature, o.MaxTokens
	return engine.Job{ID: fmt.Sprintf("%s/%s/%s", arg.ID, a, b), Namespace: Namespace + "/prp/" + o.Template,
		Spec: o.Spec, Request: req, Meta: pairMeta{i}}, nil
}

// Round makes one round of comparisons — at most one per argument — and
// returns each one's answer text by argument index; an answer it could not
// get is an error.
type Round func(ctx context.Context, round int, jobs []engine.Job) (map[int]string, error)

// PRP ranks the chosen arguments (keep; nil: all) by PRP: the initial
// orders are drawn for every argument, as a run of the whole split draws
// them; then rounds of one comparison per argument still ranking, until
// every ranking has done its iterations.
func PRP(ctx context.Context, args []Argument, keep map[string]bool, o PRPOptions, round Round) ([]PRPRanking, error) {
	if o.Iterations < 1 {
		return nil, fmt.Errorf("--iterations %d: want 1 or more", o.Iterations)
	}
	starts := o.initial(args)
	var idx []int
	sliders := map[int]*Slider{}
	for i, a := range args {
		if keep == nil || keep[a.ID] {
			idx = append(idx, i)
			sliders[i] = NewSlider(starts[i], o.Iterations)
		}
	}
	for r := 1; ; r++ {
		var jobs []engine.Job
		for _, i := range idx {
			a, b, ok := sliders[i].Next()
			if !ok {
				continue
			}
			j, err := o.job(args, i, a, b)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, j)
		}
		if len(jobs) == 0 {
			break
		}
		answers, err := round(ctx, r, jobs)
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			i := j.Meta.(pairMeta).Arg
			text, ok := answers[i]
			if !ok {
				return nil, fmt.Errorf("round %d: no answer for %s", r, j.ID)
			}
			sliders[i].Answer(MoveAToFront(text, false))
		}
	}
	out := make([]PRPRanking, len(idx))
	for k, i := range idx {
		out[k] = PRPRanking{ID: args[i].ID, Iterations: sliders[i].Rankings}
	}
	return out, nil
}

// DryPRP is the calls a PRP run makes, as if no comparison moved a
// passage (the count is exact; the prompts are those of the pairs a
// ranking that moves nothing compares).
func DryPRP(args []Argument, keep map[string]bool, o PRPOptions) (engine.Plan, error) {
	var jobs []engine.Job
	_, err := PRP(context.Background(), args, keep, o, func(_ context.Context, _ int, js []engine.Job) (map[int]string, error) {
		out := map[int]string{}
		for _, j := range js {
			jobs = append(jobs, j)
			out[j.Meta.(pairMeta).Arg] = ""
		}
		return out, nil
	})
	return engine.SlicePlan(Name+" prp", jobs), err
}
