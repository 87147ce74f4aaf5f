package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fallacylab/fallacylab/store"
)

// When the store cannot be written (a full disk), every answer paid for
// after that would be lost. So the first failed write stops the sending:
// jobs not yet sent fail at once, unpaid (ErrStoreFailed), and the answers
// already paid are kept in memory; when the plan ends they are written
// again, and those the store still refuses go to Options.Spill (a file
// elsewhere, which the next open of the store takes in), so that no paid
// answer is lost and a re-run does not pay for it again.

// ErrStoreFailed fails the jobs not sent once the store could not be written.
var ErrStoreFailed = errors.New("not sent: the store could not be written")

// writeFailed records the store's first failed write; from then on nothing
// is sent.
func (e *Engine) writeFailed(err error) {
	e.progMu.Lock()
	defer e.progMu.Unlock()
	if e.storeErr == nil {
		e.storeErr = err
	}
}

// StoreFailed is the store's first failed write (nil: none): once there is
// one, the engine sends nothing more.
func (e *Engine) StoreFailed() error { return e.storeFailed() }

// storeFailed is the store's first failed write (nil: none).
func (e *Engine) storeFailed() error {
	e.progMu.Lock()
	defer e.progMu.Unlock()
	return e.storeErr
}

// keep holds a paid answer the store refused, to write it again later,
// and spills it at once (Options.Spill) before its job is reported: a
// process killed before the plan ends (kill -9) loses no paid answer.
func (e *Engine) keep(c store.Call) {
	e.progMu.Lock()
	e.unwritten = append(e.unwritten, c)
	e.progMu.Unlock()
	if e.opt.Spill == nil {
		return
	}
	e.spillMu.Lock()
	defer e.spillMu.Unlock()
	if where, err := e.opt.Spill([]store.Call{c}); err == nil {
		if e.spilled == nil {
			e.spilled = map[string]bool{}
		}
		e.spilled[c.Key], e.spilledTo = true, where
	}
}

// flushUnwritten writes the kept answers again at the end of a plan, and
// spills those the store still refuses. It fills the summary's account of
// them.
func (e *Engine) flushUnwritten(s *Summary) {
	e.progMu.Lock()
	kept := e.unwritten
	e.unwritten = nil
	e.progMu.Unlock()
	if len(kept) == 0 {
		return
	}
	// A few passes, each stopping at the first refusal: a store that is
	// still full refuses the rest too.
	left := kept
	for pass := 0; pass < 3 && len(left) > 0; pass++ {
		if pass > 0 {
			time.Sleep(time.Duration(pass) * 250 * time.Millisecond)
		}
		for len(left) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := e.opt.Store.PutCall(ctx, left[0])
			cancel()
			if err != nil {
				break
			}
			s.Rewritten++
			left = left[1:]
		}
	}
	s.Unwritten = len(left)
	for _, c := range left {
		if c.Cost != nil {
			s.UnwrittenCost += *c.Cost
		}
	}
	if len(left) == 0 || e.opt.Spill == nil {
		return
	}
	// Those spilled when they were refused are there already; the rest
	// (their spill failed too) are tried again.
	e.spillMu.Lock()
	defer e.spillMu.Unlock()
	s.SpilledTo = e.spilledTo
	var again []store.Call
	for _, c := range left {
		if !e.spilled[c.Key] {
			again = append(again, c)
		}
	}
	if len(again) == 0 {
		return
	}
	where, err := e.opt.Spill(again)
	if err != nil {
		s.SpillErr = fmt.Errorf("keeping %d paid answers the store refused: %w", len(again), err)
		return
	}
	s.SpilledTo = where
}
