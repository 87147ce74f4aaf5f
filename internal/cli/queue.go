package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/postgres"
	"github.com/spf13/cobra"
)

// workersAlive is how recently a worker must have beaten to be listed.
const workersAlive = backend.WorkersAlive

func newQueueCmd(g *Global) *cobra.Command {
	var run int64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "The team store's work queue: each run's jobs per queue, the workers alive; cancel or retry a run's jobs",
		Long: `Shows the River work queue of a shared PostgreSQL store (--db postgres://…): for each run that queued
calls with --workers 0, its jobs in each queue (one per provider endpoint and model) by state — queued,
running, done, failed (with the last failure) — and the worker processes heard from in the last minute:
their label, River client id, the queues they serve and the jobs they are making.`,
		Example: `  fallacylab --db "$FALLACYLAB_DB" queue
  fallacylab --db "$FALLACYLAB_DB" queue --run 12 --json
  fallacylab --db "$FALLACYLAB_DB" queue cancel 12
  fallacylab --db "$FALLACYLAB_DB" queue retry 12`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, pg, err := openQueue(g)
			if err != nil {
				return err
			}
			defer s.Close()
			rows, err := pg.QueueTable(cmd.Context(), run)
			if err != nil {
				return err
			}
			workers, err := pg.Workers(cmd.Context(), workersAlive)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(g, queueJSON{Jobs: jobRowsJSON(rows), Workers: workersJSON(workers)})
			}
			orphans, done, err := orphanLines(cmd.Context(), s, rows)
			if err != nil {
				return err
			}
			return printQueue(g, rows, workers, run, orphans, done)
		},
	}
	cmd.Flags().Int64Var(&run, "run", 0, "only this run's jobs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(newQueueActCmd(g, "cancel", "Cancel a run's open jobs: those queued at once, those being made by interrupting their call; the run sees them failed",
		func(pg backend.Jobs, cmd *cobra.Command, id int64) (string, error) {
			queued, running, err := pg.CancelJobs(cmd.Context(), id)
			said := fmt.Sprintf("cancelled %s of run %d", plural(queued+running, "job", "jobs"), id)
			if running > 0 {
				said = fmt.Sprintf("cancelled %d queued jobs of run %d; %d being made stop when their worker hears of it (a call that ends first keeps its answer)", queued, id, running)
			}
			return said, err
		}),
		newQueueActCmd(g, "retry", "Put a run's failed jobs back in their queues: workers make them again and store the answers; run the run's command again (it resumes) to use them",
			func(pg backend.Jobs, cmd *cobra.Command, id int64) (string, error) {
				n, err := pg.RetryJobs(cmd.Context(), id)
				return fmt.Sprintf("queued %d failed jobs of run %d again", n, id), err
			}))
	return cmd
}

// newQueueActCmd is `queue cancel RUN` or `queue retry RUN`.
func newQueueActCmd(g *Global, use, short string, act func(backend.Jobs, *cobra.Command, int64) (string, error)) *cobra.Command {
	return &cobra.Command{
		Use:   use + " RUN",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return fmt.Errorf("queue %s: %q is not a run id (see fallacylab runs)", use, args[0])
			}
			s, pg, err := openQueue(g)
			if err != nil {
				return err
			}
			defer s.Close()
			if _, err := runByArg(cmd, s, args[0]); err != nil { // a mistyped id is not "0 jobs"
				return fmt.Errorf("queue %s: %w", use, err)
			}
			said, err := act(pg, cmd, id)
			if err != nil {
				return err
			}
			fmt.Fprintln(g.Stdout, said)
			return nil
		},
	}
}

// openQueue opens the store for the queue commands: a team store.
func openQueue(g *Global) (*session, backend.Jobs, error) {
	s, err := openSession(g)
	if err != nil {
		return nil, nil, err
	}
	pg, ok := s.st.(backend.Jobs)
	if !ok {
		s.Close()
		return nil, nil, fmt.Errorf("the work queue is a shared store's: --db postgres://… (runs queue their calls there with --workers 0)")
	}
	return s, pg, nil
}

// printQueue writes the queue's tables.
func printQueue(g *Global, rows []postgres.QueueRow, workers []postgres.WorkerInfo, run int64, notes []string, done map[int64]bool) error {
	if len(rows) == 0 {
		if run > 0 {
			fmt.Fprintf(g.Stdout, "run %d has no jobs in the queue\n", run)
		} else {
			fmt.Fprintln(g.Stdout, "no jobs in the queue (runs queue their calls with --workers 0)")
		}
	} else {
		tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "run\tqueue\tmodel\tqueued\trunning\tdone\tfailed")
		for _, r := range rows {
			fmt.Fprintf(tw, "%d\t%s\t%s:%s\t%d\t%d\t%d\t%d\n", r.Run, r.Queue, r.Provider, r.Model, r.Queued, r.Running, r.Done, r.Failed)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range rows {
			if r.LastError != "" {
				fmt.Fprintf(g.Stdout, "run %d, %s:%s: %d failed, the last: %s\n", r.Run, r.Provider, r.Model, r.Failed, oneLine(r.LastError, 200))
			}
			if open := r.Queued + r.Running; open > 0 && len(workers) > 0 && !done[r.Run] && !backend.Serves(workers, r.Queue) {
				fmt.Fprintf(g.Stdout, "run %d, %s:%s: %d open and none of the workers heard from serves its queue (%s)\n",
					r.Run, r.Provider, r.Model, open, postgres.SkipReasons)
			}
		}
		for _, n := range notes {
			fmt.Fprintln(g.Stdout, n)
		}
	}
	fmt.Fprintln(g.Stdout)
	if len(workers) == 0 {
		fmt.Fprintf(g.Stdout, "no worker heard from in the last %s (start one: fallacylab --db … worker)\n", workersAlive)
		return nil
	}
	fmt.Fprintf(g.Stdout, "workers heard from in the last %s:\n", workersAlive)
	tw := tabwriter.NewWriter(g.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "label\tclient id\tserves\tmaking\tstarted\tlast heartbeat")
	now := time.Now()
	for _, w := range workers {
		serves := w.Serves
		if serves == "" {
			serves = "—"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s ago\n", w.Label, w.ID, strings.ReplaceAll(serves, " ", ", "), w.Working,
			w.Started.Local().Format("2006-01-02 15:04:05"), now.Sub(w.Heartbeat).Round(time.Second))
	}
	return tw.Flush()
}

