package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/postgres"
	"github.com/fallacylab/fallacylab/store/sqlite"

	"github.com/alessio/shellescape"
	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/internal/config"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/runner"
)

// session is what a command that calls models needs: config, store, engine options.
type session struct {
	g       *Global
	cfg     *config.Config
	st      backend.Store
	log     *slog.Logger // nil without --log
	logFile *os.File
	// created: this invocation made the SQLite file; Close removes it
	// again if it still holds nothing (a dry run, refused input).
	created string
	// runID is the run the runner last started or resumed.
	runID int64
}

// openSession loads the config and opens the store for writing: commands
// that run models, import or delete.
func openSession(g *Global) (*session, error) { return open(g, false) }

// openBrowse loads the config and opens an existing store for reading: a
// mistyped --db is an error, not a new empty store, and a store in a
// read-only file or folder can be browsed.
func openBrowse(g *Global) (*session, error) { return open(g, true) }

// storeFlagsFit refuses a store flag that the store in use has no use
// for: it would do nothing, silently.
func storeFlagsFit(g *Global) error {
	pg := backend.IsURL(g.DBPath)
	switch {
	case g.DBMaxConns > 0 && !pg:
		return fmt.Errorf("--db-max-conns caps a postgres:// store's connections; this store is a SQLite file (%s): leave it out", g.DBPath)
	case g.lockTimeoutSet && pg:
		return fmt.Errorf("--lock-timeout is how long to wait for a SQLite file's lock; a postgres:// store has none: leave it out")
	}
	return nil
}

