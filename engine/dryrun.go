package engine

import (
	"context"
	"errors"
	"sort"

	"github.com/fallacylab/fallacylab/llm"
)

// ModelEstimate is the dry-run estimate for one model.
type ModelEstimate struct {
	Spec         llm.Spec
	Jobs         int
	Cached       int
	InputTokens  int64 // of the calls still to make
	OutputTokens int64
	// Learned is how many stored answers of this model (same namespace) the
	// output estimate starts from; 0 means MaxTokens or DefaultOutputGuess.
	Learned int
	// Schema is true when, with no stored answers, the output estimate
	// came from the requests' answer schema (SchemaOutputGuess).
	Schema     bool
	Cost       float64
	PriceKnown bool
}

// Estimate is what a plan would cost, computed without calling anything.
type Estimate struct {
	Jobs, Cached int
	Models       []ModelEstimate
	Cost         float64
	CostKnown    bool // every model with calls to make has a price
	// Discount is the batch price's share of the live one the costs are
	// at (--batch: 0.5), 0 when they are live prices.
	Discount float64
}

// Batched is the estimate at the batch price: every cost times discount
// (the providers' batch APIs cost half the live calls).
func (est Estimate) Batched(discount float64) Estimate {
	est.Models = append([]ModelEstimate(nil), est.Models...)
	for i := range est.Models {
		est.Models[i].Cost *= discount
	}
	est.Cost *= discount
	est.Discount = discount
	return est
}

// BatchDiscount is the share of the live price a batch call costs.
func (e *Engine) BatchDiscount() float64 { return e.opt.BatchDiscount }

// DryRun walks the plan, looks every job up in the cache and estimates the
// tokens and cost of the rest. Output tokens start from the mean of the
// model's stored answers in the same namespace where there are any (capped by
// MaxTokens), else MaxTokens, else DefaultOutputGuess. It sends nothing.
func (e *Engine) DryRun(ctx context.Context, plan Plan) (Estimate, error) {
	per := map[string]*ModelEstimate{}
	est := map[string]*estimator{}
	var out Estimate
	// The jobs are looked up dryRunLookups at a time (one read of the
	// store each), and counted in the plan's order.
	var pending []Job
	count := func() error {
		if len(pending) == 0 {
			return nil
		}
		keys := make([]string, len(pending))
		for i, j := range pending {
			keys[i] = j.Key()
		}
		cached, err := e.opt.Store.GetCalls(ctx, keys)
		if err != nil {
			return err
		}
		for i, j := range pending {
			_, hit := cached[keys[i]]
			if err := e.estimateJob(ctx, j, hit, per, est, &out); err != nil {
				return err
			}
		}
		pending = pending[:0]
		return nil
	}
	for j := range plan.Jobs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if pending = append(pending, e.placed(j)); len(pending) == dryRunLookups {
			if err := count(); err != nil {
				return out, err
			}
		}
	}
	if err := count(); err != nil {
		return out, err
	}
	out.CostKnown = true
	for _, m := range per {
		out.Models = append(out.Models, *m)
	}
	sort.Slice(out.Models, func(i, k int) bool { return out.Models[i].Spec.String() < out.Models[k].Spec.String() })
	for i := range out.Models { // summed in the models' order: the same total every time
		m := &out.Models[i]
		if c, ok := e.opt.Prices.Cost(m.Spec, llm.Usage{InputTokens: m.InputTokens, OutputTokens: m.OutputTokens}); ok {
			m.Cost = c
			out.Cost += c
		} else if m.Jobs > m.Cached {
			out.CostKnown = false
		}
	}
	return out, nil
}

// dryRunLookups is how many of a plan's jobs a dry run looks up in one
// read of the store.
const dryRunLookups = 500

// estimateJob counts job j in the estimate (hit: the cache answers it),
// by its model in per, learning its model's output tokens in est.
func (e *Engine) estimateJob(ctx context.Context, j Job, hit bool, per map[string]*ModelEstimate, est map[string]*estimator, out *Estimate) error {
	m := per[j.Spec.String()]
	if m == nil {
		m = &ModelEstimate{Spec: j.Spec}
		_, m.PriceKnown = e.opt.Prices.Lookup(j.Spec)
		per[j.Spec.String()] = m
	}
	ek := j.Spec.String() + "\x00" + j.Namespace
	if est[ek] == nil {
		est[ek] = newEstimator()
		mean, n, err := e.opt.Store.OutputTokens(ctx, j.Spec.Provider, j.Spec.Model, j.Namespace)
		if err != nil {
			return err
		}
		est[ek].seed(mean, n)
		m.Learned += n
	}
	m.Jobs++
	out.Jobs++
	if hit && e.opt.Cache != CacheRefresh { // refresh calls everything again
		m.Cached++
		out.Cached++
		return nil
	}
	in, o := est[ek].estimateJob(j)
	if (j.Request.Schema != nil || j.Shape != nil) && m.Learned == 0 {
		m.Schema = true
	}
	m.InputTokens += in
	m.OutputTokens += o
	return nil
}

// Offline is the provider of a dry run: it cannot reach the network, and
// every call to it fails without being sent. A dry run that reached the
// engine by mistake therefore pays for nothing.
type Offline struct{ Provider string }

// ErrOffline is the error of every Offline call.
var ErrOffline = errors.New("dry run: no call is sent")

// Name implements llm.Provider.
func (o Offline) Name() string { return o.Provider }

// Generate implements llm.Provider: it always fails with ErrOffline.
func (o Offline) Generate(context.Context, string, llm.Request) (llm.Response, error) {
	return llm.Response{}, ErrOffline
}
