package backend

import (
	"context"
	"fmt"
	"slices"

	"github.com/fallacylab/fallacylab/store"
	"golang.org/x/sync/errgroup"
)

// Copied counts what Copy moved.
type Copied struct {
	Calls, Runs, SkippedRuns, Studies, Annotations int
	// NewCalls of Calls were not in the target before.
	NewCalls int
}

// Copy copies a store into another: every call of the cache (answers and
// errors), then every run not already there (same name, start time and
// fingerprint) with its links to calls, phase counts, records, studies and
// annotations. Runs get new ids in the target; nothing in the source
// changes. Pending provider batches are not copied: finish them first.
func Copy(ctx context.Context, from, to Store, note func(string)) (Copied, error) {
	var n Copied
	var batch []store.Call
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		added, err := to.CopyCalls(ctx, batch)
		if err != nil {
			return err
		}
		n.Calls += len(batch)
		n.NewCalls += added
		batch = batch[:0]
		return nil
	}
	if err := from.Calls(ctx, func(c store.Call) error {
		batch = append(batch, c)
		if len(batch) == 500 {
			return flush()
		}
		return nil
	}); err != nil {
		return n, fmt.Errorf("copy calls: %w", err)
	}
	if err := flush(); err != nil {
		return n, fmt.Errorf("copy calls: %w", err)
	}
	note(fmt.Sprintf("%d calls (%d new)", n.Calls, n.NewCalls))
	runs, err := from.Runs(ctx)
	if err != nil {
		return n, err
	}
	there, err := to.Runs(ctx)
	if err != nil {
		return n, err
	}
	have := map[string]store.Run{}
	key := func(r store.Run) string {
		return r.Name + "\x00" + r.Started.UTC().String() + "\x00" + r.Fingerprint
	}
	for _, r := range there {
		have[key(r)] = r
	}
	slices.Reverse(runs) // oldest first: the target's ids keep their order
	for _, r := range runs {
		if t, ok := have[key(r)]; ok {
			if t.Reason != copiedRunning || r.Status == store.RunRunning {
				n.SkippedRuns++
				continue
			}
			// Copied while it ran, finished since: the partial copy goes
			// and the whole run comes.
			if _, err := to.DeleteRun(ctx, t.ID, true); err != nil {
				return n, fmt.Errorf("replace run %d, copied while it ran: %w", t.ID, err)
			}
			note(fmt.Sprintf("run %d was copied while it ran; it has finished since: copied again", r.ID))
		}
		if r.Status == store.RunRunning {
			// A run still running is copied as what it holds so far,
			// interrupted (a run can resume it there), and says so; copied
			// again once finished, it is replaced.
			r.Status, r.Reason, r.PID, r.Host = store.RunInterrupted, copiedRunning, 0, ""
			note(fmt.Sprintf("run %d (%s) is still running: copied as interrupted, with what it holds so far — copy again once it has finished", r.ID, r.Name))
		}
		id, err := copyRun(ctx, from, to, r)
		if err != nil {
			return n, fmt.Errorf("copy run %d (%s): %w", r.ID, r.Name, err)
		}
		s, a, err := copyStudies(ctx, from, to, r.ID, id)
		if err != nil {
			return n, fmt.Errorf("copy studies of run %d: %w", r.ID, err)
		}
		n.Runs, n.Studies, n.Annotations = n.Runs+1, n.Studies+s, n.Annotations+a
		note(fmt.Sprintf("run %d → %d: %s", r.ID, id, r.Name))
	}
	return n, nil
}

// copiedRunning is the reason of a run copied while it ran.
const copiedRunning = "copied by store copy while it was running: partial"

// copyRun copies one run, its links, phases and records, and returns its
// id in the target.
func copyRun(ctx context.Context, from, to Store, r store.Run) (int64, error) {
	id, err := to.ImportRun(ctx, r)
	if err != nil {
		return 0, err
	}
	var links []store.RunCall
	if err := from.RunCalls(ctx, r.ID, func(rc store.RunCall) error { links = append(links, rc); return nil }); err != nil {
		return 0, err
	}
	// Links in parallel: the SQLite store commits concurrent writes
	// together, PostgreSQL takes them on several connections.
	if err := parallel(ctx, len(links), func(i int) error {
		return to.LinkRun(ctx, id, links[i].Key, links[i].Job, links[i].Cached)
	}); err != nil {
		return 0, err
	}
	phases, err := from.Phases(ctx, r.ID)
	if err != nil {
		return 0, err
	}
	if len(phases) > 0 {
		if err := to.PutPhases(ctx, id, phases); err != nil {
			return 0, err
		}
	}
	if err := copyRecords(ctx, from, to, r.ID, id); err != nil {
		return 0, err
	}
	return id, nil
}

// copyStudies copies a run's studies and their annotations to the run's
// new id.
func copyStudies(ctx context.Context, from, to Store, runID, newRun int64) (studies, answers int, err error) {
	list, err := from.Studies(ctx, runID)
	if err != nil {
		return 0, 0, err
	}
	for _, s := range list {
		anns, err := from.Annotations(ctx, s.ID)
		if err != nil {
			return studies, answers, err
		}
		s.RunID = newRun
		sid, err := to.PutStudy(ctx, s)
		if err != nil {
			return studies, answers, err
		}
		for i := range anns {
			anns[i].StudyID = sid
		}
		if len(anns) > 0 {
			if err := to.PutAnnotations(ctx, anns); err != nil {
				return studies, answers, err
			}
		}
		studies, answers = studies+1, answers+len(anns)
	}
	return studies, answers, nil
}

// parallel runs fn(0…n−1), 32 at a time, and returns the first error.
func parallel(ctx context.Context, n int, fn func(i int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error { return fn(i) })
	}
	return g.Wait()
}

// copyRecords copies a run's records of every kind a benchmark declares,
// kind by kind, in their order, each kind with its snapshot (bytes the
// store copies as they are).
func copyRecords(ctx context.Context, from, to Store, runID, newRun int64) error {
	snaps := map[string]store.Snapshot{}
	if err := from.Snapshots(ctx, runID, func(kind string, format int, data []byte) error {
		snaps[kind] = store.Snapshot{Kind: kind, Format: format, Data: func() ([]byte, error) { return data, nil }}
		return nil
	}); err != nil {
		return err
	}
	var kind string
	var recs []store.Record
	flush := func() error {
		if kind == "" {
			return nil
		}
		set := store.RecordSetOf([]string{kind}, recs)
		if sn, ok := snaps[kind]; ok {
			set.Snapshots = []store.Snapshot{sn}
			delete(snaps, kind)
		}
		err := to.PutRecordSet(ctx, newRun, set)
		recs = recs[:0]
		return err
	}
	if err := from.Records(ctx, runID, "", func(r store.Record) error {
		if r.Kind != kind {
			if err := flush(); err != nil {
				return err
			}
			kind = r.Kind
		}
		recs = append(recs, r)
		return nil
	}); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	for k := range snaps { // a snapshot of a kind with no records
		kind = k
		if err := flush(); err != nil {
			return err
		}
	}
	return nil
}