func open(g *Global, browse bool) (*session, error) {
	cfg, err := config.Load(config.Locate(g.ConfigPath))
	if err != nil {
		return nil, err
	}
	resolveDB(g, cfg)
	if err := storeFlagsFit(g); err != nil {
		return nil, err
	}
	ctx := g.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	o := g.storeOptions(sqlite.Options{LockTimeout: g.LockTimeout, OnWait: func() {
		fmt.Fprintf(g.Stderr, "%s is locked by another process; waiting (up to %s, --lock-timeout)…\n", backend.Redact(g.DBPath), g.LockTimeout)
	}})
	var st backend.Store
	created := ""
	if browse {
		o.ReadOnly = true
		st, err = backend.Open(ctx, g.DBPath, o)
		if errors.Is(err, sqlite.ErrOldSchema) && sqlite.CanWrite(g.DBPath) {
			o.ReadOnly = false // upgrade it once, then read
			st, err = backend.Open(ctx, g.DBPath, o)
		}
	} else {
		if !backend.IsURL(g.DBPath) {
			if _, serr := os.Stat(g.DBPath); errors.Is(serr, fs.ErrNotExist) {
				created = g.DBPath
			}
		}
		st, err = backend.Open(ctx, g.DBPath, o)
		if err == nil {
			if err = takeInUnwritten(ctx, g, st); err != nil {
				st.Close()
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if g.Workers != -1 {
		_, ok := st.(backend.Team)
		switch {
		case g.Workers != 0:
			err = fmt.Errorf("--workers %d: give 0 (queue the calls for workers) or leave it out (call here)", g.Workers)
		case !ok:
			err = fmt.Errorf("--workers 0 needs a shared store: --db postgres://… (workers on other machines reach it, a SQLite file they cannot)")
		case g.Batch:
			err = fmt.Errorf("--workers 0 and --batch: workers call providers live; give one")
		case g.Concurrency > 0 || g.RPM > 0 || g.TPM > 0:
			err = fmt.Errorf("--workers 0 calls nothing here: give --concurrency, --rpm and --tpm to the workers (fallacylab worker --rpm …), where the calls are made")
		}
		if err != nil {
			st.Close()
			return nil, err
		}
	}
	s := &session{g: g, cfg: cfg, st: st, created: created}
	if g.LogPath != "" {
		f, err := os.OpenFile(g.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			st.Close()
			return nil, fmt.Errorf("--log: %w", err)
		}
		s.logFile, s.log = f, slog.New(slog.NewJSONHandler(f, nil))
	}
	return s, nil
}

func (s *session) Close() error {
	if s.logFile != nil {
		s.logFile.Close()
	}
	empty := s.created != "" && s.isEmpty()
	err := s.st.Close()
	if empty && err == nil {
		// A store this invocation made and left empty — a dry run, or
		// input refused before anything ran — is not left behind.
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(s.created + suffix)
		}
	}
	return err
}

// isEmpty reports whether the store holds no run and no call.
func (s *session) isEmpty() bool {
	ctx := s.ctxOrBackground()
	runs, err := s.st.Runs(ctx)
	if err != nil || len(runs) > 0 {
		return false
	}
	n, _, _, err := s.st.CountCallsFor(ctx, store.CallSelection{})
	return err == nil && n == 0
}

// resolveDB settles which store to use: --db, else $FALLACYLAB_DB, else db:
// in the config (relative to the config's folder), else ./fallacylab.db.
func resolveDB(g *Global, cfg *config.Config) {
	switch {
	case g.dbFrom != "":
	case g.dbFlagSet:
		g.dbFrom = "--db"
	case os.Getenv("FALLACYLAB_DB") != "":
		g.DBPath, g.dbFrom = os.Getenv("FALLACYLAB_DB"), "FALLACYLAB_DB"
	case cfg.DB != "":
		g.DBPath, g.dbFrom = cfg.DB, "db: in "+cfg.Source
		if !filepath.IsAbs(cfg.DB) && !backend.IsURL(cfg.DB) && cfg.Source != "" {
			g.DBPath = filepath.Join(filepath.Dir(cfg.Source), cfg.DB)
		}
	default:
		g.dbFrom = "the default"
	}
}

// storeFlag is the store as a hint this command prints must give --db
// (bench.Env.StoreFlag): shell-quoted (alessio/shellescape), a URL's
// password masked; "" unless the store was chosen by --db (the
// environment, the config and the default name it again for the same
// command line in the same folder).
func (g *Global) storeFlag() string {
	if !g.dbFlagSet {
		return ""
	}
	if backend.IsURL(g.DBPath) {
		return shellescape.Quote(llm.RedactURL(g.DBPath))
	}
	return shellescape.Quote(g.DBPath)
}

// command is a command line this command prints for the user to run
// next, on the same store (bench.Env.Command).
func (g *Global) command(args string) string {
	return bench.Env{StoreFlag: g.storeFlag()}.Command(args)
}

// resolver builds providers from the config; in a dry run every provider is
// engine.Offline, which cannot reach the network.
func (s *session) resolver() engine.Resolver {
	if s.g.DryRun {
		return func(name string) (llm.Provider, error) { return engine.Offline{Provider: name}, nil }
	}
	return func(name string) (llm.Provider, error) {
		// One HTTP transport per endpoint, whose idle pool covers the
		// calls in flight: connections are reused, not re-handshaken.
		lim := s.limits(name)
		return s.cfg.Provider(name, llm.NewHTTPClient(max(lim.Concurrency, lim.MaxConcurrency)))
	}
}

// maxConcurrency is how far a model's concurrency may ramp up when
// --concurrency and the config leave it unset.
var maxConcurrency = engine.Adaptive().MaxConcurrency

// checkSpecs resolves every provider up front so a missing key or unknown
// provider fails the command before any work starts.
func (s *session) checkSpecs(specs []llm.Spec) error {
	seen := map[string]bool{}
	for _, sp := range specs {
		if seen[sp.Provider] {
			continue
		}
		seen[sp.Provider] = true
		if _, err := s.cfg.Provider(sp.Provider, nil); err != nil {
			var mk *config.MissingKeyError
			if s.g.DryRun && errors.As(err, &mk) {
				// A dry run calls nothing: estimate now, set the key before the real run.
				fmt.Fprintf(s.g.Stderr, "note: %s is not set; the dry run goes on, a real run needs it\n", mk.Env)
				continue
			}
			if s.g.Workers == 0 && errors.As(err, &mk) {
				// Queued for workers: they call, with their own keys; this
				// machine needs none.
				if !s.g.Quiet {
					fmt.Fprintf(s.g.Stderr, "note: %s is not set here; the workers call %s with their own keys\n", mk.Env, sp.Provider)
				}
				continue
			}
			return err
		}
	}
	return nil
}

func (s *session) limits(provider string) engine.Limits {
	l := s.cfg.Limits[provider]
	out := engine.Limits{Concurrency: l.Concurrency, RPM: l.RPM, TPM: l.TPM}
	if s.g.Concurrency > 0 {
		out.Concurrency = s.g.Concurrency
	}
	if out.Concurrency == 0 {
		// Not set: start at engine.Adaptive's and let the engine ramp up
		// while the provider keeps up (it backs off when it pushes back).
		a := engine.Adaptive()
		out.Concurrency, out.MaxConcurrency = a.Concurrency, a.MaxConcurrency
	}
	if s.g.RPM > 0 {
		out.RPM = s.g.RPM
	}
	if s.g.TPM > 0 {
		out.TPM = s.g.TPM
	}
	return out
}

func (s *session) engine(runID int64) *engine.Engine { return engine.New(s.engineOptions(runID)) }

// engineOptions are the engine's options for the run (0: calls no run
// owns): this session's store, providers, limits, prices and budget.
func (s *session) engineOptions(runID int64) engine.Options {
	o := engine.Options{
		Store: s.st, Providers: s.resolver(), Limits: s.limits, Prices: s.cfg.PriceTable(),
		Budget: s.remainingBudget(runID), RunID: runID, CallTimeout: s.g.Timeout, MaxAttempts: s.g.MaxAttempts,
		BatchSize: s.g.BatchSize, OnBatch: s.batchNews, Log: s.log, Secrets: secrets(s.cfg), Endpoint: s.cfg.Identity,
		Cache: cacheMode(s.g.Cache), Spill: s.spill,
		Levels: s.st, // a model starts at the concurrency it last held on this store
	}
	if team, ok := s.st.(backend.Team); ok {
		// Configured rate limits, budgets and push-back hold for everyone
		// using the team store.
		o.Shared, o.SharedBudget, o.Signals = team.Team()
		// Its reads and writes of the store wait for a database that
		// refuses a connection (too many, 53300; recovering, 57P03) or
		// restarts, as a queuing run's polls for the workers' answers do
		// (they poll again) and as the workers do: ten workers filling
		// the database's connections failed 8 of a queuing run's 600 jobs
		// at their look-up, and a fast restart of PostgreSQL (about a
		// second) during a run that made its calls itself failed 822 of
		// its 1,500 jobs.
		o.StoreOutage = teamStoreOutage
		if s.g.Workers == 0 && runID != 0 {
			// The workers call; this process queues and waits, many jobs
			// at once, within the budget the workers hold together.
			o.Dispatch, o.Workers, o.Budget = team.Queue(runID, s.remainingBudget(runID), s.teamNews), dispatchInFlight, 0
		}
	}
	return o
}

// teamStoreOutage is how long a read or write of the team store may fail
// before a run's job fails.
const teamStoreOutage = 2 * time.Minute

// batchNews prints one line per batch event; batches run for minutes to
// hours, and the user should see that they move.
func (s *session) batchNews(ev engine.BatchEvent) {
	if s.g.Quiet {
		return
	}
	clear := ""
	if s.g.TTY {
		clear = "\r\033[K" // over the progress bar, which redraws itself
	}
	what := ev.Status
	switch ev.Status {
	case "ingested":
		what = fmt.Sprintf("ingested %d of %d results", ev.Results, ev.Requests)
	case "submitted":
	default:
		if ev.Waited > 0 {
			what += fmt.Sprintf(" (after %s)", ev.Waited.Round(time.Second))
		}
	}
	fmt.Fprintf(s.g.Stderr, "%s%s batch %s (%s, %d requests): %s\n", clear, time.Now().Format("15:04:05"), ev.ID, ev.Provider, ev.Requests, what)
}

// stillQueued says, of a queuing run interrupted, that the jobs it queued
// and the workers have not finished stay queued: the workers make them
// (and are paid for them), unless the run's jobs are cancelled.
func (s *session) stillQueued() {
	pg, ok := s.st.(backend.Jobs)
	if !ok || s.runID == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	q, err := pg.QueueCounts(ctx, s.runID)
	if open := q[postgres.Queued] + q[postgres.Running]; err == nil && open > 0 {
		fmt.Fprintf(s.g.Stderr, "%s this run queued stay in the queue: workers make them, and the same command run again uses their answers (fallacylab --db … queue cancel %d takes them out)\n",
			plural(open, "job", "jobs"), s.runID)
	}
}

// teamNews says what a queuing run hears of its workers (no worker alive
// serves a queue it waits on; one does again), over the progress bar as
// batchNews does; with --quiet too, as a run waiting on nobody is not
// news a quiet run may keep to itself.
func (s *session) teamNews(line string) {
	clear := ""
	if s.g.TTY {
		clear = "\r\033[K"
	}
	fmt.Fprintf(s.g.Stderr, "%s%s %s\n", clear, time.Now().Format("15:04:05"), line)
}

// snapshot is the run's configuration as stored: flags and config, no secrets
// (the config holds only the names of key variables).
func (s *session) snapshot(args []string, extra any) json.RawMessage {
	// A postgres:// URL's password never reaches the store.
	shown := make([]string, len(args))
	for i, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && backend.IsURL(v) {
			shown[i] = k + "=" + backend.Redact(v)
		} else {
			shown[i] = backend.Redact(a)
		}
	}
	cfg := s.cfg.Redacted()
	doc := map[string]any{
		"args": shown,
		"flags": map[string]any{"concurrency": s.g.Concurrency, "rpm": s.g.RPM, "tpm": s.g.TPM, "batch": s.g.Batch, "batch_size": s.g.BatchSize,
			"budget": s.g.Budget, "timeout": s.g.Timeout.String(), "max_attempts": s.g.MaxAttempts},
		"config":    cfg,
		"options":   extra,
		"base_urls": s.baseURLs(),
	}
	if s.g.sweep != nil {
		doc["plan"] = s.g.sweep.plan
	}
	b, _ := json.Marshal(doc)
	return b
}

// baseURLs are the addresses the configured endpoints' calls go to (an SDK's
// base-URL variable included), for the run's record.
func (s *session) baseURLs() map[string]string {
	out := map[string]string{}
	for _, n := range s.cfg.Names() {
		if u := s.cfg.BaseURL(n); u != "" {
			out[n] = llm.RedactURL(u)
		} else {
			out[n] = "(the SDK's default)"
		}
	}
	return out
}

// runner is the one runner of this command's runs, over the session.
func (s *session) runner() *runner.Runner {
	return runner.New(runner.Env{
		Store: s.st, Where: fmt.Sprintf("store %s (%s)", s.st.Path(), s.g.dbFrom),
		Engine: s.engine, Preflight: s.preflight,
		DryRun: s.g.DryRun, Batch: s.g.Batch, Quiet: s.g.Quiet, Stdout: s.g.Stdout, Stderr: s.g.Stderr,
		Snapshot: s.snapshot, Version: Version(), MaxUnusable: &s.g.MaxUnusable, Started: s.runBudget,
		Progress: func(e *engine.Engine) func() { return startProgress(s.g, e) },
		Summarize: func(sum engine.Summary, counts []store.PhaseCount) {
			printSummary(s.g, sum)
			printPhaseCounts(s.g, counts)
			if sum.Interrupted && s.g.Workers == 0 {
				s.stillQueued()
			}
		},
		Estimate: func(est engine.Estimate) {
			printEstimate(s.g.Stdout, est)
			if s.g.sweep != nil {
				s.g.sweep.estimates = append(s.g.sweep.estimates, est)
			}
		},
		SkipDone: s.g.sweep != nil,
		Remove: func(ctx context.Context, runID int64) error {
			_, err := s.st.DeleteRun(ctx, runID, false)
			return err
		},
		Ran: func(id int64) {
			s.runID = id
			if s.g.sweep != nil {
				s.g.sweep.runID = id
			}
		},
	})
}

// preflight resolves every provider and, with a budget, checks every price.
func (s *session) preflight(specs []llm.Spec) error {
	if err := s.checkSpecs(specs); err != nil {
		return err
	}
	if s.g.Budget > 0 {
		prices := s.cfg.PriceTable()
		for _, sp := range specs {
			if _, ok := prices.Lookup(sp); !ok {
				return fmt.Errorf("--budget needs prices: the price of %s is unknown; add it under prices: in the config", sp)
			}
		}
	}
	return nil
}

// phaseOf is a registered benchmark phase with its plan.
func phaseOf(p bench.Phase, plan engine.Plan) runner.Phase {
	return runner.Phase{Name: p.Name, Hint: p.Hint, Usable: p.Usable, Plan: plan}
}

// pick is the run a report reads: --run id, or the newest run of what (a
// benchmark title) that has is true for; one that did not finish is refused
// unless allowIncomplete. first is the command that makes such runs.
func pick(ctx context.Context, st backend.Store, b *bench.Benchmark, what string, id int64, allowIncomplete bool, has func(store.Run) bool, first string) (store.Run, error) {
	r, err := lifecycle.Pick(ctx, st, b.Name, what, id, allowIncomplete, has)
	if errors.Is(err, lifecycle.ErrNoRun) {
		return r, fmt.Errorf("no %s run in %s: run `%s` first", what, st.Path(), first)
	}
	return r, err
}

// parseSpecs parses a comma-separated list of model specs given to flag
// (llm.ParseSpecs), the error naming the flag.
func parseSpecs(flag, value string) ([]llm.Spec, error) {
	specs, err := llm.ParseSpecs(value)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	return specs, nil
}

// secrets are the values of every configured key variable and of any
// variable named like one (…_API_KEY, …_KEY, …_TOKEN): removed from every
// error text before it is stored, logged or printed.
func secrets(cfg *config.Config) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) {
		if len(v) >= 8 && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if cfg != nil {
		for _, n := range cfg.Names() {
			if env := cfg.Endpoints[n].APIKeyEnv; env != "" {
				add(os.Getenv(env))
			}
			for _, v := range llm.URLSecrets(cfg.BaseURL(n)) {
				add(v)
			}
		}
		for _, v := range llm.URLSecrets(cfg.DB) {
			add(v)
		}
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(k, "_KEY") || strings.HasSuffix(k, "_TOKEN") {
			add(v)
		}
	}
	return out
}

// cacheMode is --cache for the engine.
func cacheMode(flag string) engine.CacheMode {
	switch flag {
	case "refresh":
		return engine.CacheRefresh
	case "only":
		return engine.CacheOnly
	}
	return engine.CacheUse
}

// storeOptions are the options of a store this process opens: o for a
// SQLite file, the connection flags for a postgres:// store.
func (g *Global) storeOptions(o sqlite.Options) backend.Options {
	// Once open, the team store's writes wait for a database that restarts
	// (its phase counts, records and run's end, where the run's calls
	// wait through StoreOutage).
	return backend.Options{Options: o, PG: postgres.Options{MaxConns: g.DBMaxConns, Outage: teamStoreOutage}}
}

// dispatchInFlight is how many jobs a queuing run (--workers 0) holds
// queued at once: each waits in a goroutine of a few KiB, and the run's
// poll reads them in one query, so a phase of thousands of calls is queued
// whole and workers never wait for the run to refill the queue.
const dispatchInFlight = 8192
