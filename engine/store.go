package engine

import (
	"github.com/fallacylab/fallacylab/store"
)

// Store is what the engine needs of a store: the call cache, the links from
// runs to the calls they used, the output-token history for estimates, and
// pending provider batches (the store's contract, store.Calls).
type Store = store.Calls
