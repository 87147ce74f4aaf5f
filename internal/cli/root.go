// Package cli implements the fallacylab command tree. Each file is one command
// group; commands parse flags into options and call library packages. This
// package owns terminal output: progress, TTY detection and summaries.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Global holds the flags every command accepts.
type Global struct {
	ConfigPath  string
	DBPath      string
	Concurrency int
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

	Stdout, Stderr io.Writer
	TTY            bool // stderr is a terminal: draw a progress bar
}

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// NewRoot builds the command tree writing to the given streams.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	g := &Global{Stdout: stdout, Stderr: stderr}
	if f, ok := stderr.(*os.File); ok {
		g.TTY = term.IsTerminal(int(f.Fd()))
	}
	root := &cobra.Command{
		Use:   "fallacylab",
		Short: "Run LLM fallacy benchmarks end to end: prompts, model calls, judges, statistics, reports",
		Long: `fallacylab runs three published fallacy benchmarks — DeflectBench, Scheme Foils and Missci —
on OpenAI, Anthropic, Gemini and any OpenAI-compatible server, with a content-addressed cache,
resume after a crash, batch APIs, rate limits and cost accounting.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&g.ConfigPath, "config", "", "config file (default ./fallacylab.yaml, then $XDG_CONFIG_HOME/fallacylab/fallacylab.yaml)")
	pf.StringVar(&g.DBPath, "db", "fallacylab.db", "SQLite store of runs, cached calls and labels")
	pf.IntVar(&g.Concurrency, "concurrency", 0, "concurrent calls per provider (default from config, else 8)")
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
	pf.Float64Var(&g.MaxUnusable, "max-unusable", lifecycle.DefaultMaxUnusable, "share of a phase's answers per model that may be unparsable before the run fails (exit 4); negative: no limit")

	root.AddCommand(newVersionCmd(g), newModelsCmd(g), newAskCmd(g), newCacheCmd(g), newRunsCmd(g),
		newPromptsCmd(g), newSelftestCmd(g), newDeflectCmd(g), newFoilsCmd(g), newDataCmd(g), newViewCmd(g), newMissciCmd(g))
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
	root := NewRoot(os.Stdout, os.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "fallacylab:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var le *lifecycle.ExitError
	if errors.As(err, &le) {
		return le.Code
	}
	return 1
}
