// Package cli implements the fallacylab command tree. Each file is one command
// group; commands parse flags into options and call library packages. This
// package owns terminal output: progress, TTY detection and summaries.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/outfile"

	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// Global holds the flags every command accepts.
type Global struct {
	ConfigPath  string
	DBPath      string
	budgetSet   bool // --budget was given (a resumed run otherwise keeps its own)
	Concurrency int
	// Workers 0 hands every call of a run to `fallacylab worker`
	// processes sharing a PostgreSQL store; -1 (default) calls here.
	Workers     int
	RPM, TPM    float64
	Batch       bool
	BatchSize   int
	LogPath     string
	DryRun      bool
	Budget      float64
	Timeout     time.Duration
	MaxAttempts int
	Quiet       bool
	MaxUnusable float64
	LockTimeout time.Duration
	// DBMaxConns caps a postgres:// store's connections (--db-max-conns).
	DBMaxConns int
	Cache      string

	ctx       context.Context // the running command's, for opening the store
	dbFlagSet bool            // --db was given
	// lockTimeoutSet: --lock-timeout was given (a SQLite file's; a
	// postgres:// store refuses it, as a SQLite file --db-max-conns).
	lockTimeoutSet bool
	dbFrom         string // where the store's path came from, once resolved

	Stdout, Stderr io.Writer
	TTY            bool // stderr is a terminal: draw a progress bar
	StdoutTTY      bool // stdout is a terminal: a person reads it, not a program
	// termWidth is stderr's terminal's width now (0: unknown, or not a
	// terminal): a redrawn progress line must fit in it, or each redraw
	// leaves its wrapped end behind ("answere" / "d").
	termWidth func() int
	// sweep is set on the commands a plan file runs (fallacylab run
	// FILE.yaml): each run's command line, and what the sweep is told.
	sweep *sweepHooks
}

// commandLine is the command line stored with a run: the process's, or
// the plan file's line for this run.
func (g *Global) commandLine() []string {
	if g.sweep != nil {
		return g.sweep.args
	}
	return os.Args[1:]
}

// NewRoot builds the command tree writing to the given streams.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &Global{Stdout: stdout, Stderr: stderr}
	if f, ok := stderr.(*os.File); ok {
		g.TTY = term.IsTerminal(int(f.Fd()))
		g.termWidth = func() int {
			w, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return w
		}
	}
	if f, ok := stdout.(*os.File); ok {
		g.StdoutTTY = term.IsTerminal(int(f.Fd()))
	}
	return newRoot(g)
}

