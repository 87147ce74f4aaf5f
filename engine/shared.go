package engine

import "context"

// SharedLimits hold a provider's requests/min and tokens/min across every
// process using one store (workers on several machines): Take waits until
// the shared budget of model allows one more request of about tokens
// tokens, at the configured rates. The engine's own limiters then stand
// aside for the limits the shared ones hold.
type SharedLimits interface {
	Take(ctx context.Context, scope string, rpm float64, tpm float64, tokens int) error
}
