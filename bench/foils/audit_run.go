package foils

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// What the audit's run is, checked by the compiler.
var (
	_ bench.ShowsReport = Task{}
	_ bench.RunVerb     = Task{}
)

// RunVerb implements bench.RunVerb: `fallacylab foils audit` (run is its
// alias).
func (Task) RunVerb() string { return "audit" }

// BindRun implements bench.Runs: the audit of a detector on a corpus's
// test items and its scheme-matched and wrong-scheme sets, as one run
// whose records are the audit (one per detector, or per seed).
func (Task) BindRun(f *pflag.FlagSet) func(context.Context, bench.Env) (runner.Spec, error) {
	o := foilsOptions{Corpus: "reddit", Detector: "tfidf", Format: "md", Seed: 1, Resamples: 10000, Perms: 10000}
	f.StringVar(&o.Corpus, "corpus", o.Corpus, "reddit (embedded) or cocolofa (needs --data-dir)")
	f.StringVar(&o.Detector, "detector", o.Detector, "tfidf, model:FILE, file:PREDS.csv, llm:PROVIDER:MODEL[:typed|binary] or an http(s) URL")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the bootstrap and permutation tests")
	f.IntVar(&o.Resamples, "resamples", o.Resamples, "bootstrap resamples for gap intervals")
	f.IntVar(&o.Perms, "permutations", o.Perms, "permutations of the errors test")
	f.BoolVar(&o.SkipBadRows, "skip-bad-rows", false, "skip malformed corpus rows (counted and reported) instead of failing")
	f.StringVar(&o.Seeds, "seeds", "", "with --detector file:PREDS.csv: audit each seed of its seed column and report mean ± SD, e.g. 1,2,3")
	f.StringVar(&o.Matched, "matched", "", "matched set CSV in the released format (default: the released set of the corpus)")
	f.StringVar(&o.Wrong, "wrong", "", "wrong-scheme set CSV in the released format")
	f.IntVar(&o.Limit, "limit", 0, "audit at most N items of each condition (test, matched, wrong-scheme), taken in turn from each class (0: all): a quick look, not a result")
	f.StringVar(&o.Variant, "reddit-variant", "annotated", "Reddit items: annotated (Sahai's processed annotated dataset, balanced) or full (plus 6,400 random negative samples)")
	return func(ctx context.Context, env bench.Env) (runner.Spec, error) { return o.spec(env) }
}

// spec is the audit's run: the corpus and sets checked before anything is
// paid, the detection as its one phase, the records and the summary.
func (o foilsOptions) spec(env bench.Env) (runner.Spec, error) {
	if o.Seeds != "" && !strings.HasPrefix(o.Detector, "file:") {
		// Refused before the run exists: it left a failed run behind.
		return runner.Spec{}, errSeedsNeedFile
	}
	var bad corpus.BadRows
	items, err := loadCorpus(o.Corpus, env.Data, corpus.LoadOptions{SkipBadRows: o.SkipBadRows, Bad: &bad})
	if err != nil {
		return runner.Spec{}, err
	}
	if items, err = redditVariant(o.Corpus, o.Variant, items); err != nil {
		return runner.Spec{}, err
	}
	sets, notes, err := auditSets(o, items)
	if err != nil {
		return runner.Spec{}, err
	}
	if o.Limit > 0 {
		sets = sets.Limit(o.Limit)
		notes = append(notes, fmt.Sprintf("--limit %d: %d test, %d matched and %d wrong-scheme items are audited, taken in turn from each class: a quick look, not a result", o.Limit, len(sets.Test), len(sets.Matched), len(sets.Wrong)))
	}
	// Nothing is paid for an audit known in advance to fail.
	if err := sets.Check(); err != nil {
		return runner.Spec{}, err
	}
	if o.Corpus == "touche" {
		reddit, err := corpus.EmbeddedReddit()
		if err == nil {
			notes = append(notes, fmt.Sprintf("%d of %d Touché items are Sahai test items (matched on text): a Reddit-trained detector has seen none of them in training, but they are not new text", corpus.Overlap(items, Split(reddit, "test")), len(items)))
		}
	}
	var specs []llm.Spec
	if det, err := llmDetector(o); err != nil {
		return runner.Spec{}, err
	} else if det != nil {
		specs = []llm.Spec{det.Spec}
	}
	// The run's identity is what it was when the audit wrote its own
	// command: the options without the report's format and output.
	id := o
	id.Format, id.Out = "", ""
	var audits []AuditRecord
	var sum Summary
	detection := runner.Phase{
		Do: func(ctx context.Context, a *runner.Active) (err error) {
			audits, err = foilsAuditRun(ctx, env, a, o, items, sets)
			return err
		},
		Dry: func(context.Context) (engine.Plan, string, error) { return foilsDryPlan(o, sets) },
	}
	return runner.Spec{Name: "foils audit " + o.Corpus, Options: o, Identity: []any{id}, Specs: specs,
		Phases: []runner.Phase{detection},
		Complete: func(ctx context.Context, runID int64) (err error) {
			for _, n := range notes {
				audits[0].Meta = append(audits[0].Meta, [2]string{"note", n})
			}
			if bad.Count > 0 {
				audits[0].Meta = append(audits[0].Meta, [2]string{"skipped bad rows", fmt.Sprintf("%d (first: %s)", bad.Count, bad.Errors[0])})
			}
			// The report is made from the records, the way foils report and
			// the viewer make it again later.
			if _, sum, err = ReportOf(audits); err != nil {
				return err
			}
			return SaveAudits(ctx, env.Records, runID, audits)
		},
		Done: func(ctx context.Context, runID int64, exit error) error {
			if audits != nil && sum.NativeFPR.N+sum.MatchedFPR.N > 0 {
				fmt.Fprintf(env.Stderr, "native FPR %.1f%% → matched FPR %.1f%%; separation %+.1f pp [%.1f, %.1f]; τ′ margin %+.1f pp [%.1f, %.1f]; dissociation: %v\n",
					100*sum.NativeFPR.Estimate, 100*sum.MatchedFPR.Estimate, 100*sum.Sep, 100*sum.SepLo, 100*sum.SepHi,
					100*sum.Margin, 100*sum.MarginLo, 100*sum.MarginHi, sum.Dissociation)
			}
			return exit
		}}, nil
}

// Brief implements bench.ShowsReport: the verdict and the figures it
// rests on, then where the whole report is.
func (Task) Brief(ctx context.Context, env bench.Env, r store.Run, w io.Writer) error {
	audits, err := LoadAudits(ctx, env.Records, r.ID)
	if err != nil {
		return err
	}
	rep, sum, err := ReportOf(audits)
	if err != nil {
		return err
	}
	auditBrief(w, rep, sum, r.ID, env)
	return nil
}