// newRoot builds the command tree of g (a plan file's runs each get their
// own, with g's streams).
func newRoot(g *Global) *cobra.Command {
	stdout, stderr := g.Stdout, g.Stderr
	root := &cobra.Command{
		Use:   "fallacylab",
		Short: "Run LLM fallacy benchmarks end to end: prompts, model calls, judges, statistics, reports",
		Long: "fallacylab runs fallacy benchmarks — " + benchmarkTitles() + ` —
on OpenAI, Anthropic, Gemini and any OpenAI-compatible server, with a content-addressed cache,
resume after a crash, batch APIs, rate limits and cost accounting.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version(),
	}
	root.SetVersionTemplate("fallacylab {{.Version}}\n")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		g.ctx = cmd.Context()
		setGCPercent(cmd)
		g.dbFlagSet = cmd.Flags().Changed("db")
		g.budgetSet = cmd.Flags().Changed("budget")
		g.lockTimeoutSet = cmd.Flags().Changed("lock-timeout")
		if err := checkFlags(cmd); err != nil {
			return err
		}
		if err := formatFromOut(cmd); err != nil {
			return err
		}
		return engineFlagsUnused(cmd)
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&g.ConfigPath, "config", "", "config file (default ./fallacylab.yaml, then $XDG_CONFIG_HOME/fallacylab/fallacylab.yaml)")
	pf.StringVar(&g.DBPath, "db", "fallacylab.db", "store of runs, cached calls and records: a SQLite file, or a postgres:// URL for a shared team store (else $FALLACYLAB_DB, else db: in the config, else ./fallacylab.db)")
	g.Workers = -1
	pf.Var((*workersFlag)(&g.Workers), "workers", "0: call nothing here — queue every call for worker processes (fallacylab worker) on a shared postgres:// store and wait for them (default: call here)")
	pf.IntVar(&g.Concurrency, "concurrency", 0, "concurrent calls per model, fixed (default from config, else adaptive: from 32 up to 128 while the provider keeps up)")
	pf.Float64Var(&g.RPM, "rpm", 0, "requests per minute per provider (0: config or unlimited)")
	pf.Float64Var(&g.TPM, "tpm", 0, "tokens per minute per provider (0: config or unlimited)")
	pf.BoolVar(&g.Batch, "batch", false, "use the providers' batch APIs (cheaper, slower; resumable)")
	pf.IntVar(&g.BatchSize, "batch-size", 2000, "with --batch: requests per provider batch (one model each)")
	pf.StringVar(&g.LogPath, "log", "", "append a JSON line per retry, failed job and batch event to this file")
	pf.BoolVar(&g.DryRun, "dry-run", false, "print jobs, cache hits, estimated tokens and cost; call nothing")
	pf.Float64Var(&g.Budget, "budget", 0, "stop issuing calls before spend would pass this many USD (0: no limit)")
	pf.DurationVar(&g.Timeout, "timeout", 2*time.Minute, "time limit of one model call")
	pf.IntVar(&g.MaxAttempts, "max-attempts", 6, "attempts per call before giving up on retryable errors")
	pf.BoolVar(&g.Quiet, "quiet", false, "no progress output")
	pf.StringVar(&g.Cache, "cache", "use", "use (answer from the cache, call the rest), refresh (call everything again; new answers replace stored ones) or only (answer from the cache alone, send nothing)")
	pf.DurationVar(&g.LockTimeout, "lock-timeout", 30*time.Second, "how long to wait while another process holds the store's lock")
	pf.IntVar(&g.DBMaxConns, "db-max-conns", 0, "a postgres:// store: the most connections this process holds (default: the URL's pool_max_conns, else 8; N workers use N × this of the server's max_connections)")
	pf.Float64Var(&g.MaxUnusable, "max-unusable", lifecycle.DefaultMaxUnusable, "share of a phase's answers per model that may be unparsable before the run fails (exit 4); negative: no limit")

	root.AddCommand(newVersionCmd(g), newModelsCmd(g), newAskCmd(g), newCacheCmd(g), newRunsCmd(g),
		newSelftestCmd(g), newDataCmd(g), newViewCmd(g), newStudyCmd(g), newStoreCmd(g), newWorkerCmd(g), newQueueCmd(g), newCompareCmd(g), newPlanCmd(g), newRunPlanCmd(g))
	root.AddCommand(taskCmds(g, root)...)
	strictGroups(root)
	plainArgErrors(root)
	helpWithoutEngineFlags(root)
	completeValues(root, g)
	return root
}

// Main runs the CLI with os.Args and returns the process exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills at once
	}()
	defer stop()
	if path := os.Getenv("FALLACYLAB_CPUPROFILE"); path != "" {
		if done, err := startCPUProfile(path); err != nil {
			fmt.Fprintln(os.Stderr, "fallacylab:", err)
		} else {
			defer done()
		}
	}
	if path := os.Getenv("FALLACYLAB_TRACE"); path != "" {
		if done, err := startTrace(path); err != nil {
			fmt.Fprintln(os.Stderr, "fallacylab:", err)
		} else {
			defer done()
		}
	}
	if path := os.Getenv("FALLACYLAB_MEMPROFILE"); path != "" {
		defer writeMemProfile(path)
	}
	root := NewRoot(os.Stdout, os.Stderr)
	err := unknownLeadingFlag(root, os.Args[1:])
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "fallacylab:", llm.Redact(err.Error(), secrets(nil)...))
	var le *lifecycle.ExitError
	if errors.As(err, &le) {
		return le.Code
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return lifecycle.ExitInterrupted
	}
	return 1
}

// strictGroups makes every command group (a command with subcommands and no
// action of its own) refuse an unknown subcommand with suggestions, exit 1,
// instead of printing its help and exiting 0; with no arguments it still
// prints its help.
func strictGroups(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		strictGroups(c)
	}
	if cmd.HasParent() && cmd.HasSubCommands() && cmd.Run == nil && cmd.RunE == nil {
		cmd.Args = cobra.ArbitraryArgs
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
			if c.SuggestionsMinimumDistance <= 0 {
				c.SuggestionsMinimumDistance = 2
			}
			if s := c.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
			}
			return fmt.Errorf("%s\nRun '%s --help' for its commands", msg, c.CommandPath())
		}
	}
}

// argCount is cobra's wording of a wrong number of arguments.
var argCount = regexp.MustCompile(`^(?:requires at least|accepts at most|accepts between|accepts) .*arg\(s\)`)

// plainArgErrors words the argument errors of cobra's validators in the
// command's terms: a leaf command given a word (cobra.NoArgs: `unknown
// command "extra" for "fallacylab missci run"`, as if it were a misspelt
// subcommand) says it takes none and that its options are flags; a wrong
// number ("requires at least 1 arg(s), only received 0") says what its
// usage line takes.
func plainArgErrors(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		plainArgErrors(c)
	}
	valid := cmd.Args
	if valid == nil || cmd.HasSubCommands() {
		return
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		err := valid(c, args)
		switch {
		case err == nil:
			return nil
		case strings.HasPrefix(err.Error(), "unknown command") && len(args) > 0:
			return fmt.Errorf("%s takes no arguments, and was given %q: its options are flags (%s --help lists them)", c.CommandPath(), args[0], c.CommandPath())
		case argCount.MatchString(err.Error()):
			return fmt.Errorf("%s was given %s: its usage is %s (%s --help)", c.CommandPath(), plural(len(args), "argument", "arguments"), c.UseLine(), c.CommandPath())
		}
		return err
	}
}

// flagRange is the allowed range of a numeric flag, wherever a command has it.
type flagRange struct {
	name     string
	min, max float64 // inclusive
	open     bool    // min itself is not allowed (> min)
	openMax  bool    // max itself is not allowed (< max)
	what     string  // the allowed range, for the message
}

// flagRanges are checked on every command before it runs: an out-of-range
// value is a usage error naming the flag, never silently replaced.
var flagRanges = []flagRange{
	{name: "samples", min: 1, max: math.Inf(1), what: "at least 1"},
	{name: "temperature", min: 0, max: 2, what: "0 to 2"},
	{name: "judge-temperature", min: 0, max: 2, what: "0 to 2"},
	{name: "max-tokens", min: 0, max: math.Inf(1), what: "0 (provider default) or more"},
	{name: "resamples", min: 1, max: math.Inf(1), what: "at least 1"},
	{name: "permutations", min: 1, max: math.Inf(1), what: "at least 1"},
	{name: "concurrency", min: 0, max: math.Inf(1), what: "0 (config or default) or more"},
	{name: "rpm", min: 0, max: math.Inf(1), what: "0 (no limit) or more"},
	{name: "tpm", min: 0, max: math.Inf(1), what: "0 (no limit) or more"},
	{name: "max-attempts", min: 1, max: math.Inf(1), what: "at least 1"},
	{name: "budget", min: 0, max: math.Inf(1), what: "0 (no limit) or more USD"},
	{name: "batch-size", min: 1, max: math.Inf(1), what: "at least 1"},
	{name: "max-unusable", min: math.Inf(-1), max: 1, what: "a share up to 1 (negative: no limit)"},
	{name: "limit", min: 0, max: math.Inf(1), what: "0 (all) or more"},
	{name: "n", min: 0, max: math.Inf(1), what: "0 (all) or more"},
	{name: "jobs", min: 1, max: math.Inf(1), what: "at least 1"},
	// A test's level and power are shares strictly inside (0, 1): --alpha
	// 0 was read as the default 0.05, and 1.5 called every pair different.
	{name: "alpha", min: 0, max: 1, open: true, openMax: true, what: "a level between 0 and 1, e.g. 0.05"},
	{name: "power", min: 0, max: 1, open: true, openMax: true, what: "a power between 0 and 1, e.g. 0.8"},
	{name: "run", min: 0, max: math.Inf(1), what: "a run id (fallacylab runs lists them)"},
	{name: "max-items", min: 0, max: math.Inf(1), what: "the number of items the benchmark has (0: no limit)"},
	// River refuses a queue of no workers: a worker said the store did not
	// answer, and tried again forever.
	{name: "take", min: 1, max: math.Inf(1), what: "at least 1 job of a queue at a time"},
	{name: "db-max-conns", min: 0, max: math.Inf(1), what: "0 (the URL's, else 8) or more"},
	{name: "per-type", min: 0, max: math.Inf(1), what: "0 (use --n) or more"},
	{name: "sample", min: 0, max: math.Inf(1), what: "0 or more"},
	// deflect synth's probabilities.
	{name: "soft-flip", min: 0, max: 1, what: "a probability from 0 to 1"},
	{name: "error-rate", min: 0, max: 1, what: "a share from 0 to 1"},
	{name: "judge-noise", min: 0, max: 1, what: "a probability from 0 to 1"},
	{name: "parse-errors", min: 0, max: 1, what: "a share from 0 to 1"},
}

// callsModels are the annotations of a command that sends model calls (or,
// in a dry run, prices them): the engine's flags mean something only to
// such commands. A command says so itself (Annotations: callsModels); no
// list elsewhere names it.
func callsModels() map[string]string { return bench.CallsModels() }

const callsModelsKey = bench.CallsModelsKey

// sendsCalls reports whether cmd is annotated as a model-calling command.
func sendsCalls(cmd *cobra.Command) bool { return cmd.Annotations[callsModelsKey] != "" }

// engineFlags are the global flags that only model-calling commands use.
var engineFlags = []string{"workers", "concurrency", "rpm", "tpm", "batch", "batch-size", "log", "dry-run", "budget", "timeout", "max-attempts", "max-unusable", "cache"}

// engineFlagsUnused refuses an engine flag given to a command that calls no
// model (it would do nothing, silently).
func engineFlagsUnused(cmd *cobra.Command) error {
	if sendsCalls(cmd) {
		return nil
	}
	for _, name := range engineFlags {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			return fmt.Errorf("--%s does nothing for `%s`, which calls no model: leave it out", name, cmd.CommandPath())
		}
	}
	return nil
}

