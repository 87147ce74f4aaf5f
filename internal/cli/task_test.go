package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// echoLabel is a Task declared only here, the way a benchmark package
// declares one: texts with gold labels, one call each, the label the last
// word of the answer, accuracy. Nothing in the CLI names it.
type echoLabel struct{}

var echoLabelTask = bench.RegisterTask(echoLabel{})

var echoLabelDef = &bench.Benchmark{Name: "echolabel", Title: "Echo labels", Summary: "labels texts by their last word",
	Phases: []bench.Phase{{Name: "labelling", Hint: "the answers are not labels",
		Usable: func(r engine.Result) bool { return !strings.Contains(r.Response.Text, "garbled") }}}}

func (echoLabel) Definition() *bench.Benchmark { return echoLabelDef }

// echoItems are the texts and their gold labels: the echo server answers
// "echo: <text>", so all but the last are labelled right.
var echoItems = [][2]string{{"the sky is blue", "blue"}, {"grass is green", "green"}, {"garbled", "x"}, {"sun is yellow", "red"}}

type echoPred struct {
	ID   string `json:"id"`
	Gold string `json:"gold"`
	Pred string `json:"pred"`
}

func (echoLabel) BindRun(f *pflag.FlagSet) func(context.Context, bench.Env) (runner.Spec, error) {
	model := f.String("model", "", "the model that labels")
	limit := f.Int("limit", 0, "label only the first N texts")
	f.String("template", "plain", "the prompt (completion offers its own values, not another benchmark's)")
	bench.Choices(f, "template", "plain", "fancy")
	return func(ctx context.Context, env bench.Env) (runner.Spec, error) {
		spec, err := llm.ParseSpec(*model)
		if err != nil {
			return runner.Spec{}, fmt.Errorf("--model: %w", err)
		}
		items := echoItems
		if *limit > 0 {
			items = items[:min(*limit, len(items))]
		}
		jobs := make([]engine.Job, len(items))
		for i, it := range items {
			jobs[i] = engine.Job{ID: fmt.Sprint("t", i), Namespace: "echolabel", Spec: spec, Request: llm.UserPrompt("", it[0]), Meta: i}
		}
		preds := make([]store.Record, len(items))
		d := echoLabelDef.Phase("labelling")
		ph := runner.Phase{Name: d.Name, Hint: d.Hint, Usable: d.Usable, Plan: engine.SlicePlan("echolabel", jobs)}
		ph.OnResult = func(r engine.Result) {
			i := r.Job.Meta.(int)
			p := echoPred{ID: r.Job.ID, Gold: items[i][1]}
			if r.Err == nil {
				w := strings.Fields(r.Response.Text)
				p.Pred = w[len(w)-1]
			}
			b, _ := json.Marshal(p)
			preds[i] = store.Record{Key: p.ID, CallKey: r.Key, Body: b}
		}
		ph.Records = func(ctx context.Context, runID int64) error {
			var done []store.Record
			for _, p := range preds {
				if p.Key != "" {
					done = append(done, p)
				}
			}
			return env.Records.PutRecords(ctx, runID, "echolabel/prediction", done)
		}
		return runner.Spec{Name: "echolabel " + spec.String(), Options: map[string]any{"model": *model, "limit": *limit},
			Specs: []llm.Spec{spec}, Phases: []runner.Phase{ph}}, nil
	}
}

func (echoLabel) BindReport(f *pflag.FlagSet) func(context.Context, bench.Env, store.Run) (*report.Report, error) {
	return func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
		right, n := 0, 0
		if err := env.Records.Records(ctx, run.ID, "echolabel/prediction", func(r store.Record) error {
			var p echoPred
			if err := json.Unmarshal(r.Body, &p); err != nil {
				return err
			}
			n++
			if p.Pred == p.Gold {
				right++
			}
			return nil
		}); err != nil {
			return nil, err
		}
		rep := &report.Report{Title: "Echo labels", Benchmark: "echolabel"}
		rep.AddSection("Accuracy", "").Add(&report.Table{ID: "accuracy", Title: "Accuracy",
			Columns: []report.Column{{Key: "texts", Label: "texts"}, {Key: "right", Label: "right"}, {Key: "accuracy", Label: "accuracy"}},
			Rows:    [][]report.Cell{{report.I(n), report.I(right), report.F(float64(right)/float64(max(n, 1)), 3)}}})
		return rep, nil
	}
}

// TestATaskIsCommandsByItself: a Task registered in its own package gets
// run (a dry run that calls nothing, a run through the one runner, the
// unusable-answer exit, resume from the cache), report of a stored run,
// runs and runs rm — with no line of the CLI naming it.
func TestATaskIsCommandsByItself(t *testing.T) {
	srv, dir := guaranteeEnv(t, nil)
	db := filepath.Join(dir, "t.db")
	cli := func(args ...string) (string, string, error) { return runCLI2(t, dir, db, args...) }

	if out, _, err := cli("--dry-run", "echolabel", "run", "--model", "openai:m"); err != nil || !strings.Contains(out, "4") || len(srv.Ledger()) != 0 {
		t.Fatalf("dry run: %v, %d requests\n%s", err, len(srv.Ledger()), out)
	}
	// One garbled answer in four is more than the default 20 % allow.
	_, stderr, err := cli("echolabel", "run", "--model", "openai:m")
	if exitCode(err) != lifecycle.ExitUnusable || !strings.Contains(stderr+err.Error(), "the answers are not labels") {
		t.Fatalf("unusable answers: exit %d (%v)\n%s", exitCode(err), err, stderr)
	}
	if len(srv.Ledger()) != 4 {
		t.Fatalf("%d requests, want 4", len(srv.Ledger()))
	}
	out, stderr, err := cli("--max-unusable", "0.5", "echolabel", "run", "--model", "openai:m")
	if err != nil || !strings.Contains(out, "fallacylab --db "+db+" echolabel report --run 1") {
		t.Fatalf("run: %v\n%s\n%s", err, out, stderr)
	}
	if len(srv.Ledger()) != 4 {
		t.Fatalf("the resumed run paid %d calls again", len(srv.Ledger())-4)
	}
	out, _, err = cli("echolabel", "report", "--run", "1", "--format", "csv")
	if err != nil || !strings.Contains(out, "4,2,0.5\n") {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if _, _, err := cli("echolabel", "run", "--model", "openai:m", "--limit", "2"); err != nil {
		t.Fatalf("limited run: %v", err)
	}
	if out, _, err = cli("echolabel", "report"); err != nil || !strings.Contains(out, "| 2 | 2 | 1.000 |") {
		t.Fatalf("report of the latest run: %v\n%s", err, out)
	}
	out, _, err = cli("runs")
	if err != nil || strings.Count(out, "echolabel  done") != 2 {
		t.Fatalf("runs: %v\n%s", err, out)
	}
	// Shell completion offers the Task's own values of a flag whose name
	// another benchmark uses too.
	if out, _, err = cli("__complete", "echolabel", "run", "--template", ""); err != nil || !strings.Contains(out, "plain\nfancy\n") || strings.Contains(out, "gen_cls") {
		t.Fatalf("completion: %v\n%s", err, out)
	}
	if _, _, err := cli("runs", "rm", "2"); err != nil {
		t.Fatal(err)
	}
	if out, _, err = cli("echolabel", "report", "--run", "2"); err == nil {
		t.Fatalf("a deleted run was reported:\n%s", out)
	}
}
