package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/export"
	"github.com/fallacylab/fallacylab/outfile"

	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
	"github.com/spf13/cobra"
)

func newRunsCmd(g *Global) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List runs in the store, newest first; show or export one",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := openBrowse(g)
			if err != nil {
				return err
			}
			defer s.Close()
			runs, err := s.st.Runs(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				out := make([]runJSON, 0, len(runs))
				for _, r := range runs {
					out = append(out, runOf(r, time.Now()))
				}
				return printJSON(g, out)
			}
			tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "id\tname\tbenchmark\tstatus\tstarted\tduration\tcalls\tcached")
			now := time.Now()
			var unfinished []string
			for _, r := range runs {
				state := lifecycle.State(r, now)
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", r.ID, r.Name, r.Benchmark, state, r.Started.Local().Format("2006-01-02 15:04:05"), runDuration(r), r.Calls, r.Cached)
				if state != store.RunDone && state != store.RunRunning {
					unfinished = append(unfinished, fmt.Sprintf("run %d: %s", r.ID, lifecycle.Describe(r, now)))
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if len(unfinished) > 0 {
				fmt.Fprintf(g.Stderr, "%s did not finish (run the same command again to resume one, or %s):\n", plural(len(unfinished), "run", "runs"), g.command("runs rm ID"))
				for _, u := range unfinished {
					fmt.Fprintln(g.Stderr, "  "+u)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the runs as JSON (docs/cli-json.md)")
	cmd.AddCommand(newRunsShowCmd(g), newRunsExportCmd(g), newRunsImportCmd(g), newRunsRmCmd(g))
	return cmd
}

func runDuration(r store.Run) string {
	if r.Ended.IsZero() {
		return "-"
	}
	return r.Ended.Sub(r.Started).Round(time.Millisecond).String()
}

// phaseTable prints a run's phases: answered, from cache, unusable and
// failed per model, with one unusable answer where there is one.
func phaseTable(w io.Writer, phases []store.PhaseCount) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "phase\tmodel\tjobs\tanswered\tfrom cache\tunusable\tfailed\tskipped")
	for _, p := range phases {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", p.Phase, p.Model, p.Jobs, p.Answered, p.Cached, p.Unusable, p.Failed, p.Skipped)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range phases {
		if p.Example != "" {
			fmt.Fprintf(w, "an unusable %s answer from %s: %q\n", p.Phase, p.Model, p.Example)
		}
	}
	return nil
}

// runByArg parses a run id argument and fetches the run.
func runByArg(cmd *cobra.Command, s *session, arg string) (store.Run, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return store.Run{}, fmt.Errorf("run id %q: want a positive number (see `fallacylab runs`)", arg)
	}
	r, ok, err := s.st.Run(cmd.Context(), id)
	if err != nil {
		return store.Run{}, err
	}
	if !ok {
		return store.Run{}, fmt.Errorf("no run %d in %s (see `fallacylab runs`)", id, s.st.Path())
	}
	return r, nil
}

// openRun opens the store and fetches the run named by arg.
func openRun(g *Global, cmd *cobra.Command, arg string) (*session, store.Run, error) {
	s, err := openBrowse(g)
	if err != nil {
		return nil, store.Run{}, err
	}
	r, err := runByArg(cmd, s, arg)
	if err != nil {
		s.Close()
		return nil, store.Run{}, err
	}
	return s, r, nil
}

