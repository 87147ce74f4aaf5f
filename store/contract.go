package store

import (
	"context"
	"time"
)

// The store contract: what the engine, the lifecycle, the records, the
// studies, the commands and the viewer use of a store, which SQLite and
// PostgreSQL both keep (store/storetest checks it of both). It lives here,
// with the shapes it stores, and imports nothing above the store; the
// packages that use a part of it name that part (engine.Store is Calls).

// Calls is what the engine needs of a store: the call cache, the links
// from runs to the calls they used, the output-token history for
// estimates, and pending provider batches.
type Calls interface {
	// GetCall returns the stored successful answer for key (ok false: none).
	GetCall(ctx context.Context, key string) (Call, bool, error)
	// GetCalls returns the stored successful answers of keys, by key (a
	// key with none is absent): the look-ups of many jobs in one read.
	GetCalls(ctx context.Context, keys []string) (map[string]Call, error)
	// PutCall stores a call's outcome; a successful answer is never
	// replaced by a failure.
	PutCall(ctx context.Context, c Call) error
	// LinkRun records that run used the call (cached: answered by the cache).
	LinkRun(ctx context.Context, runID int64, key, job string, cached bool) error
	// OutputTokens is the mean output tokens of a model's stored answers in
	// a namespace, and how many there are.
	OutputTokens(ctx context.Context, provider, model, namespace string) (mean float64, n int, err error)

	SaveBatchIntent(ctx context.Context, token string, b Batch) error
	ConfirmBatch(ctx context.Context, token, id string) error
	DropBatch(ctx context.Context, id string) error
	UnconfirmedBatches(ctx context.Context, provider string) ([]Batch, error)
	PendingBatches(ctx context.Context, provider string) ([]Batch, error)
	SetBatchStatus(ctx context.Context, id, status string) error
	InPendingBatch(ctx context.Context, key string) (bool, error)
}

// Claims is a store shared by processes that claims a call key before the
// call is paid for (store/sqlstore's claims): two processes running the
// same command on one store pay for each call once — the second waits for
// the first one's answer, or takes the claim over once its lease has run
// out (the first process died).
type Claims interface {
	// ClaimCall claims key for owner for lease: false while another
	// owner's claim is live.
	ClaimCall(ctx context.Context, key, owner string, lease time.Duration) (bool, error)
	// RenewClaims extends every claim of owner by lease.
	RenewClaims(ctx context.Context, owner string, lease time.Duration) error
	// ReleaseClaim gives up owner's claim on key.
	ReleaseClaim(ctx context.Context, key, owner string) error
	// ClaimOwner is the owner of key's claim ("": none).
	ClaimOwner(ctx context.Context, key string) (string, error)
	// TakeClaim takes key's claim over from from, an owner known to be
	// dead: false when from no longer holds it.
	TakeClaim(ctx context.Context, key, from, owner string, lease time.Duration) (bool, error)
	// PutAnswer stores a call's outcome, ends any claim on its key and
	// returns what the cache holds for the key afterwards (an answer stored
	// first is kept). Every attempt at the key counts once in the stored
	// call: those others marked sent and never stored count in c's, at its
	// cost, and c's own (marked by c.Owner) in an answer stored first.
	PutAnswer(ctx context.Context, c Call) (Call, error)
	// MarkSent records that owner is about to send key's call for run
	// runID, at most usd: kept until the call's outcome is stored.
	MarkSent(ctx context.Context, key, owner string, runID int64, usd float64) error
}

// ClaimReader is a Claims store that claims a key and reads its answer in
// one round trip: where claims are taken over a network, a worker's claim
// and its look for an answer stored meanwhile cost one round trip, not
// two.
type ClaimReader interface {
	// ClaimCallRead claims key for owner for lease, as ClaimCall does,
	// and when it got the claim reads the answer stored for key after
	// claiming it (answered: there is one).
	ClaimCallRead(ctx context.Context, key, owner string, lease time.Duration) (got bool, answer Call, answered bool, err error)
}

