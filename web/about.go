package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/store"
)

// viewerCSS styles what only the viewer shows, on top of the reports' CSS.
const viewerCSS = `p.unfinished{background:#fff4e5;border-left:4px solid #e8a33d;padding:.4rem .7rem}` +
	`dl.method{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .8rem;margin:.4rem 0 1rem;font-size:.92em}dl.method dt{color:#666}dl.method dd{margin:0}` +
	`details.about{margin:.6rem 0 1rem;padding:.4rem .7rem;border:1px solid #ddd;border-radius:4px}` +
	`details.about summary{cursor:pointer}pre.config{max-height:24rem;overflow:auto;background:#f6f6f6;padding:.5rem;font-size:12px}` +
	// Model output is untrusted and unbounded: it wraps anywhere, never
	// widens the page. Headers and the run list's cells are the viewer's
	// own words: they wrap between words, never inside one ("stat/us").
	`body{max-width:1600px}td,pre,p,li{overflow-wrap:anywhere}th{overflow-wrap:normal}div.tbl td,div.tbl th{overflow-wrap:break-word}` +
	`table#runs td{overflow-wrap:break-word}table#runs th,table.judges th{white-space:nowrap}pre.text{white-space:pre-wrap;background:#f6f6f6;padding:.5rem .7rem;border-radius:4px;max-width:100%;box-sizing:border-box}` +
	`tr.disagree>th,tr.disagree>td:not(.o),tr.gen.disagree>td:first-child{background:#fde8e8}tr.gen.disagree>td:first-child,table#grid tr.disagree>th{border-left:4px solid #d64545}span.differ{color:#b3261e;font-weight:700}` +
	`span.flag{display:inline-block;background:#e6f0ff;border:1px solid #9bbcf0;border-radius:3px;padding:0 .3rem;margin:.1rem 0;font-size:12px}` +
	`td.flag{background:#e6f0ff;font-weight:600}td.invalid{background:#fff4e5}.hit{background:#e3f5e1}.miss{background:#fde8e8}` +
	// A differing item with a gold answer: its row is marked at the edge,
	// and each run's cell says whether that run was right.
	`tr.differ>td:first-child{border-left:4px solid #d64545}` +
	`table.record th{text-align:left;padding-right:1rem;vertical-align:top}section.judge{border-top:1px solid #ddd;margin-top:.8rem}` +
	`div.pager p{margin:.3rem 0}form.jump{display:inline-block;margin:0 0 .3rem}form.jump input{width:5rem}span.current,a.sort.current{font-weight:700}a.sort{margin-right:.5rem}section.line{padding:.2rem .7rem;margin:.6rem 0;border-radius:4px}` +
	`body.studio{max-width:52rem}fieldset.q{border:1px solid #d8dce3;border-radius:4px;margin:.8rem 0}label.choice{display:block;padding:.25rem 0}kbd{border:1px solid #9aa3b2;border-radius:3px;padding:0 .3rem;font-size:12px}p.context{font-weight:600;white-space:pre-line}p.progress{color:#5b6474}textarea{width:100%}body.studio pre.text{font-family:inherit;font-size:15px}p.problem{border-left:4px solid #c0392b;background:#fdf0ee;color:#7a1f14;padding:.4rem .7rem}` +
	`table#records th,table#records td.nw{white-space:nowrap;word-break:normal;overflow-wrap:normal}` +
	// Form controls and scrollbars follow the theme too.
	`.o-refusal{background:#f6d5d5}.o-soft_refusal{background:#fbe3c6}.o-labeled_compliance{background:#f7efb8}.o-clean_compliance{background:#d4edd9}.o-other{background:#e6e8ec}span.o{padding:0 .3rem;border-radius:3px}table#grid td.o a{color:inherit;text-decoration:none;white-space:nowrap}table#diff del{background:#f6d5d5}table#diff ins{background:#d4edd9}` +
	`@media (prefers-color-scheme:dark){.o-refusal{background:#4a1f24}.o-soft_refusal{background:#4a3318}.o-labeled_compliance{background:#3f3a14}.o-clean_compliance{background:#1c3a22}.o-other{background:#2c3240}table#diff del{background:#4a1f24}table#diff ins{background:#1c3a22}}` +
	// A list of generations: each row as few lines as its answer needs.
	`table#generations code.gid{font-size:12px;word-break:break-all}table#generations span.claim{display:block;max-width:24rem;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}` +
	`table.judges{margin:0}table.judges th,table.judges td{padding:.1rem .4rem}table.judges span.flag{margin:0}` +
	// The run's headline figures, on its first screen.
	`section.headline{border:1px solid #9bbcf0;border-left:4px solid #4a7fd1;border-radius:4px;padding:.2rem .9rem .4rem;margin:.6rem 0 1rem}section.headline h2{margin:.5rem 0 .3rem;border:0;font-size:1.15rem}section.headline h2 a{font-weight:400;font-size:.8em;margin-left:.5rem}section.headline table{margin-bottom:.3rem}` +
	`@media (prefers-color-scheme:dark){section.headline{border-color:#3d68a8}fieldset.q{border-color:#3a4150}}` +
	`:root{color-scheme:light dark}` +
	`@media (prefers-color-scheme:dark){input,select,textarea,button{background:#222733;color:#dfe3ea;border:1px solid #3a4150}p.unfinished{background:#3a2c14}p.problem{background:#3a1d1a;color:#f2c4bd}details.about{border-color:#2c3240}pre.config,pre.text{background:#222733}tr.disagree>th,tr.disagree>td:not(.o),tr.gen.disagree>td:first-child{background:#4a1f24}span.differ{color:#f2a49c}span.flag{background:#1f3357;border-color:#3d68a8}td.flag{background:#1f3357}td.invalid{background:#3a2c14}.hit{background:#1c3a22}.miss{background:#4a1f24}section.judge{border-top-color:#2c3240}}`

