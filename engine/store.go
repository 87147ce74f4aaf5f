package engine

import (
	"context"

	"github.com/fallacylab/fallacylab/store"
)

// Store is what the engine needs of a store: the call cache, the links from
// runs to the calls they used, the output-token history for estimates, and
// pending provider batches.
type Store interface {
	// GetCall returns the stored successful answer for key (ok false: none).
	GetCall(ctx context.Context, key string) (store.Call, bool, error)
	// PutCall stores a call's outcome; a successful answer is never
	// replaced by a failure.
	PutCall(ctx context.Context, c store.Call) error
	// LinkRun records that run used the call (cached: answered by the cache).
	LinkRun(ctx context.Context, runID int64, key, job string, cached bool) error
	// OutputTokens is the mean output tokens of a model's stored answers in
	// a namespace, and how many there are.
	OutputTokens(ctx context.Context, provider, model, namespace string) (mean float64, n int, err error)

	SaveBatchIntent(ctx context.Context, token string, b store.Batch) error
	ConfirmBatch(ctx context.Context, token, id string) error
	DropBatch(ctx context.Context, id string) error
	UnconfirmedBatches(ctx context.Context, provider string) ([]store.Batch, error)
	PendingBatches(ctx context.Context, provider string) ([]store.Batch, error)
	SetBatchStatus(ctx context.Context, id, status string) error
	InPendingBatch(ctx context.Context, key string) (bool, error)
}
