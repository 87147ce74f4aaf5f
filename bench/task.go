package bench

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/view"
)

// A Task is a benchmark as its own package declares it (inspect_ai's idea:
// a dataset, the calls that solve it, the scorer; one runner runs them
// all). Its Definition names it; what else it can do it says by the small
// interfaces below it implements — a Task without a report still runs —
// and the commands are made from them: `fallacylab <name> run`, `… report`.
// Nothing outside the Task's package knows its name.
type Task interface {
	// Definition is the Task's registered benchmark: its one name (the
	// store's, the command's, the URLs'), title, summary and phases.
	Definition() *Benchmark
}

// Runs is a Task whose runs call models.
type Runs interface {
	Task
	// BindRun declares the run's options as flags and returns what makes
	// the run once they are parsed: a runner.Spec whose phases plan the
	// calls, parse the answers and store the records (under the Task's
	// record kinds, through env.Records). The runner fills in the
	// benchmark and the command line.
	BindRun(f *pflag.FlagSet) func(ctx context.Context, env Env) (runner.Spec, error)
}

// Reports is a Task that reports its stored runs.
type Reports interface {
	Task
	// BindReport declares the report's options as flags and returns what
	// makes the report of a stored run (which may not have finished: the
	// report then covers the records it holds) once they are parsed.
	BindReport(f *pflag.FlagSet) func(ctx context.Context, env Env, run store.Run) (*report.Report, error)
}

// TakesArgs is a Runs whose run takes arguments after its flags (the file
// of a prompt set); without it a run takes none.
type TakesArgs interface {
	Runs
	// RunArgs is how the run's usage line names its arguments
	// ("FILE.jsonl") and how many it takes; they reach the run as
	// Env.Args.
	RunArgs() (usage string, n int)
}

// ShowsReport is a Runs whose run shows its whole report when it ends
// (an audit's report is its result): the run command takes --format and
// --out and writes the report there, or, at a terminal without them, its
// Brief. Without it, a run at a terminal shows the report's headline and
// says how to get the whole.
type ShowsReport interface {
	Runs
	Reports
	// Brief writes what a person at a terminal reads first of a run's
	// report, ending with how to get the whole.
	Brief(ctx context.Context, env Env, run store.Run, w io.Writer) error
}

// Sweeps is a Runs one of whose flags may name several values (Missci's
// --template gen_cls/p4-*): the run command then runs a sweep of one run
// per value, as a plan file sweeping that flag would (resumable as a
// whole, priced as a whole, one table at the end).
type Sweeps interface {
	Runs
	// SweepFlag is, once the flags are parsed, the flag that may sweep and
	// the values it names (one or none: a single run).
	SweepFlag(f *pflag.FlagSet) (flag string, values []string, err error)
}

// SweepTables is a Task that compares the runs of one sweep in tables of
// its own (Missci's metrics by template), added to the sweep's report
// after its table of runs.
type SweepTables interface {
	Task
	// SweepTables adds to rep the tables comparing runs, the finished
	// runs of one entry of a sweep, in its order.
	SweepTables(ctx context.Context, env Env, runs []store.Run, rep *report.Report) error
}

// RunVerb is a Runs whose run command has a name of its own ("audit");
// "run" stays its alias.
type RunVerb interface {
	Runs
	RunVerb() string
}

// ReportsFiles is a Reports whose report can also read files (upstream's
// released outputs) instead of a stored run: when its flags name files
// the report command opens no store and picks no run; the report's
// builder is given a zero store.Run, reads the files, and names its source
// and fallacylab's version (Env.Version) in its header itself.
type ReportsFiles interface {
	Reports
	// FromFiles says, once the report's flags are parsed, whether they
	// name files to read instead of a stored run.
	FromFiles(f *pflag.FlagSet) bool
}

// HoldsRuns is a Task whose report holds a whole run's records in memory
// while it makes much short-lived garbage (a full analysis): its report
// command is annotated HoldsRun.
type HoldsRuns interface {
	Reports
	HoldsRuns()
}

// Nests is a Task whose commands live under another Task's (Scheme Foils'
// generation of new negatives: `fallacylab foils generate`, its report
// `fallacylab foils generate report`), not under its own name.
type Nests interface {
	Runs
	// Nest is the parent command and the verb the run command takes
	// there; the report is the run command's "report".
	Nest() (parent, verb string)
}