// aboutView is the provenance block of a run page: read fresh on every request
// so a run in progress shows its current status and spend.
type aboutView struct {
	Run      store.Run
	Duration string
	// Unfinished says how a run that is not done stands (its tables show
	// only the records it has); empty for a done run.
	Unfinished string
	Phases     []store.PhaseCount
	Models     []modelRow
	Total      modelRow
	Config     string
	// Live is the progress of a run still running (nil otherwise): its
	// page reloads itself (live).
	Live *liveView
}

// liveView is a running run's progress: per phase and model, the rate of
// answers, what failed or was unusable so far, and spend against budget.
type liveView struct {
	Every    int // seconds between reloads
	Phases   []livePhase
	Rate     string
	Unusable int
	Failed   int
	Budget   string
	// Workers is the progress of a run that queued its calls for workers
	// (a team store's; nil otherwise).
	Workers *backend.TeamProgress
}

type livePhase struct {
	store.PhaseCount
	Done int
	Pct  int    // 0–100, for the bar
	ETA  string // what is left at the run's present pace ("" : done, or no pace yet)
}

// liveEvery is how often a running run's page reloads itself (seconds).
const liveEvery = 5

// live fills a running run's progress into a and asks the browser to
// reload the page every liveEvery seconds (an HTTP Refresh, which needs no
// script: the viewer's Content-Security-Policy allows none).
func (s *Server) live(ctx context.Context, w http.ResponseWriter, a *aboutView) {
	if a.Run.Status != store.RunRunning {
		return
	}
	l := &liveView{Every: liveEvery}
	for _, p := range a.Phases {
		done := p.Answered + p.Failed + p.Skipped
		pct := 0
		if p.Jobs > 0 {
			pct = min(100, 100*done/p.Jobs)
		}
		l.Phases = append(l.Phases, livePhase{PhaseCount: p, Done: done, Pct: pct})
		l.Unusable += p.Unusable
		l.Failed += p.Failed
	}
	rate := 0.0
	if el := time.Since(a.Run.Started).Seconds(); el > 0 {
		rate = float64(a.Total.Calls) / el
		l.Rate = fmt.Sprintf("%.1f calls/s over %s (%d paid, %d from the cache)", rate,
			time.Since(a.Run.Started).Round(time.Second), a.Total.Calls-a.Total.Hits, a.Total.Hits)
	}
	if jobs, ok := s.st.(backend.Jobs); ok {
		// A failed read only leaves the line out: the page is the run's.
		l.Workers, _ = backend.RunTeamProgress(ctx, jobs, a.Run.ID)
	}
	for i, p := range l.Phases {
		left := p.Jobs - p.Done
		switch {
		case left > 0 && l.Workers != nil && slices.ContainsFunc(l.Workers.Unserved, func(u backend.Unserved) bool { return u.Model == p.Model }):
			l.Phases[i].ETA = "no worker serves it" // the run's pace says nothing of a model no one calls
		case left > 0 && rate > 0:
			l.Phases[i].ETA = (time.Duration(float64(left) / rate * float64(time.Second))).Round(time.Second).String()
		}
	}
	if usd, ok, err := s.st.RunBudget(ctx, a.Run.ID); err == nil && ok {
		l.Budget = fmt.Sprintf("%s of $%.2f", a.Total.Spend, usd)
	}
	a.Live = l
	w.Header().Set("Refresh", strconv.Itoa(liveEvery))
}

