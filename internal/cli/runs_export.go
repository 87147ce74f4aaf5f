package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/export"
	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/cobra"
)

// exportRun gathers a stored run for the export formats: its arms
// (bench.Compares) with each metric's estimate, and the calls behind its
// items.
func exportRun(ctx context.Context, s *session, r store.Run, o compare.Options) (export.Run, error) {
	t, ok := bench.TaskOf(r.Benchmark)
	c, can := t.(bench.Compares)
	if !ok || !can {
		return export.Run{}, fmt.Errorf("run %d is a run of %s, whose runs do not say their outcomes item by item: it exports only its calls (--format calls)", r.ID, bench.Title(r.Benchmark))
	}
	arms, err := c.Arms(ctx, s.taskEnv(""), r)
	if err != nil {
		return export.Run{}, fmt.Errorf("run %d: %w", r.ID, err)
	}
	var cfg struct {
		Args []string `json:"args"`
	}
	_ = json.Unmarshal(r.Config, &cfg) // a config without args exports none
	out := export.Run{ID: r.ID, Benchmark: r.Benchmark, Title: bench.Title(r.Benchmark), Name: r.Name, Status: r.Status, Reason: r.Reason,
		Started: r.Started, Ended: r.Ended, Command: cfg.Args, Options: r.Config, Version: r.Version, Exporter: Version()}
	want := map[string]bool{}
	for _, a := range arms {
		for _, keys := range a.Calls {
			for _, k := range keys {
				want[k] = true
			}
		}
	}
	calls := map[string]export.Call{}
	if len(want) > 0 {
		err := s.st.RunCalls(ctx, r.ID, func(c store.RunCall) error {
			if !want[c.Key] {
				return nil
			}
			j, err := engine.JobFromCanonical(c.Request)
			if err != nil {
				return fmt.Errorf("call %s: its stored request: %w", c.Key, err)
			}
			x := export.Call{Key: c.Key, Provider: c.Provider, Model: c.Model, Request: j.Request, Sample: j.Sample, Error: c.Error, Usage: c.Usage, Latency: c.Latency, Made: c.CreatedAt}
			if c.Response != nil {
				x.Answer = c.Response.Text
			}
			calls[c.Key] = x
			return nil
		})
		if err != nil {
			return export.Run{}, fmt.Errorf("run %d: its calls: %w", r.ID, err)
		}
	}
	for _, a := range arms {
		x := export.Arm{Model: a.Model, Design: a.Design, Metrics: a.Metrics, Judges: a.Judges, Calls: map[string][]export.Call{}, Answers: a.Answers, Extra: a.Extra}
		if x.Model == "" {
			x.Model = r.Name
		}
		for _, m := range a.Metrics {
			if len(m.Items) == 0 {
				continue
			}
			e, err := compare.EstimateOf(m, o)
			if err != nil {
				return export.Run{}, fmt.Errorf("run %d, %s: %w", r.ID, a.Model, err)
			}
			x.Estimates = append(x.Estimates, e)
		}
		x.Metrics = nonEmpty(a.Metrics)
		for id, keys := range a.Calls {
			for _, k := range keys {
				if c, ok := calls[k]; ok {
					x.Calls[id] = append(x.Calls[id], c)
				}
			}
		}
		out.Arms = append(out.Arms, x)
	}
	return out, nil
}

// nonEmpty are the metrics with items (an estimate needs one).
func nonEmpty(ms []compare.Metric) []compare.Metric {
	var out []compare.Metric
	for _, m := range ms {
		if len(m.Items) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// writeFiles writes an export's files under dir, each whole or not at
// all, and says where.
func writeFiles(g *Global, dir string, files []export.File) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := outfile.Write(g.Stdout, p, func(w io.Writer) error { _, err := w.Write(f.Data); return err }); err != nil {
			return err
		}
		fmt.Fprintf(g.Stderr, "wrote %s\n", p)
	}
	return nil
}

// newRunsImportCmd is `fallacylab runs import --format F FILE`: a file
// another tool wrote, made a run by the Task that reads that format.
func newRunsImportCmd(g *Global) *cobra.Command {
	var format string
	var formats []string
	for _, t := range bench.Tasks() {
		if im, ok := t.(bench.Imports); ok {
			formats = append(formats, im.ImportFormat())
		}
	}
	cmd := &cobra.Command{
		Use:   "import --format FORMAT FILE",
		Short: "Make a run of a file another tool wrote (an inspect_ai eval log, Every Eval Ever results), to list, report and compare",
		Long: `--format inspect: an inspect_ai eval log (.eval or .json) becomes a run of its samples — each
one's id, epoch, input, target, answer and scores (C, I, P and N as 1, 0, 0.5 and 0; a
dict-valued score as one score per key, scorer/key) — which the viewer lists, its report
reports and ` + "`fallacylab compare`" + ` compares item by item with another imported log (a log
fallacylab exported, with the runs of its benchmark too), resampling the clusters its stderr
names (stderr(cluster="…"): a sample metadata field), else each sample. Not carried: the
samples' events (model calls, the transcript), tools, sandboxes, attachments, and scores whose
values are not numbers, booleans or C/I/P/N; the import names what it left out. The same file
imported again is the same run.

--format eee: Every Eval Ever results (evaleval/every_eval_ever) — the aggregate JSON with its
instance-level <uuid>_samples.jsonl beside it, or that file alone — become a run of their
instances: each sample's score per evaluation (named by its metric where the aggregate says
it), clustered by metadata.cluster where every line has one. Listed, reported (fallacylab
eee-log report) and compared as an inspect log is; results fallacylab exported compare with the
runs of their benchmark.`,
		Example: `  fallacylab runs import --format inspect logs/2026-01-05_mytask_abc.eval
  fallacylab runs import --format eee data/deflect/acme/model-x/6b1f….json
  fallacylab compare 7 8`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var im bench.Imports
			for _, t := range bench.Tasks() {
				if x, ok := t.(bench.Imports); ok && x.ImportFormat() == format {
					im = x
				}
			}
			if im == nil {
				return fmt.Errorf("--format %q: fallacylab imports %s", format, strings.Join(formats, ", "))
			}
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			spec, err := im.Import(cmd.Context(), s.taskEnv(""), args[0])
			if err != nil {
				return err
			}
			spec.Benchmark = im.Definition().Name
			spec.Args = g.commandLine()
			rn := s.runner()
			rn.SkipDone = true // the same file again is the run it made
			res, err := rn.Run(cmd.Context(), spec)
			if err == nil {
				env := s.taskEnv("")
				fmt.Fprintf(g.Stdout, "run %d: %s, %s\n", res.RunID, env.Command(fmt.Sprintf("%s report --run %d", spec.Benchmark, res.RunID)),
					env.Command(fmt.Sprintf("runs show %d", res.RunID)))
			}
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "inspect", "the file's format: "+strings.Join(formats, ", "))
	bench.Choices(cmd.Flags(), "format", formats...)
	return cmd
}
