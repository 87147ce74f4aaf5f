package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/scorer"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/study"
)

// host is the bench.Host of one Task's own commands.
type host struct {
	g   *Global
	def *bench.Benchmark
}

// Open implements bench.Host.
func (h host) Open(_ context.Context, write bool) (bench.Session, error) {
	s, err := open(h.g, !write)
	if err != nil {
		return nil, err
	}
	return taskSession{s, h.def}, nil
}

// Settings implements bench.Host.
func (h host) Settings() bench.Settings {
	return bench.Settings{DryRun: h.g.DryRun, MaxUnusable: h.g.MaxUnusable, Stdout: h.g.Stdout, Stderr: h.g.Stderr, StdoutTTY: h.g.StdoutTTY, Quiet: h.g.Quiet}
}

// WriteReport implements bench.Host.
func (h host) WriteReport(rep *report.Report, format, out string) error {
	f, err := report.ParseFormat(format)
	if err != nil {
		return err
	}
	return writeReport(h.g, rep, f, out)
}

// Version implements bench.Host.
func (host) Version() string { return Version() }

// DataDir implements bench.Host.
func (host) DataDir(flag string) string { return dataDir(flag) }

// taskSession is the bench.Session of a Task's command.
type taskSession struct {
	*session
	def *bench.Benchmark
}

// Env implements bench.Session.
func (s taskSession) Env(dataDir string) bench.Env { return s.taskEnv(dataDir) }

// Run implements bench.Session.
func (s taskSession) Run(ctx context.Context, spec runner.Spec) (runner.Result, error) {
	if spec.Benchmark == "" { // a Task may run under another name it registered
		spec.Benchmark = s.def.Name
	}
	if spec.Args == nil {
		spec.Args = s.g.commandLine()
	}
	return s.runner().Run(ctx, spec)
}

// Start implements bench.Session.
func (s taskSession) Start(ctx context.Context, spec runner.Spec) (*lifecycle.Run, error) {
	if spec.Benchmark == "" {
		spec.Benchmark = s.def.Name
	}
	if spec.Args == nil {
		spec.Args = s.g.commandLine()
	}
	return s.runner().Start(ctx, spec)
}

// Discard implements bench.Session.
func (s taskSession) Discard(ctx context.Context, runID int64) error {
	_, err := s.st.DeleteRun(context.WithoutCancel(ctx), runID, false)
	return err
}

// Stored implements bench.Session.
func (s taskSession) Stored(ctx context.Context, j engine.Job) (*llm.Response, bool, error) {
	c, ok, err := s.st.GetCall(ctx, s.engine(0).Place(j).Key())
	if err != nil || !ok {
		return nil, false, err
	}
	return c.Response, c.Response != nil, nil
}

// OutputTokens implements bench.Session.
func (s taskSession) OutputTokens(ctx context.Context, spec llm.Spec, namespace string) (float64, int, error) {
	return s.st.OutputTokens(ctx, spec.Provider, spec.Model, namespace)
}

// Previous implements bench.Session.
func (s taskSession) Previous(ctx context.Context, spec runner.Spec) (store.Run, bool, error) {
	if spec.Benchmark == "" {
		spec.Benchmark = s.def.Name
	}
	return s.runner().Previous(ctx, spec)
}

// Pick implements bench.Session.
func (s taskSession) Pick(ctx context.Context, id int64, allowIncomplete bool, what string, has func(store.Run) bool, first string) (store.Run, error) {
	return pick(ctx, s.st, s.def, what, id, allowIncomplete, has, first)
}

// Annotate implements bench.Session.
func (s taskSession) Annotate(ctx context.Context, runID int64, rep *report.Report) error {
	r, ok, err := s.st.Run(ctx, runID)
	if err != nil {
		return err
	}
	if ok {
		addPartial(r, rep)
	}
	return addUnusable(ctx, s.st, runID, rep)
}

// Embedder implements bench.Session: the embeddings go through the
// engine like every other call — one job per distinct text, so each is
// cached once by its content (a text embedded before is not paid for
// again), retried, rate-limited, budgeted and priced.
func (s taskSession) Embedder(ctx context.Context, specStr string) (func([]string) ([][]float64, error), error) {
	if specStr == "" {
		return nil, nil
	}
	spec, err := llm.ParseSpec(specStr)
	if err != nil {
		return nil, fmt.Errorf("--embedder: %w", err)
	}
	if s.g.DryRun {
		fmt.Fprintf(s.g.Stderr, "note: dry run: --embedder %s is not called; premises are paired lexically\n", specStr)
		return nil, nil
	}
	if err := s.preflight([]llm.Spec{spec}); err != nil {
		return nil, fmt.Errorf("--embedder: %w", err)
	}
	p, err := s.cfg.Provider(spec.Provider, nil)
	if err != nil {
		return nil, err
	}
	if _, ok := p.(llm.Embedder); !ok {
		return nil, fmt.Errorf("--embedder %s: provider %s has no /v1/embeddings endpoint; use an OpenAI-compatible one", specStr, spec.Provider)
	}
	return func(texts []string) ([][]float64, error) { return s.embed(ctx, spec, texts) }, nil
}