// Levels keeps the concurrency each provider model's calls last held, so
// that a later run (of any process on the store) starts there rather than
// ramping from the start again (engine.Levels).
type Levels interface {
	// Level is the level last saved for scope at or after since (ok:
	// there is one).
	Level(ctx context.Context, scope string, since time.Time) (level int, ok bool, err error)
	// SaveLevel saves scope's level now; a later save replaces it.
	SaveLevel(ctx context.Context, scope string, level int) error
}

// Lifecycle is what a run's lifecycle needs of a store.
type Lifecycle interface {
	StartRun(ctx context.Context, r Run) (int64, error)
	ResumeRun(ctx context.Context, id int64, pid int, host string) error
	Heartbeat(ctx context.Context, id int64) error
	EndRun(ctx context.Context, id int64, status, reason string) error
	RunByFingerprint(ctx context.Context, fingerprint string) (Run, bool, error)
	PutPhases(ctx context.Context, runID int64, counts []PhaseCount) error
}

// Studies keeps studies and their annotations.
type Studies interface {
	// PutStudy stores a new study of a run and returns its id.
	PutStudy(ctx context.Context, s Study) (int64, error)
	// Studies lists a run's studies (runID 0: every run's), oldest first.
	Studies(ctx context.Context, runID int64) ([]Study, error)
	// Study reads one; ok is false when there is none.
	Study(ctx context.Context, id int64) (Study, bool, error)
	// PutAnnotations stores answers, each in place of the same
	// annotator's earlier answer to the item.
	PutAnnotations(ctx context.Context, anns []Annotation) error
	// Annotations reads every answer of a study.
	Annotations(ctx context.Context, studyID int64) ([]Annotation, error)
}

// Store is the whole contract.
type Store interface {
	Calls
	Claims
	Levels
	Lifecycle
	Studies
	Run(ctx context.Context, id int64) (Run, bool, error)
	Runs(ctx context.Context) ([]Run, error)
	DeleteRun(ctx context.Context, id int64, withStudies bool) (Deleted, error)
	DeleteStudy(ctx context.Context, id int64) (answers int, err error)
	ReplaceStudy(ctx context.Context, st Study) error
	ReplaceStudyIf(ctx context.Context, prev, next Study) (bool, error)
	RunBudget(ctx context.Context, runID int64) (usd float64, ok bool, err error)
	SetRunBudget(ctx context.Context, runID int64, usd float64) error
	RunSpend(ctx context.Context, runID int64) (float64, error)
	FinishRun(ctx context.Context, id int64, status string) error
	Phases(ctx context.Context, runID int64) ([]PhaseCount, error)
	RunCalls(ctx context.Context, id int64, fn func(RunCall) error) error
	RunModelStats(ctx context.Context, id int64) ([]ModelStats, error)
	Stats(ctx context.Context) ([]ModelStats, error)
	CountRecords(ctx context.Context, runID int64) (int, error)
	PutRecords(ctx context.Context, runID int64, kind string, recs []Record) error
	PutRecordKinds(ctx context.Context, runID int64, kinds []string, recs []Record) error
	Records(ctx context.Context, runID int64, kind string, fn func(Record) error) error
	PutRecordSet(ctx context.Context, runID int64, set RecordSet) error
	RecordsByKey(ctx context.Context, runID int64, kind string, keys []string, fn func(Record) error) error
	Snapshot(ctx context.Context, runID int64, kind string, format int) (data []byte, ok bool, err error)
	Snapshots(ctx context.Context, runID int64, fn func(kind string, format int, data []byte) error) error
	ImportCalls(ctx context.Context, calls []Call) (int, error)
	CountCallsFor(ctx context.Context, sel CallSelection) (n int, bytes int64, kept int, err error)
	DeleteCalls(ctx context.Context, sel CallSelection) (int, error)
	Calls(ctx context.Context, fn func(Call) error) error
	CopyCalls(ctx context.Context, calls []Call) (added int, err error)
	ImportRun(ctx context.Context, r Run) (int64, error)
	// Path names the store: its file, or its URL with the password masked.
	Path() string
	ReadOnly() bool
	Close() error
}
