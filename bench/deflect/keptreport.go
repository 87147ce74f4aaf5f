package deflect

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/reportcache"
	"github.com/fallacylab/fallacylab/store"
)

// KindReport is the kind under which a finished run keeps its report with
// the default options beside its records: a snapshot of no records, which
// `deflect report` and the viewer read instead of analysing the run again
// (a full run's analysis draws 1,000 resamples over 72,000 records; its
// kept report reads in a few milliseconds, on any machine of a team that
// runs the same fallacylab).
const KindReport = "deflect/report"

// keptReportFormat is the kept report's encoding version.
const keptReportFormat = 1

// keptReport is what a run keeps: the report and what it was made from.
type keptReport struct {
	// Program is the fallacylab that analysed (reportcache.Program):
	// another one may analyse otherwise, and analyses again.
	Program string
	// Identity is the analysis options' (Options.Identity).
	Identity string
	// RecordsVersion is the run's records version when it was analysed:
	// the report's own write moves it on by one, and any later write of
	// the run's records by more, so a report is read only while the
	// records it analysed are the run's.
	RecordsVersion int64
	Report         report.Report
}

// identityOf is the options' identity as a kept report names it.
func identityOf(o Options) string { return fmt.Sprint(o.Identity()...) }

// readKept is the run's kept report, when it was made by this program,
// with these options, from the records the run holds now (ok false: none
// such; the report is then analysed).
func readKept(ctx context.Context, recs bench.Records, r store.Run, o Options) (*report.Report, bool) {
	prog := reportcache.Program()
	if prog == "" {
		return nil, false
	}
	data, ok, err := recs.Snapshot(ctx, r.ID, KindReport, keptReportFormat)
	if err != nil || !ok {
		return nil, false
	}
	var k keptReport
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&k); err != nil {
		return nil, false
	}
	if k.Program != prog || k.Identity != identityOf(o) || k.RecordsVersion+1 != r.RecordsVersion {
		return nil, false
	}
	return &k.Report, true
}

// keepReport leaves a finished run's report with the default options
// beside its records in the store (KindReport) and in the report cache,
// under the key `deflect report` and the viewer ask with, so that the
// first of them, at the end of a run of hours, takes a fraction of a
// second (the run command's brief, at a terminal, reads it back). It is
// only a head start: if it cannot be kept, the report is made then, and
// only said when stderr is given.
func keepReport(ctx context.Context, env bench.Env, runID int64) {
	r, ok, err := env.Records.Run(ctx, runID)
	if err != nil || !ok {
		return
	}
	opts := DefaultAnalysis()
	if _, kept := readKept(ctx, env.Records, r, opts); kept {
		return
	}
	// The run's writing is over: what it left goes back to the system —
	// the store's memory for it too (4× import, during the analysis:
	// 184–191 → 161–172 MB) — and the analysis collects more often
	// (unless GOGC says otherwise), so that the command's peak is nearer
	// the larger of the two than their sum (4× import: 272–291 → 252–260
	// MB).
	if s, ok := env.Records.(interface{ ReleaseMemory() }); ok {
		s.ReleaseMemory()
	}
	debug.FreeOSMemory()
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(25))
	}
	d, err := loadAnalysis(ctx, env.Records, runID)
	if err != nil {
		return
	}
	rep, err := Analyze(d, opts)
	if err != nil {
		return
	}
	if err := putKept(ctx, env.Records, r, opts, rep); err != nil {
		if env.Stderr != nil {
			fmt.Fprintf(env.Stderr, "note: the run's report is not kept in the store (%v): the first report analyses it\n", err)
		}
		return
	}
	if reportcache.Enabled() {
		// Under the run as it is now: the kept report's write moved its
		// records version on.
		if r, ok, err := env.Records.Run(ctx, runID); err == nil && ok {
			reportcache.Put(reportcache.RunKey(env.Store, r, opts.Identity()...), rep)
		}
	}
}

// putKept stores rep, analysed with o from the run's records as r holds
// them, as the run's kept report.
func putKept(ctx context.Context, recs bench.Records, r store.Run, o Options, rep *report.Report) error {
	prog := reportcache.Program()
	if prog == "" {
		return fmt.Errorf("this program cannot be told from another")
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(keptReport{Program: prog, Identity: identityOf(o), RecordsVersion: r.RecordsVersion, Report: *rep}); err != nil {
		return err
	}
	return recs.PutRecordSet(ctx, r.ID, store.RecordSet{Kinds: []string{KindReport},
		Records:   func(func(store.Record) error) error { return nil },
		Snapshots: []store.Snapshot{{Kind: KindReport, Format: keptReportFormat, Data: func() ([]byte, error) { return buf.Bytes(), nil }}}})
}

// analysedReport is the run's report with opts: from the report cache,
// else the run's kept report, else analysed from the run's snapshots (and
// then cached; a failed cache write goes to putFailed, which may be nil).
func analysedReport(ctx context.Context, env bench.Env, r store.Run, opts Options, putFailed func(error)) (*report.Report, error) {
	return reportcache.GetOrMake(reportcache.RunKey(env.Store, r, opts.Identity()...), func() (*report.Report, error) {
		if rep, ok := readKept(ctx, env.Records, r, opts); ok {
			return rep, nil
		}
		d, err := loadAnalysis(ctx, env.Records, r.ID)
		if errors.Is(err, ErrNoGenerations) && r.Status != store.RunDone {
			return nil, noRecordsYet(r)
		}
		if err != nil {
			return nil, err
		}
		return Analyze(d, opts)
	}, putFailed)
}