// orphanLines say, of each run with jobs open whose own process no longer
// waits for them (interrupted, killed), that the workers still make them:
// nothing uses their answers until its command runs again. Of a run that
// is done they say what its open jobs are: answered (the run had every
// answer it waited for) and not yet marked ended by River, which marks a
// job's end in batches (within a quarter second) and a dead worker's after
// its --lease. done are those runs.
func orphanLines(ctx context.Context, s *session, rows []postgres.QueueRow) ([]string, map[int64]bool, error) {
	open := map[int64]int{}
	var runs []int64
	for _, r := range rows {
		if n := r.Queued + r.Running; n > 0 {
			if _, seen := open[r.Run]; !seen {
				runs = append(runs, r.Run)
			}
			open[r.Run] += n
		}
	}
	now := time.Now()
	var out []string
	done := map[int64]bool{}
	for _, id := range runs {
		r, ok, err := s.st.Run(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		switch st := lifecycle.State(r, now); {
		case !ok || st == store.RunRunning:
		case st == store.RunDone:
			done[id] = true
			out = append(out, fmt.Sprintf("run %d is done: it has every answer it waited for, and River has not yet marked the end of %s (it marks them in batches, within a quarter second, and a dead worker's after its --lease)",
				id, plural(open[id], "job", "jobs")))
		default:
			out = append(out, fmt.Sprintf("run %d is %s, with %s open: the workers still make them, and its command run again uses their answers (fallacylab --db … queue cancel %d takes them out)",
				id, lifecycle.Describe(r, now), plural(open[id], "job", "jobs"), id))
		}
	}
	return out, done, nil
}

// printTeamProgress writes a queued run's progress through the workers
// as `runs show` shows it. A done run's open jobs are answered, their ends not yet marked by River
// (orphanLines): said so, and no queue of it is unserved.
func printTeamProgress(w io.Writer, tp *backend.TeamProgress, done bool) {
	fmt.Fprintf(w, "workers:   %d jobs queued, %d running, %d done, %d failed\n", tp.Queued, tp.Running, tp.Done, tp.Failed)
	if open := tp.Queued + tp.Running; done && open > 0 {
		fmt.Fprintf(w, "           the run has every answer it waited for: River has not yet marked the end of %s (in batches, within a quarter second; a dead worker's after its --lease)\n", plural(open, "job", "jobs"))
	}
	for _, u := range tp.Unserved {
		if !done {
			fmt.Fprintf(w, "           %s: %d open, %s\n", u.Model, u.Open, tp.Why())
		}
	}
	if b := tp.Budget; b != nil {
		state := ""
		if b.Reached {
			state = " — reached: the rest is not sent"
		}
		fmt.Fprintf(w, "budget:    $%.4f of $%.2f booked by the workers%s\n", b.Booked, b.USD, state)
	}
	fmt.Fprintln(w)
}

// oneLine is s on one line, at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// queueJSON is `queue --json`.
type queueJSON struct {
	Jobs    []jobRowJSON `json:"jobs"`
	Workers []workerJSON `json:"workers"`
}

type jobRowJSON struct {
	Run       int64  `json:"run"`
	Queue     string `json:"queue"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Queued    int    `json:"queued"`
	Running   int    `json:"running"`
	Done      int    `json:"done"`
	Failed    int    `json:"failed"`
	LastError string `json:"last_error,omitempty"`
}

type workerJSON struct {
	ID        string    `json:"id"`
	Label     string    `json:"label"`
	Serves    []string  `json:"serves"`
	Making    int       `json:"making"`
	Started   time.Time `json:"started"`
	Heartbeat time.Time `json:"heartbeat"`
}

func jobRowsJSON(rows []postgres.QueueRow) []jobRowJSON {
	out := make([]jobRowJSON, 0, len(rows))
	for _, r := range rows {
		out = append(out, jobRowJSON{r.Run, r.Queue, r.Provider, r.Model, r.Queued, r.Running, r.Done, r.Failed, r.LastError})
	}
	return out
}

func workersJSON(ws []postgres.WorkerInfo) []workerJSON {
	out := make([]workerJSON, 0, len(ws))
	for _, w := range ws {
		out = append(out, workerJSON{w.ID, w.Label, strings.Fields(w.Serves), w.Working, w.Started.UTC(), w.Heartbeat.UTC()})
	}
	return out
}