// Commandline is the command that runs a Task and the one that reports
// its runs (after `fallacylab`): "deflect run" and "deflect report",
// "foils audit", "foils generate" and "foils generate report"; run is ""
// for a Task that does not run (Runs), report for one that does not
// report.
func Commandline(t Task) (run, report string) {
	name := t.Definition().Name
	if n, ok := t.(Nests); ok {
		parent, verb := n.Nest()
		name, run = parent+" "+verb, parent+" "+verb
		if _, ok := t.(Reports); ok {
			report = name + " report"
		}
		return run, report
	}
	if _, ok := t.(Runs); ok {
		run = name + " run"
		if v, ok := t.(RunVerb); ok {
			run = name + " " + v.RunVerb()
		}
	}
	if _, ok := t.(Reports); ok {
		report = name + " report"
	}
	return run, report
}

// OwnInput is a Task whose runs read only their arguments (a prompt set's
// file): its commands take no data folder (--data-dir).
type OwnInput interface {
	Task
	OwnInput()
}

// Help is a command's help beyond what the Task's Definition says: its
// one-line summary, its long text and its examples ("": the default).
type Help struct {
	Short, Long, Example string
	// Makes is, in a report's help, the command that makes the runs it
	// reports ("": `fallacylab <name> run`), named when there is none yet.
	Makes string
}

// Helps is a Task that writes its commands' help, by verb ("run",
// "report").
type Helps interface {
	Task
	Help(verb string) Help
}

// Env is what a Task is given to make a run or a report.
type Env struct {
	// Args are the command's arguments after its flags (TakesArgs).
	Args []string
	// Records keeps the Task's records with their run, by kind.
	Records Records
	// Data is the user's data folder, where corpora whose licences allow
	// no copy live (--data-dir, $FALLACYLAB_DATA, or the user's data
	// folder); nil when there is none. DataFlag is --data-dir as it was
	// given ("" : the default), for a run whose identity has always held
	// it.
	Data     fs.FS
	DataFlag string
	// Store names the store (its path, or its URL with the password
	// masked): what caches of a run's analyses are keyed by.
	Store string
	// StoreFlag is the store as a command this one suggests must name it
	// (shell-quoted, a URL's password masked): "" where the store was not
	// chosen by --db, so that the same command line finds it again.
	StoreFlag string
	// Resamples is the bootstrap resamples a viewer's report of a run asks
	// for (0: the report's default).
	Resamples int
	// DryRun: the run is priced, never started; nothing may be written.
	DryRun bool
	// Stdout and Stderr are the command's.
	Stdout, Stderr io.Writer
	// Version is fallacylab's version, for a report that names its own
	// provenance (ReportsFiles).
	Version string
	// Stored reads the answers the store already holds, for a dry run
	// that prices a later phase from the answers of an earlier one (nil
	// where no run is made: a viewer).
	Stored StoredAnswers
}

// Command is the command line that runs fallacylab with args on this
// store, as a hint to print: "fallacylab --db STORE args" where the user
// chose the store by --db (a hint without it would read another store,
// ./fallacylab.db, whose run of the same number is another run).
func (e Env) Command(args string) string {
	if e.StoreFlag == "" {
		return "fallacylab " + args
	}
	return "fallacylab --db " + e.StoreFlag + " " + args
}

// StoredAnswers are the answers a store holds, read without calling
// anything.
type StoredAnswers interface {
	// Stored is the answer the store holds for a planned call (ok false:
	// it would be made).
	Stored(ctx context.Context, j engine.Job) (resp *llm.Response, ok bool, err error)
	// OutputTokens is the mean output tokens of the store's answers of a
	// model in a namespace, and how many there are (an estimate of the
	// length of answers still to make).
	OutputTokens(ctx context.Context, spec llm.Spec, namespace string) (mean float64, n int, err error)
}