func newRunsShowCmd(g *Global) *cobra.Command {
	var asJSON, asPlan bool
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "A run's status, version, per-model calls, cache hits, tokens and spend, and its config snapshot",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, r, err := openRun(g, cmd, args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			if asPlan {
				b, err := planOf(g, r)
				if err != nil {
					return err
				}
				_, err = g.Stdout.Write(b)
				return err
			}
			stats, err := s.st.RunModelStats(cmd.Context(), r.ID)
			if err != nil {
				return err
			}
			phases, err := s.st.Phases(cmd.Context(), r.ID)
			if err != nil {
				return err
			}
			var tp *backend.TeamProgress
			if pg, ok := s.st.(backend.Jobs); ok { // the workers' progress on its queued jobs
				if tp, err = backend.RunTeamProgress(cmd.Context(), pg, r.ID); err != nil {
					return err
				}
			}
			if asJSON {
				return printJSON(g, struct {
					Run     runJSON               `json:"run"`
					Phases  []phaseJSON           `json:"phases"`
					Workers *backend.TeamProgress `json:"workers,omitempty"`
					Models  []modelJSON           `json:"models"`
					Config  json.RawMessage       `json:"config"`
				}{runOf(r, time.Now()), phasesOf(phases), tp, modelsOf(stats), r.Config})
			}
			w := g.Stdout
			fmt.Fprintf(w, "run %d: %s\nbenchmark: %s\nstatus:    %s\nversion:   %s\nstarted:   %s\nduration:  %s\ncalls:     %d (%d from the cache)\n\n",
				r.ID, r.Name, r.Benchmark, lifecycle.Describe(r, time.Now()), r.Version, r.Started.Local().Format(time.RFC3339), runDuration(r), r.Calls, r.Cached)
			if len(phases) > 0 {
				if err := phaseTable(w, phases); err != nil {
					return err
				}
				fmt.Fprintln(w)
			}
			if tp != nil {
				printTeamProgress(w, tp, lifecycle.State(r, time.Now()) == store.RunDone)
			}
			if len(stats) > 0 {
				if err := modelTable(w, stats); err != nil {
					return err
				}
				fmt.Fprintln(w, "(spend counts only calls this run paid for; cache hits cost nothing again)")
				fmt.Fprintln(w)
			}
			var cfg bytes.Buffer
			if err := json.Indent(&cfg, r.Config, "", "  "); err != nil {
				cfg.Reset()
				cfg.Write(r.Config)
			}
			fmt.Fprintf(w, "config:\n%s\n", cfg.String())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run as JSON (docs/cli-json.md)")
	cmd.Flags().BoolVar(&asPlan, "as-plan", false, "print the plan file that reproduces the run (fallacylab run FILE.yaml; docs/plan-file.md)")
	return cmd
}

// exportedCall is one line of `runs export`: the documented, stable shape of
// a stored call.
type exportedCall struct {
	Job       string          `json:"job"`
	Key       string          `json:"key"`
	Cached    bool            `json:"cached"`
	Namespace string          `json:"namespace"`
	Provider  string          `json:"provider"`
	Model     string          `json:"model"`
	Request   json.RawMessage `json:"request"`
	Response  *llm.Response   `json:"response"`
	Status    string          `json:"status"`
	Error     string          `json:"error,omitempty"`
	Attempts  int             `json:"attempts"`
	Usage     llm.Usage       `json:"usage"`
	Cost      *float64        `json:"cost_usd"`
	LatencyMS int64           `json:"latency_ms"`
	BatchID   string          `json:"batch_id,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
}

func newRunsExportCmd(g *Global) *cobra.Command {
	var out, format, outDir, org, logForm string
	var o compare.Options
	cmd := &cobra.Command{
		Use:   "export RUN",
		Short: "Write a run for other tools: its calls as JSONL, its results as Every Eval Ever files or inspect_ai logs",
		Long: `--format calls (the default): each line is one call: job (the plan's id), key (the cache key),
cached, namespace, provider, model, request (canonical JSON), response (null on error), status,
error, attempts, usage, cost_usd (null when the price is unknown), latency_ms, batch_id,
created_at. API keys are never stored, so never exported. With --out the file is written whole
or not at all.

--format eee: the run's results in the Every Eval Ever schema (evaleval/every_eval_ever, schema
0.3.0), one model at a time, under --out-dir as that project lays them out:
data/<benchmark>/<developer>/<model>/<uuid>.json, the aggregate (each headline metric's mean,
its percentile cluster bootstrap interval — Wilson's for a rate of independent items — and
standard error, the judge panel of judged metrics), and <uuid>_samples.jsonl beside it, one line
per item and metric (the messages of the item's calls, the answer, the outcome, the tokens). Any
benchmark whose runs compare item by item (fallacylab compare) exports; the same run exports to
the same files every time.

--format inspect: the run as inspect_ai eval logs (log format version 2), one per model under
--out-dir (or --out FILE.eval|FILE.json for a run of one model), in inspect's .eval ZIP
container (--log-format eval, the default, as inspect writes them) or its JSON form: the
benchmark as the task (fallacylab/<name>) and its options as the task's args; each item a
sample with the messages sent, the answer, a score per headline metric and a model event per
call; each metric's mean and bootstrap standard error in the results (its interval in the
score's metadata); the run's status, times and tokens. inspect view and inspect's dataframes
read them.`,
		Example: `  fallacylab runs export 12 --out calls.jsonl
  fallacylab runs export 12 --format eee --out-dir eee/ --organization "My lab"
  fallacylab runs export 12 --format inspect --out-dir logs/ && inspect view --log-dir logs/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, r, err := openRun(g, cmd, args[0])
			if err != nil {
				return err
			}
			defer s.Close()
			switch format {
			case "calls":
				return exportCalls(cmd.Context(), g, s, r, out)
			case "eee", "inspect":
				form := logForm
				if format == "inspect" && out != "" {
					form = strings.TrimPrefix(filepath.Ext(out), ".")
					if form != "eval" && form != "json" {
						return fmt.Errorf("--out %s: an inspect log is a .eval or a .json file", out)
					}
				}
				if out == "" && outDir == "" || format == "eee" && outDir == "" {
					return fmt.Errorf("--format %s writes a file per model: name their folder with --out-dir", format)
				}
				x, err := exportRun(cmd.Context(), s, r, o)
				if err != nil {
					return err
				}
				var files []export.File
				switch {
				case format == "eee":
					files, err = export.EEE(x, export.EEEOptions{Organization: org})
				case form == "json":
					files, err = export.Inspect(x)
				case form == "eval":
					files, err = export.InspectEval(x)
				default:
					return fmt.Errorf("--log-format %q: use eval or json", logForm)
				}
				if err != nil {
					return err
				}
				if out != "" {
					if len(files) != 1 {
						return fmt.Errorf("run %d has %d models, a log each: name their folder with --out-dir", r.ID, len(files))
					}
					files[0].Path, outDir = filepath.Base(out), filepath.Dir(out)
				}
				return writeFiles(g, outDir, files)
			}
			return fmt.Errorf("--format %q: use calls, eee or inspect", format)
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "calls", "calls (JSONL of the run's calls), eee (Every Eval Ever results) or inspect (inspect_ai eval logs)")
	bench.Choices(f, "format", "calls", "eee", "inspect")
	f.StringVar(&out, "out", "", "--format calls: file to write (default: standard output); --format inspect: the log of a run of one model, FILE.eval or FILE.json")
	f.StringVar(&logForm, "log-format", "eval", "--format inspect with --out-dir: eval (inspect's ZIP container) or json")
	bench.Choices(f, "log-format", "eval", "json")
	f.StringVar(&outDir, "out-dir", "", "--format eee or inspect: the folder the files go under")
	f.StringVar(&org, "organization", "", "--format eee: who ran the evaluation (source_organization_name; default unknown)")
	f.IntVar(&o.Resamples, "resamples", 2000, "cluster bootstrap resamples for the intervals (--format eee, inspect)")
	f.Uint64Var(&o.Seed, "seed", 20260101, "bootstrap seed (--format eee, inspect)")
	return cmd
}

// exportCalls writes every call of a run as JSONL (runs export's --format
// calls).
func exportCalls(ctx context.Context, g *Global, s *session, r store.Run, out string) error {
	n := 0
	fill := func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		n = 0
		err := s.st.RunCalls(ctx, r.ID, func(c store.RunCall) error {
			n++
			return enc.Encode(exportedCall{Job: c.Job, Key: c.Key, Cached: c.Cached, Namespace: c.Namespace,
				Provider: c.Provider, Model: c.Model, Request: c.Request, Response: c.Response, Status: c.Status,
				Error: c.Error, Attempts: c.Attempts, Usage: c.Usage, Cost: c.Cost, LatencyMS: c.Latency.Milliseconds(),
				BatchID: c.BatchID, CreatedAt: c.CreatedAt})
		})
		if err != nil {
			return err
		}
		return bw.Flush()
	}
	if out == "" || out == "-" {
		if err := fill(g.Stdout); err != nil {
			return err
		}
	} else {
		if err := outfile.Write(g.Stdout, out, fill); err != nil {
			return err
		}
		fmt.Fprintf(g.Stderr, "wrote %s of run %d to %s\n", plural(n, "call", "calls"), r.ID, out)
	}
	if n == 0 { // an import, an offline audit: its results are its records
		fmt.Fprintf(g.Stderr, "run %d made no model calls: --format eee or --format inspect exports its results\n", r.ID)
	}
	return nil
}

