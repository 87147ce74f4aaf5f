package bench

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
)

// Commands is a Task with commands of its own beyond run and report (an
// import, a baseline, a sweep), made over the Host the command line gives
// it — gh's factory: a command holds its options and asks the Host for the
// store, the runner and the report writer when it runs.
type Commands interface {
	Task
	Commands(h Host) []*cobra.Command
}

// Host is what the command line gives a Task's own commands.
type Host interface {
	// Open opens the store: for writing (a command that runs models,
	// imports or deletes) or only for reading (a report: a mistyped --db
	// is an error, not a new store).
	Open(ctx context.Context, write bool) (Session, error)
	// Settings are the global flags every command honours.
	Settings() Settings
	// WriteReport renders rep in format (md, csv, json, tex or html) to
	// out: "" or "-" is stdout, a folder gets one file per table (csv) or
	// report.<format>; a file is written whole or not at all.
	WriteReport(rep *report.Report, format, out string) error
	// Version is fallacylab's version, for a report's provenance.
	Version() string
	// DataDir is the user's data folder: the --data-dir flag's value,
	// else $FALLACYLAB_DATA, else the XDG data folder ("" : none).
	DataDir(flag string) string
}

// Settings are the global flags.
type Settings struct {
	// DryRun prices a run and calls nothing.
	DryRun bool
	// MaxUnusable is the share of unusable answers a phase may have.
	MaxUnusable float64
	// Stdout and Stderr are the command's; StdoutTTY says a person reads
	// stdout (a terminal), not a program.
	Stdout, Stderr io.Writer
	StdoutTTY      bool
	// Quiet asks for no progress output (--quiet).
	Quiet bool
}

// Session is an open store and what runs over it; Close it when done.
type Session interface {
	// Env is what a run or a report of the Task is given (dataDir: the
	// --data-dir flag, "" for the default).
	Env(dataDir string) Env
	// Run runs spec through the one runner (its Benchmark and, when
	// empty, its Args are filled in).
	Run(ctx context.Context, spec runner.Spec) (runner.Result, error)
	// Close closes the store.
	Close() error
}

// Run is the phase with its plan, for the runner.
func (p Phase) Run(plan engine.Plan) runner.Phase {
	return runner.Phase{Name: p.Name, Hint: p.Hint, Usable: p.Usable, Plan: plan}
}

// CallsModelsKey is the command annotation of a command that calls models
// (or, in a dry run, prices them): the engine's flags (--concurrency,
// --budget, --dry-run …) mean something only to such commands.
const CallsModelsKey = "fallacylab/calls-models"

// CallsModels is the Annotations of a command that calls models.
func CallsModels() map[string]string { return map[string]string{CallsModelsKey: "yes"} }

// HoldsRunKey is the command annotation of a command that holds a whole
// run's records in memory while it makes much short-lived garbage (an
// import, a full analysis): the CLI runs the garbage collector at a lower
// target for it (see internal/cli's gcPercent).
const HoldsRunKey = "fallacylab/holds-run"

// HoldsRun is the Annotations of a command that holds a whole run.
func HoldsRun() map[string]string { return map[string]string{HoldsRunKey: "yes"} }