// helpWithoutEngineFlags hides the engine's global flags from the help of a
// command that calls no model.
func helpWithoutEngineFlags(root *cobra.Command) {
	def := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		var hide []string
		if !sendsCalls(cmd) && cmd.HasParent() {
			hide = engineFlags
		}
		if cmd.Annotations[refusesRunFlags] != "" {
			for _, f := range runFlags {
				hide = append(hide, f.name)
			}
		}
		for _, name := range hide {
			if f := root.PersistentFlags().Lookup(name); f != nil && !f.Hidden {
				f.Hidden = true
				defer func() { f.Hidden = false }()
			}
		}
		def(cmd, args)
	})
}

// checkFlags applies flagRanges and the timeout to the command about to run.
func checkFlags(cmd *cobra.Command) error {
	for _, r := range flagRanges {
		f := cmd.Flags().Lookup(r.name)
		if f == nil {
			continue
		}
		v, err := strconv.ParseFloat(f.Value.String(), 64)
		if err != nil {
			continue // not numeric here; pflag has checked its syntax
		}
		// NaN compares false with every bound (a --budget of NaN would
		// never stop), and no count or share is infinite.
		if math.IsNaN(v) || math.IsInf(v, 0) || v < r.min || v > r.max || (r.open && v == r.min) || (r.openMax && v == r.max) {
			return fmt.Errorf("--%s %s: want %s", r.name, f.Value.String(), r.what)
		}
	}
	// A --data-dir that is no folder is a typo: a command whose data is
	// embedded went on without a word, and one whose data is not said only
	// that a file was missing from "the data folder".
	if f := cmd.Flags().Lookup("data-dir"); f != nil && f.Changed && !dirExists(f.Value.String()) {
		return fmt.Errorf("--data-dir %s: no such folder", f.Value.String())
	}
	for _, name := range []string{"out", "out-dir"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			if err := outfile.Check(name, f.Value.String()); err != nil {
				return err
			}
		}
	}
	if f := cmd.Flags().Lookup("cache"); f != nil {
		switch f.Value.String() {
		case "use", "refresh", "only":
		default:
			return fmt.Errorf("--cache %q: use use, refresh or only", f.Value.String())
		}
	}
	if f := cmd.Flags().Lookup("lock-timeout"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d <= 0 {
			return fmt.Errorf("--lock-timeout %s: want a positive duration, e.g. 30s", f.Value.String())
		}
	}
	if f := cmd.Flags().Lookup("timeout"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d <= 0 {
			return fmt.Errorf("--timeout %s: want a positive duration, e.g. 2m", f.Value.String())
		}
	}
	return nil
}