// Records is how a Task stores and reads its records: by kind, each its
// own JSON (a kind is named after the Task: "classify/prediction").
type Records interface {
	// PutRecords replaces the run's records of one kind with recs.
	PutRecords(ctx context.Context, runID int64, kind string, recs []store.Record) error
	// PutRecordKinds replaces, in one transaction, the run's records of
	// every kind named with recs (each names its Kind): a setup and its
	// lines are written whole or not at all.
	PutRecordKinds(ctx context.Context, runID int64, kinds []string, recs []store.Record) error
	// PutRecordSet writes a set of records and their snapshots in one
	// transaction (store.RecordSet): what a Task with many records and an
	// analysis copy of them uses.
	PutRecordSet(ctx context.Context, runID int64, set store.RecordSet) error
	// RecordsByKey reads the run's records of kind with these keys.
	RecordsByKey(ctx context.Context, runID int64, kind string, keys []string, fn func(store.Record) error) error
	// Snapshot is the run's snapshot of kind in format (ok false: none).
	Snapshot(ctx context.Context, runID int64, kind string, format int) (data []byte, ok bool, err error)
	// Run is the stored run (ok false: none has that id); Runs are the
	// store's runs, newest first (a run that builds on another finds it).
	Run(ctx context.Context, id int64) (r store.Run, ok bool, err error)
	Runs(ctx context.Context) ([]store.Run, error)
	RecordReader
}

// RecordReader reads a run's records by kind, in the order they were
// written ("" : every kind).
type RecordReader interface {
	Records(ctx context.Context, runID int64, kind string, fn func(store.Record) error) error
}

var tasks = map[string]Task{}

// RegisterTask registers a Task and its Definition (as Register does) and
// returns it, for a package-level `var task = bench.RegisterTask(…)`.
func RegisterTask[T Task](t T) T {
	d := t.Definition()
	Register(d)
	mu.Lock()
	defer mu.Unlock()
	tasks[d.Name] = t
	return t
}

// TaskOf returns the Task registered under that name.
func TaskOf(name string) (Task, bool) {
	mu.RLock()
	defer mu.RUnlock()
	t, ok := tasks[name]
	return t, ok
}

// Tasks returns every registered Task, by name.
func Tasks() []Task {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Task, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, t)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Definition().Name < out[k].Definition().Name })
	return out
}

// Lists is a Task whose records the viewer lists (filtered, sorted, paged,
// exported) and shows one by one, with the call each was made from.
type Lists interface {
	Task
	// Listing says which records are listed and how each reads as a row.
	Listing() Listing
}

// Listing is a Task's list of records.
type Listing struct {
	// Kind is the record kind listed; Title names the list ("predictions").
	Kind, Title string
	// Columns name the row's cells.
	Columns []string
	// Row is a record's cells, in Columns' order.
	Row func(store.Record) ([]string, error)
	// Compared is the column two runs are compared on, record by record
	// (the predicted label; "": the runs do not compare), and Gold the
	// column that holds the right value ("": none).
	Compared, Gold string
}

// Views is a Task whose runs the viewer shows with pages of its own (a run
// page, lists and records joined to the benchmark's data, a comparison of
// two runs); a Task without it gets the generic pages (Lists).
type Views interface {
	Task
	// Templates are the Task's page templates (*.html, each defining its
	// templates by name), parsed with the viewer's layout and functions:
	// a name must not be the viewer's or another Task's.
	Templates() fs.FS
	// View loads a stored run (which may not have finished) for its pages.
	View(ctx context.Context, env Env, run store.Run) (*view.Run, error)
}

// Previews is a Views some of whose pages can answer before a run is
// loaded (view.Preview): the first page of a run of 72,000 records.
type Previews interface {
	Views
	// Previews are the pages that may answer while env's run loads.
	Previews(env Env) []view.Preview
}

// ChoicesKey is the flag annotation that lists a flag's values, for shell
// completion (Choices).
const ChoicesKey = "fallacylab/choices"

// Choices declares the values a Task's flag takes, so shell completion
// offers them (a flag of that name elsewhere may take others).
func Choices(f *pflag.FlagSet, name string, values ...string) {
	if err := f.SetAnnotation(name, ChoicesKey, values); err != nil {
		panic("bench: Choices for an undeclared flag --" + name) // a programming error
	}
}

// Compares is a Task whose runs compare item by item (fallacylab compare):
// a stored run's arms — one per model it called, or the run's one — with
// each item's outcome on the benchmark's headline metrics and the cluster
// unit its items are resampled by. The paired statistics are generic
// (package compare).
type Compares interface {
	Task
	Arms(ctx context.Context, env Env, run store.Run) ([]Arm, error)
}

