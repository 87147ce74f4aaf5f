package cli

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/web"
	"riverqueue.com/riverui"
)

// queuePrefix is where `view --queue` mounts the River UI.
const queuePrefix = "/queue/"

// mountQueue mounts the River UI (riverqueue.com/riverui) of the store's
// work queue under /queue/ of the viewer: its jobs by state and queue,
// each job's arguments, attempts and errors, and cancel / retry / delete.
// It runs until ctx ends.
func mountQueue(ctx context.Context, v *web.Server, st backend.Store) error {
	pg, ok := st.(backend.Jobs)
	if !ok {
		return fmt.Errorf("--queue: the work queue is a shared store's (--db postgres://…)")
	}
	client, err := pg.RiverClient()
	if err != nil {
		return fmt.Errorf("--queue: %w", err)
	}
	h, err := riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(client, nil),
		Logger:    slog.New(slog.DiscardHandler),
		Prefix:    "/queue",
	})
	if err != nil {
		return fmt.Errorf("--queue: River UI: %w", err)
	}
	if err := h.Start(ctx); err != nil {
		return fmt.Errorf("--queue: River UI: %w", err)
	}
	v.Mount(queuePrefix, h, web.QueueCSP)
	return nil
}
