// Package store holds what every fallacylab store keeps — runs, the
// content-addressed call cache, phase counts, records, pending provider
// batches — as plain types, and the Store interface a store implementation
// offers. Users declare the smaller interfaces they need (engine.Store,
// lifecycle.Store); store/sqlite is the embedded implementation and
// store/storetest the conformance suite every implementation passes.
package store

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

// Batch statuses in the store.
const (
	// BatchSubmitting: recorded before the provider is asked, under the
	// client's token; if the answer never comes, a later run looks the
	// token up with the provider before submitting anything again.
	BatchSubmitting = "submitting"
	BatchSubmitted  = "submitted"
	BatchIngested   = "ingested"
	BatchFailed     = "failed"
)

// BatchItem is one job inside a provider batch.
type BatchItem struct {
	Key       string
	Namespace string
	Model     string
	Request   json.RawMessage
}

// Batch is a provider batch known to the store.
type Batch struct {
	ID       string
	Provider string
	Status   string
	Items    []BatchItem
}

// Call is one cached model call.
type Call struct {
	Key       string
	Namespace string
	Provider  string
	Model     string
	Request   json.RawMessage // the job's canonical request JSON
	Response  *llm.Response   // nil when Status is "error"
	Status    string          // "ok" or "error"
	Error     string
	Attempts  int
	Usage     llm.Usage
	Cost      *float64 // nil: price unknown
	Latency   time.Duration
	BatchID   string
	CreatedAt time.Time
	// Replace, on a put, replaces a stored answer (--cache refresh); by
	// default a stored answer is never replaced.
	Replace bool `json:"-"`
	// RunID and Job, on a put, also link the call to that run in the same
	// write (0: not linked), as LinkRun would: one commit per answer.
	RunID int64  `json:"-"`
	Job   string `json:"-"`
	// Owner, on a put, is the process that sent the call (its claim and
	// sent marks are Owner's): the attempts other processes sent at the key
	// and never stored count in this outcome's, at its cost, and its own
	// count in an answer stored first ("": a call with no marks).
	Owner string `json:"-"`
}

// Call status values.
const (
	StatusOK    = "ok"
	StatusError = "error"
)

// Label is a derived value attached to a call within a run: a judge's parsed
// rubric, a parsed prediction, a parse error.
type Label struct {
	RunID  int64
	Key    string // call key
	Kind   string // e.g. "judge", "prediction"
	Source string // e.g. the judge model spec
	Value  json.RawMessage
}

// PhaseCount is what one phase of a run did for one model.
type PhaseCount struct {
	Seq      int // phase order within the run
	Phase    string
	Model    string
	Jobs     int
	Answered int // with an answer, from the cache included
	Cached   int
	Unusable int // answered, but the answer could not be parsed
	Failed   int // no answer
	Skipped  int // not sent (budget)
	Example  string
}

// RunCall is one call a run used, with the plan's job id and whether the cache
// answered it in that run.
type RunCall struct {
	Job    string
	Cached bool
	Call
}

// Run is one invocation of a benchmark or command.
type Run struct {
	ID        int64
	Name      string
	Benchmark string
	Config    json.RawMessage // snapshot of options and config, secrets excluded
	Version   string
	Started   time.Time
	Ended     time.Time
	Status    string
	Calls     int // calls linked to the run
	Cached    int // of which answered by the cache
	// Fingerprint identifies the command that made the run, so re-running
	// it resumes this run.
	Fingerprint string
	// PID and Host own a running run; Heartbeat is when the owner last
	// said it was alive.
	PID       int
	Host      string
	Heartbeat time.Time
	// Reason says why a run that is not done ended as it did.
	Reason string
	// RecordsVersion changes whenever the run's records are written: an
	// analysis of them is current while it stays the same.
	RecordsVersion int64
}

// Run statuses.
const (
	RunRunning     = "running"
	RunDone        = "done"
	RunFailed      = "failed"
	RunInterrupted = "interrupted"
	// RunIncomplete: the run ended without an error, but not every job has
	// an answer (failed jobs, a budget stop) or not every record landed.
	RunIncomplete = "incomplete"
)

// ModelStats summarises the cache for one model.
type ModelStats struct {
	Provider, Model string
	Calls           int     // stored successful calls
	Errors          int     // stored failed calls
	Hits            int     // times a run was answered by the cache
	InputTokens     int64   // over successful calls
	OutputTokens    int64   //
	Cost            float64 // over calls with a known price
	UnpricedCalls   int     // successful calls whose price is unknown
}

// ErrNotFound is returned when a requested row does not exist.
var ErrNotFound = errors.New("not found")

// ErrHasStudies is returned by DeleteRun of a run that human studies
// annotate, unless their deletion is asked for: human answers are the
// dearest data in a store.
var ErrHasStudies = errors.New("the run has human studies")

// Deleted counts the human studies and answers that went with a run.
type Deleted struct {
	Studies     int
	Annotations int
}

// CallSelection picks calls to delete from the cache.
type CallSelection struct {
	Before   time.Time // made before this time (zero: any time)
	Provider string    // "" : every provider
	Model    string    // "" : every model
}

// Record is one record of a kind a benchmark declares (its predictions,
// its judgements), as every store keeps it: the benchmark's own JSON
// encoding under its kind and its key within the kind. A record made from
// a model call names the call (CallKey), whose answer the cache keeps once.
type Record struct {
	Kind    string
	Key     string
	CallKey string
	Body    json.RawMessage
	// Answer is the answer text of the call the record names, joined when
	// it is read ("" : none, or the call failed); it is never stored with
	// the record, whose call holds it once.
	Answer string
	// CallMissing: the record names a call the store does not hold (a
	// store put together by hand, say); its Answer is then not the answer.
	CallMissing bool
}

// RecordSet is what a Task writes of a run's records in one transaction:
// every record of the kinds it names is replaced by those Records yields,
// in their order, with the Snapshots of them the Task keeps for its
// analysis. A kind named without a snapshot loses the one it had, so a
// snapshot is never out of step with its records.
type RecordSet struct {
	// Kinds are the kinds replaced (one named without records is emptied).
	Kinds []string
	// Records yields the records, each of a kind among Kinds, to put; an
	// error it returns (or put's) undoes the whole write. It may be called
	// again when the store tries its transaction again (a busy store), and
	// must then yield the same records.
	Records func(put func(Record) error) error
	// Snapshots are the analysis copies of the records, one per kind at
	// most, each of a kind among Kinds.
	Snapshots []Snapshot
}

// Snapshot is an analysis copy of a run's records of one kind, in an
// encoding only its Task reads (a column-wise copy, say, that reads in a
// fraction of the records' time). The store keeps its bytes and never
// looks inside.
type Snapshot struct {
	Kind string
	// Format is the encoding's version: a read asks for the format it
	// knows and gets nothing from another.
	Format int
	// Data is the encoding, asked for once the records are written (it
	// may be made meanwhile, on another core); nil data keeps none, and an
	// error undoes the write. It may be called again, as Records.
	Data func() ([]byte, error)
}

// RecordSetOf is the RecordSet that puts recs, in place of the run's
// records of kinds, with no snapshot.
func RecordSetOf(kinds []string, recs []Record) RecordSet {
	return RecordSet{Kinds: kinds, Records: func(put func(Record) error) error {
		for _, r := range recs {
			if err := put(r); err != nil {
				return err
			}
		}
		return nil
	}}
}