// ComparesAs is a Compares some of whose runs compare with another
// benchmark's: an imported log of a fallacylab run with that benchmark's
// runs. ComparesAs names the benchmark ("": the run's own).
type ComparesAs interface {
	Compares
	ComparesAs(ctx context.Context, env Env, run store.Run) (string, error)
}

// ComparedAs is the benchmark whose runs run compares with: its own, or
// the one its Task's ComparesAs names (an imported log of a fallacylab
// run: that run's benchmark).
func ComparedAs(ctx context.Context, env Env, run store.Run) (string, error) {
	t, _ := TaskOf(run.Benchmark)
	if ca, ok := t.(ComparesAs); ok {
		b, err := ca.ComparesAs(ctx, env, run)
		if err != nil || b != "" {
			return b, err
		}
	}
	return run.Benchmark, nil
}

// Imports is a Task whose runs are made from files other tools wrote
// (fallacylab runs import --format F FILE): the run holds what the file
// says, as records, and calls no model.
type Imports interface {
	Task
	// ImportFormat is the format it reads ("inspect").
	ImportFormat() string
	// Import reads the file and returns the run that holds it: a Spec
	// with no phase whose Complete stores the records (the runner starts
	// and finishes it like any run).
	Import(ctx context.Context, env Env, file string) (runner.Spec, error)
}

// Arm is one arm of a run: the model ("" : the run's only arm) and its
// metrics, item by item.
type Arm struct {
	Model   string
	Metrics []compare.Metric
	// Design is what the arm's figures measure where runs of one
	// benchmark measure different things under one metric's name
	// (MissciPlus's "subtask 1" and "subtask 2" both have a P@1): arms of
	// two designs do not compare (SameDesign). "": the benchmark has one,
	// or an imported log does not say.
	Design string
	// Calls names, by item id, the calls whose answers the item's outcomes
	// score, in the order they were made (a MAFALDA text's sentences):
	// what an exported sample shows of its messages, answer and tokens.
	// An item without one (a detector that calls no model) exports its
	// outcomes alone.
	Calls map[string][]string
	// Judges are the models whose verdicts make the outcomes (DeflectBench's
	// judge panel; none: the outcomes are parsed from the answers).
	Judges []string
	// Answers are, by item id, what the benchmark parsed from the item's
	// answers (the label a classifier named), shown beside its outcomes.
	Answers map[string]string
	// Extra are, by item id, further scores by name beside the headline
	// metrics (each judge's rubric fields).
	Extra map[string]map[string]float64
	// Pool is how many clusters (claims, texts) a run like this one
	// draws from — the benchmark's whole set, where a pilot or --limit
	// took some — so that a plan can say when it needs more than there
	// are (0: unknown).
	Pool int
}

// SameDesign reports whether arms of designs a and b measure the same
// thing: the same design, or one unknown ("": a log exported before
// exports said it, whose arms compare as they did then).
func SameDesign(a, b string) bool { return a == "" || b == "" || a == b }

// PanelsNote says, where the runs compared were judged by different
// panels (a DeflectBench run judged again with other judges), that a
// difference may be the judges' rather than the models'; "" where one
// panel (or none) judged them all. panels are each run's Arm.Judges,
// sorted.
func PanelsNote(panels map[int64][]string) string {
	ids := slices.Sorted(maps.Keys(panels))
	if len(ids) < 2 {
		return ""
	}
	differ := false
	for _, id := range ids[1:] {
		differ = differ || !slices.Equal(panels[id], panels[ids[0]])
	}
	if !differ {
		return ""
	}
	var parts []string
	for _, id := range ids {
		parts = append(parts, fmt.Sprintf("run %d: %s", id, cmp.Or(strings.Join(panels[id], ", "), "none")))
	}
	return "the runs' outcomes come from different judge panels (" + strings.Join(parts, "; ") + "): a difference between them may be the judges', not the models'"
}

// CallsOf maps the run's records of kind, by key, to the call each names
// (records without one are left out): an Arm's Calls where its items are
// the Task's records.
func CallsOf(ctx context.Context, r RecordReader, runID int64, kind string) (map[string][]string, error) {
	out := map[string][]string{}
	err := r.Records(ctx, runID, kind, func(rec store.Record) error {
		if rec.CallKey != "" {
			out[rec.Key] = append(out[rec.Key], rec.CallKey)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("run %d: the calls of its %s records: %w", runID, kind, err)
	}
	return out, nil
}