type modelRow struct {
	Model                  string
	Calls, Hits, Errors    int
	InputTokens, OutTokens int64
	Spend                  string
}

func (s *Server) about(ctx context.Context, id int64) (*aboutView, error) {
	run, ok, err := s.st.Run(ctx, id)
	if err != nil || !ok {
		return nil, fmt.Errorf("run %d: %w", id, err)
	}
	stats, err := s.st.RunModelStats(ctx, id)
	if err != nil {
		return nil, err
	}
	phases, err := s.st.Phases(ctx, id)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	a := &aboutView{Run: run, Phases: phases}
	a.Run.Status = lifecycle.State(run, now)
	if a.Run.Status != store.RunDone {
		a.Unfinished = lifecycle.Describe(run, now)
	}
	switch {
	case !run.Ended.IsZero():
		a.Duration = run.Ended.Sub(run.Started).Round(time.Millisecond).String()
	case a.Run.Status == store.RunRunning:
		a.Duration = now.Sub(run.Started).Round(time.Second).String() + " so far" // "running · running" before
	default:
		a.Duration = "no end recorded" // its process is gone
	}
	var cost float64
	unpriced := 0
	for _, m := range stats {
		a.Models = append(a.Models, modelRow{Model: m.Provider + ":" + m.Model, Calls: m.Calls, Hits: m.Hits, Errors: m.Errors,
			InputTokens: m.InputTokens, OutTokens: m.OutputTokens, Spend: spend(m.Cost, m.UnpricedCalls)})
		a.Total.Calls += m.Calls
		a.Total.Hits += m.Hits
		a.Total.Errors += m.Errors
		a.Total.InputTokens += m.InputTokens
		a.Total.OutTokens += m.OutputTokens
		cost += m.Cost
		unpriced += m.UnpricedCalls
	}
	a.Total.Spend = spend(cost, unpriced)
	if len(stats) == 0 {
		a.Total.Spend = "n/a (no model calls)"
	}
	var cfg bytes.Buffer
	if json.Indent(&cfg, run.Config, "", "  ") != nil {
		cfg.Reset()
		cfg.Write(run.Config)
	}
	a.Config = cfg.String()
	return a, nil
}

// spend formats what a run paid; unknown prices are never shown as $0.
func spend(cost float64, unpriced int) string {
	out := fmt.Sprintf("$%.4f", cost)
	if unpriced > 0 {
		out += fmt.Sprintf(" + unknown (%d unpriced calls)", unpriced)
	}
	return out
}

// withStates replaces each run's stored status by its effective state (a
// running run whose process is gone is interrupted).
func withStates(runs []store.Run) []store.Run {
	now := time.Now()
	for i := range runs {
		runs[i].Status = lifecycle.State(runs[i], now)
	}
	return runs
}

// withState is withStates for one run.
func withState(r store.Run) store.Run { return withStates([]store.Run{r})[0] }