// benchmarkTitles lists the registered Tasks' titles, for the help.
func benchmarkTitles() string {
	var titles []string
	for _, t := range bench.Tasks() {
		_, runs := t.(bench.Runs)
		_, cmds := t.(bench.Commands)
		if runs || cmds { // not what other tools' files are imported as
			titles = append(titles, t.Definition().Title)
		}
	}
	sort.Strings(titles)
	if len(titles) < 2 {
		return strings.Join(titles, "")
	}
	return strings.Join(titles[:len(titles)-1], ", ") + " and " + titles[len(titles)-1]
}

// unknownLeadingFlag names a flag before the command that fallacylab does
// not have (--no-cache deflect run): cobra would take the command's name
// for the flag's value and report an unknown command instead.
func unknownLeadingFlag(root *cobra.Command, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return nil
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f *pflag.Flag
		if strings.HasPrefix(a, "--") {
			if f = root.PersistentFlags().Lookup(name); f == nil {
				f = root.Flags().Lookup(name)
			}
			if f == nil && (name == "help" || name == "version") { // cobra adds these two as it runs
				continue
			}
		} else if len(name) == 1 {
			if f = root.PersistentFlags().ShorthandLookup(name); f == nil && name == "h" {
				continue
			}
		}
		if f == nil {
			return fmt.Errorf("unknown flag %s: see fallacylab --help for the flags given before a command (--cache refresh or --cache only, not --no-cache)", a)
		}
		if !hasValue && f.NoOptDefVal == "" {
			i++ // its value, which may start with - (--concurrency -3)
		}
	}
	return nil
}

// workersFlag is --workers: an int whose default (-1, "call here") the
// help leaves to the flag's own words rather than print as "(default -1)".
type workersFlag int

func (w *workersFlag) String() string {
	if *w < 0 {
		return ""
	}
	return strconv.Itoa(int(*w))
}

func (w *workersFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	*w = workersFlag(n)
	return nil
}

func (w *workersFlag) Type() string { return "int" }