// Scorer implements bench.Session: the scorer's calls go through the
// engine, as scoring requests to its URL (provider scorer) — cached by the
// pairs they send (the same evaluation again calls nothing), retried while
// the scorer is busy or still starting, rate-limited like any provider.
// They cost no money: no budget applies.
func (s taskSession) Scorer(ctx context.Context, url string) (func([]llm.ScorePair) ([]map[string]float64, error), error) {
	if url == "" {
		return nil, nil
	}
	if s.g.DryRun {
		fmt.Fprintf(s.g.Stderr, "note: dry run: --scorer %s is not called\n", url)
		return nil, nil
	}
	o := s.engineOptions(0)
	o.Providers = func(string) (llm.Provider, error) { return scorer.Provider{}, nil }
	o.Budget, o.SharedBudget, o.Dispatch = 0, nil, nil
	eng := engine.New(o)
	spec := llm.Spec{Provider: scorer.Name, Model: url}
	return func(pairs []llm.ScorePair) ([]map[string]float64, error) {
		var jobs []engine.Job
		for lo := 0; lo < len(pairs); lo += pairsPerScore {
			jobs = append(jobs, engine.Job{ID: fmt.Sprintf("score/%d", len(jobs)+1), Namespace: "score", Spec: spec,
				Request: llm.Request{Score: pairs[lo:min(len(pairs), lo+pairsPerScore)]}, Meta: lo})
		}
		out := make([]map[string]float64, len(pairs))
		var failed error
		var mu sync.Mutex
		if _, err := eng.Run(ctx, engine.SlicePlan("scores", jobs), func(r engine.Result) {
			mu.Lock()
			defer mu.Unlock()
			lo := r.Job.Meta.(int)
			switch {
			case r.Err != nil:
				failed = cmp.Or(failed, fmt.Errorf("--scorer %s: %w", url, r.Err))
			case r.Response == nil || len(r.Response.Scores) != len(r.Job.Request.Score):
				failed = cmp.Or(failed, fmt.Errorf("--scorer %s: no scores for pairs %d…", url, lo+1))
			default:
				copy(out[lo:], r.Response.Scores)
			}
		}); err != nil {
			return nil, fmt.Errorf("--scorer %s: %w", url, err)
		}
		if failed != nil {
			return nil, failed
		}
		return out, nil
	}, nil
}

// pairsPerScore is how many pairs one scorer call sends: a scorer on a
// GPU rates a batch in about the time of one pair.
const pairsPerScore = 64

// embed runs the embeddings of texts through the engine.
func (s taskSession) embed(ctx context.Context, spec llm.Spec, texts []string) ([][]float64, error) {
	at := map[string]int{}
	var jobs []engine.Job
	for _, t := range texts {
		if _, ok := at[t]; !ok {
			at[t] = len(jobs)
			jobs = append(jobs, engine.Job{ID: fmt.Sprintf("embed/%d", len(jobs)+1), Namespace: "embed", Spec: spec, Request: llm.Request{Embed: []string{t}}})
		}
	}
	vecs := make([][]float64, len(jobs))
	var failed error
	var mu sync.Mutex
	if _, err := s.engine(0).Run(ctx, engine.SlicePlan("embeddings", jobs), func(r engine.Result) {
		mu.Lock()
		defer mu.Unlock()
		i := at[r.Job.Request.Embed[0]]
		switch {
		case r.Err != nil:
			failed = cmp.Or(failed, fmt.Errorf("--embedder %s: %w", spec, r.Err))
		case r.Response == nil || len(r.Response.Vectors) != 1:
			failed = cmp.Or(failed, fmt.Errorf("--embedder %s: no vector for text %d", spec, i+1))
		default:
			vecs[i] = r.Response.Vectors[0]
		}
	}); err != nil {
		return nil, fmt.Errorf("--embedder %s: %w", spec, err)
	}
	if failed != nil {
		return nil, failed
	}
	out := make([][]float64, len(texts))
	for i, t := range texts {
		out[i] = vecs[at[t]]
	}
	return out, nil
}

// Studies implements bench.Session.
func (s taskSession) Studies(ctx context.Context, runID int64, rep *report.Report) error {
	return addStudies(ctx, s.st, s.def.Name, runID, rep)
}

// Runs implements bench.Session.
func (s taskSession) Runs(ctx context.Context) ([]store.Run, error) { return s.st.Runs(ctx) }

// Where implements bench.Session.
func (s taskSession) Where() string { return s.st.Path() }

// CreateStudy implements bench.Session.
func (s taskSession) CreateStudy(ctx context.Context, req bench.StudyRequest) (bench.StudyMade, error) {
	sp := studySpec{runID: req.RunID, kind: req.Kind, fields: req.Fields, stratify: req.Stratify, corpus: req.Corpus, annotators: req.Annotators,
		o: study.Options{N: req.N, PerStratum: req.PerStratum, Overlap: req.Overlap, Decoys: req.Decoys, Seed: req.Seed, Name: req.Name}}
	st, err := createStudy(ctx, s.session, sp)
	if err != nil {
		return bench.StudyMade{}, err
	}
	return bench.StudyMade{ID: st.ID, RunID: st.RunID, Items: len(st.Items)}, nil
}

// WriteStudySheet implements bench.Session.
func (s taskSession) WriteStudySheet(ctx context.Context, id int64, w io.Writer) error {
	st, ok, err := s.st.Study(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no study %d in %s", id, s.st.Path())
	}
	anns, err := s.st.Annotations(ctx, st.ID)
	if err != nil {
		return err
	}
	return writeSheet(st, anns, st.Annotators, w)
}
