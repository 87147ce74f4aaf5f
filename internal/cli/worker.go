package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/backend"
	"github.com/fallacylab/fallacylab/store/postgres"
	"github.com/spf13/cobra"
)

func newWorkerCmd(g *Global) *cobra.Command {
	var lease time.Duration
	var take int
	var untilEmpty bool
	var name string
	cmd := &cobra.Command{
		Use:         "worker",
		Annotations: callsModels(),
		Short:       "Make the calls runs queued with --workers 0: lease jobs from the shared store, call, commit, repeat",
		Long: `Takes jobs from the work queue of a shared PostgreSQL store (--db postgres://…) and calls the
providers with this machine's keys and limits, answering from the shared cache first. A job's answer is
committed before the job is marked done, so no committed answer is ever paid for again; the jobs of a
worker that dies return to the queue when its lease runs out (--lease), and another worker takes them.`,
		Example: `  fallacylab --db "$FALLACYLAB_DB" worker
  fallacylab --db "$FALLACYLAB_DB" worker --until-empty --lease 1m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, err := openSession(g)
			if err != nil {
				return err
			}
			defer s.Close()
			pg, ok := s.st.(backend.Jobs)
			if !ok {
				return fmt.Errorf("fallacylab worker needs the shared store the runs queue their jobs in: --db postgres://…")
			}
			if name == "" {
				host, _ := os.Hostname()
				name = fmt.Sprintf("%s:%d", host, os.Getpid())
			}
			// The queue knows this process by a name no other process has
			// or had: a worker restarted under the same --name (or a
			// container's host:pid again) never renews, nor finishes, the
			// leases of the one that died.
			name = workerInstance(name)
			eng := s.engine(0) // calls are linked to their runs by the runs themselves
			serves := workerServes(s)
			say := func(f string, a ...any) {
				fmt.Fprintf(g.Stderr, "%s worker %s: "+f+"\n", append([]any{time.Now().Format("15:04:05"), name}, a...)...)
			}
			say("serves %s", strings.Join(serves.Providers, ", "))
			for _, why := range serves.why {
				say("skips %s", why)
			}
			if len(serves.Providers) == 0 {
				return fmt.Errorf("worker %s can serve no provider: %s", name, strings.Join(serves.why, "; "))
			}
			prices := s.cfg.PriceTable()
			// Keep the leases alive while the calls take their time.
			renew, stop := context.WithCancel(ctx)
			defer stop()
			go func() {
				t := time.NewTicker(lease / 3)
				defer t.Stop()
				for {
					select {
					case <-renew.Done():
						return
					case <-t.C:
						pg.Renew(context.WithoutCancel(renew), name, lease)
					}
				}
			}()
			// Finished runs' rows go, an hour after the run ended, checked by
			// every worker once a minute (a million done jobs were 650 MB).
			var pruned time.Time
			prune := func() {
				if time.Since(pruned) < time.Minute {
					return
				}
				pruned = time.Now()
				if n, err := pg.PruneQueue(ctx, queueRetention); err == nil && n > 0 && !g.Quiet {
					say("pruned %d finished jobs of runs that ended over %s ago", n, queueRetention)
				}
			}
			done, failed := 0, 0
			for ctx.Err() == nil {
				prune()
				leases, err := pg.Lease(ctx, name, take, lease, serves.Serves)
				if err != nil {
					return err
				}
				if len(leases) == 0 {
					if untilEmpty {
						// Empty is no open job and no run still queuing: a run
						// between two phases (generations done, judgements not
						// yet queued) has none open, and is not done.
						open, err := pg.OpenJobs(ctx)
						if err != nil {
							return err
						}
						runs, err := pg.QueuingRuns(ctx)
						if err != nil {
							return err
						}
						if open == 0 && runs == 0 {
							break
						}
					}
					sleepCtx(ctx, 300*time.Millisecond)
					continue
				}
				var jobs []engine.Job
				for _, l := range leases {
					// A job this worker cannot make for a reason of its own
					// goes back to the queue for another, never failed for
					// the run, and this worker takes no more like it.
					pm := l.Job.Spec.Provider + ":" + l.Job.Spec.Model
					why := ""
					if k := eng.Place(l.Job).Key(); k != l.Key {
						// This machine names the endpoint otherwise: its answer
						// would be stored under another key.
						why = fmt.Sprintf("%s: it reaches %s at another endpoint than the run's machine (check base_url / cache_as in its config)", pm, l.Job.Spec.Provider)
					} else if _, priced := prices.Lookup(l.Job.Spec); l.Job.Budget != "" && !priced {
						why = fmt.Sprintf("%s: the run holds a budget and this worker's config has no price for the model (prices: in its config)", pm)
					}
					if why != "" {
						if err := pg.HandBack(context.WithoutCancel(ctx), name, l.Key); err != nil {
							return err
						}
						if !slices.Contains(serves.Except, pm) {
							serves.Except = append(serves.Except, pm)
							say("skips %s", why)
						}
						continue
					}
					jobs = append(jobs, l.Job)
				}
				if _, err := eng.Run(ctx, engine.SlicePlan("worker", jobs), func(r engine.Result) {
					if err := pg.Finish(context.WithoutCancel(ctx), name, r.Key, r.Err); err == nil {
						if r.Err != nil {
							failed++
						} else {
							done++
						}
					}
				}); err != nil && ctx.Err() == nil {
					return err
				}
				if !g.Quiet {
					fmt.Fprintf(g.Stderr, "%s worker %s: %d jobs done, %d failed\n", time.Now().Format("15:04:05"), name, done, failed)
				}
			}
			fmt.Fprintf(g.Stdout, "worker %s: %d jobs done, %d failed\n", name, done, failed)
			return nil
		},
	}
	cmd.Flags().DurationVar(&lease, "lease", 30*time.Second, "how long a leased job is this worker's before others may take it (renewed while it works)")
	cmd.Flags().IntVar(&take, "take", 64, "jobs leased at a time")
	cmd.Flags().BoolVar(&untilEmpty, "until-empty", false, "exit once no job is queued or leased and no run that queues jobs is still running (default: wait for work)")
	cmd.Flags().StringVar(&name, "name", "", "this worker's label in the queue and its messages (default host:pid; a random suffix makes each process its own)")
	return cmd
}

// queueRetention is how long after its run ended a finished job's row is
// kept (`runs show` reads it).
const queueRetention = time.Hour

// servable is what a worker serves, and why it skips what it does not.
type servable struct {
	postgres.Serves
	why []string
}

// workerServes are the providers this worker has a key for (or needs none
// for), and why it skips the others.
func workerServes(s *session) servable {
	var out servable
	for _, p := range s.cfg.Names() {
		if _, err := s.cfg.Provider(p, nil); err != nil {
			out.why = append(out.why, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		out.Providers = append(out.Providers, p)
	}
	return out
}

// workerInstance is the queue's name of this worker process: its label
// and a random suffix.
func workerInstance(label string) string {
	var b [6]byte
	rand.Read(b[:])
	return label + "#" + hex.EncodeToString(b[:])
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