func newRunsRmCmd(g *Global) *cobra.Command {
	var withStudies bool
	cmd := &cobra.Command{
		Use:   "rm RUN...",
		Short: "Delete runs and their records; their calls stay in the cache (a run with human studies needs --with-studies)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			var runs []store.Run
			for _, a := range args {
				r, err := runByArg(cmd, s, a)
				if err != nil {
					return err
				}
				runs = append(runs, r)
			}
			for _, r := range runs {
				d, err := s.st.DeleteRun(cmd.Context(), r.ID, withStudies)
				if errors.Is(err, store.ErrHasStudies) {
					return fmt.Errorf("%w: nothing was deleted. Human answers cannot be made again by re-running: export them first (fallacylab study list --run %d; fallacylab study export STUDY), then delete the run and its studies with --with-studies, or a study alone with fallacylab study rm STUDY", err, r.ID)
				}
				if err != nil {
					return err
				}
				also := ""
				if d.Studies > 0 {
					also = fmt.Sprintf(", with its %s and their %s", plural(d.Studies, "study", "studies"), plural(d.Annotations, "human answer", "human answers"))
				}
				fmt.Fprintf(g.Stdout, "deleted run %d (%s)%s; its %s in the cache\n", r.ID, r.Name, also, plural(r.Calls, "call stays", "calls stay"))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&withStudies, "with-studies", false, "also delete the run's human studies and every answer in them")
	return cmd
}

// plural is "1 study" or "3 studies".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
