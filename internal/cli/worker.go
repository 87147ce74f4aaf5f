package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/config"
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
		Annotations: workerAnnotations(),
		Short:       "Make the calls runs queued with --workers 0: take jobs from the shared store's River queues, call, commit, repeat",
		Long: `Takes jobs from the work queue of a shared PostgreSQL store (--db postgres://…; the queue is River's,
github.com/riverqueue/river) and calls the providers with this machine's keys and limits, answering from
the shared cache first. Each provider endpoint and model has its own queue: the worker serves those it
has a key for (and, for a run that holds a budget, a price), and says why it skips the others. A job's
answer is committed before the job is marked done, so no committed answer is ever paid for again; the
jobs of a worker that dies (silent for --lease) return to the queue at once, and another worker takes
them. Each worker process is its own River client: --name is only a label.`,
		Example: `  fallacylab --db "$FALLACYLAB_DB" worker
  fallacylab --db "$FALLACYLAB_DB" worker --until-empty --lease 1m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := runFlagsRefused(cmd); err != nil {
				return err
			}
			// A lease shorter than a second (five heartbeats) finds every
			// worker, this one too, dead between two beats.
			if lease < time.Second {
				return fmt.Errorf("--lease %s: want at least 1s (a worker beats five times in each lease; silent past it, it counts as dead and its jobs go to others)", lease)
			}
			ctx := cmd.Context()
			s, err := openWorkerSession(ctx, g)
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
			// River knows this process by a client id no other process has
			// or had: a worker restarted under the same --name (or a
			// container's host:pid again) never holds, nor finishes, the
			// jobs of the one that died.
			label := name
			name = workerInstance(name)
			opt := s.engineOptions(0) // calls are linked to their runs by the runs themselves
			opt.StoreOutage = workerStoreOutage
			opt.ReadyAhead = true // with --take twice the slots
			// The claim of a worker silent past --lease is taken over at
			// once (and its call counted as paid twice).
			opt.DeadOwner = func(ctx context.Context, owner string) bool { return pg.DeadOwner(ctx, owner, lease) }
			eng := engine.New(opt)
			serves := workerServes(s)
			say := func(f string, a ...any) {
				fmt.Fprintf(g.Stderr, "%s worker %s: "+f+"\n", append([]any{time.Now().Format("15:04:05"), name}, a...)...)
			}
			say("%s", serves.keysLine())
			for _, why := range serves.other {
				say("skips %s", why)
			}
			if len(serves.Providers) == 0 {
				return fmt.Errorf("worker %s can serve no provider: %s", name, strings.Join(serves.why, "; "))
			}
			w := &workerLoop{g: g, pg: pg, s: s, label: label, name: name, eng: eng, serves: serves, prices: s.cfg.PriceTable(),
				take: take, lease: lease, untilEmpty: untilEmpty, say: say}
			if err := w.run(ctx); err != nil {
				return err
			}
			fmt.Fprintf(g.Stdout, "worker %s: %s done, %d failed", name, plural(int(w.done.Load()), "job", "jobs"), w.failed.Load())
			if p := eng.Progress(); p.Requests > 0 { // what this machine's keys paid for
				fmt.Fprintf(g.Stdout, "; %s sent, %s in + %s out tokens, %s", plural(p.Requests, "request", "requests"),
					humanCount(p.Usage.InputTokens), humanCount(p.Usage.OutputTokens), money(p.Cost, p.Unpriced))
			}
			if n := w.handed.Load(); n > 0 {
				fmt.Fprintf(g.Stdout, ", %s handed back to the queue as it stopped", plural(int(n), "job", "jobs"))
			}
			if n := eng.Repaid(); n > 0 {
				fmt.Fprintf(g.Stdout, " (%d made again after the worker holding them died: counted as paid twice)", n)
			}
			fmt.Fprintln(g.Stdout)
			return nil
		},
	}
	cmd.Flags().DurationVar(&lease, "lease", 10*time.Second, "how long a worker may be silent (no heartbeat: it died, or lost the store) before its jobs go to others")
	// Twice the engine's concurrency ceiling (maxConcurrency): as many jobs
	// as the engine's slots make their calls (64 held one worker to 0.6×
	// one process), and as many again their cache look-ups and claims
	// meanwhile, ready for a slot (engine.Options.ReadyAhead: three
	// workers, 1,800 calls of 300 ms, 737–785 → 771–799 calls/s).
	cmd.Flags().IntVar(&take, "take", 2*maxConcurrency, "jobs of one queue taken at a time (those beyond the model's concurrency make their cache look-ups and wait for a slot)")
	cmd.Flags().BoolVar(&untilEmpty, "until-empty", false, "exit once no job this worker can serve is open and no run is between two phases; at start it waits up to 30 s for a run to queue work (default: wait for work)")
	cmd.Flags().StringVar(&name, "name", "", "this worker's label in the queue (fallacylab queue) and its messages (default host:pid; a random suffix makes each process its own River client)")
	return cmd
}

// runFlags are the engine's flags that belong to a run, not to a worker,
// and why: a worker makes the jobs runs queue as each job says (its run's
// budget, its refresh), live. Taken by a worker, they failed or stopped
// the runs it served (--dry-run and --cache only failed every job it took;
// its own --budget ended a run that had none) or did nothing (--batch).
var runFlags = []struct{ name, why string }{
	{"dry-run", "a worker takes jobs to make their calls: give --dry-run to the run's command to see what it would send and cost"},
	{"budget", "a budget is the run's: give --budget to the command that queues the calls, and the workers hold it together"},
	{"cache", "the cache mode is the run's: a run queued with --cache refresh hands it to the workers with each job, and --cache only queues nothing"},
	{"batch", "a worker makes live calls: a run with --batch sends its provider batches itself and queues nothing"},
	{"batch-size", "a worker makes live calls: a run with --batch sends its provider batches itself and queues nothing"},
	{"max-unusable", "the share of unusable answers a run bears is the run's: give --max-unusable to its command"},
	{"workers", "--workers 0 is for the command whose calls workers make"},
}

// refusesRunFlags marks a command that refuses runFlags (its help hides them).
const refusesRunFlags = "fallacylab/refuses-run-flags"

// workerAnnotations mark the worker command: it calls models, and refuses
// a run's flags.
func workerAnnotations() map[string]string {
	a := callsModels()
	a[refusesRunFlags] = "yes"
	return a
}

// runFlagsRefused refuses a run's flag given to a worker, saying whose it is.
func runFlagsRefused(cmd *cobra.Command) error {
	for _, f := range runFlags {
		if fl := cmd.Flags().Lookup(f.name); fl != nil && fl.Changed {
			return fmt.Errorf("--%s is not a worker's: %s", f.name, f.why)
		}
	}
	return nil
}

// openWorkerSession opens the store as every command does, but a
// database that does not answer (restarting: refused, reset, closed under
// the migration) or cannot take a connection now (full, recovering) is
// waited for and tried again — 1 s, doubling, at most
// storeAway between tries, for up to workerStoreOutage — so a worker
// started during a restart rides it out as running workers do. A server
// that answers with an error (a wrong password, no such database) ends it
// at once.
func openWorkerSession(ctx context.Context, g *Global) (*session, error) {
	var away, waited time.Duration
	for {
		s, err := openSession(g)
		if err == nil || !postgres.Unreachable(err) || waited >= workerStoreOutage || ctx.Err() != nil {
			return s, err
		}
		away = min(max(2*away, time.Second), storeAway)
		fmt.Fprintf(g.Stderr, "%s worker: the store %s (%v): trying again in %s\n", time.Now().Format("15:04:05"), postgres.WhyWait(err), err, away)
		sleepCtx(ctx, away)
		waited += away
	}
}

// queueRetention is how long after its run ended a finished job's row is
// kept (`runs show` reads it).
const queueRetention = time.Hour

// servable is what a worker serves, and why it skips what it does not.
type servable struct {
	Providers []string
	why       []string // "provider: reason" of each provider it skips
	keyless   []string // the providers it skips for want of a key
	other     []string // the others' "provider: reason"
}

// workerServes are the providers this worker has a key for (or needs none
// for), and why it skips the others.
func workerServes(s *session) servable {
	var out servable
	for _, p := range s.cfg.Names() {
		if _, err := s.cfg.Provider(p, nil); err != nil {
			why := fmt.Sprintf("%s: %v", p, err)
			out.why = append(out.why, why)
			if _, ok := errors.AsType[*config.MissingKeyError](err); ok {
				out.keyless = append(out.keyless, p)
			} else {
				out.other = append(out.other, why)
			}
			continue
		}
		out.Providers = append(out.Providers, p)
	}
	return out
}

// keysLine is what a worker says of its keys as it starts: the providers
// it serves, and in one line those it has no key for (each built-in
// provider it has no key for would be a line of its own otherwise); the
// variable to set is said with the first queue of such a provider that a
// run opens (discover).
func (v servable) keysLine() string {
	// "can call": a keyless local server (ollama, llama.cpp) is served
	// without a key; "has keys for" named them among the keys.
	line := "can call " + strings.Join(v.Providers, ", ") + " (a key set, or none needed)"
	if len(v.Providers) == 0 {
		line = "has no key for any provider"
	}
	if len(v.keyless) > 0 && len(v.Providers) > 0 {
		line += "; none for " + strings.Join(v.keyless, ", ") + " (their queues are skipped, saying which variable to set)"
	}
	return line
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
