package backend

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/store/postgres"
)

// WorkersAlive is how recently a worker must have beaten to count as
// alive where a run's progress and the queue are shown.
const WorkersAlive = time.Minute

// TeamProgress is a queued run's progress through the workers (a team
// store's), as `runs show` and the viewer's page of a running run show it:
// its jobs by state, the models whose open jobs none of the workers alive
// serves, and the budget they book.
type TeamProgress struct {
	Queued  int `json:"queued"`
	Running int `json:"running"`
	Done    int `json:"done"`
	Failed  int `json:"failed"`
	// Unserved are the models (provider:model) with jobs open in a queue
	// none of the workers heard from in the last WorkersAlive serves, with
	// how many (NoWorker: no worker was heard from at all).
	Unserved []Unserved `json:"unserved,omitempty"`
	NoWorker bool       `json:"no_worker_alive,omitempty"`
	Budget   *Booked    `json:"budget,omitempty"`
}

// Unserved is a model whose open jobs no worker alive serves.
type Unserved struct {
	Model string `json:"model"`
	Open  int    `json:"open"`
}

// Booked is a queued run's budget and what the workers booked of it.
type Booked struct {
	USD     float64 `json:"usd"`
	Booked  float64 `json:"booked_usd"`
	Reached bool    `json:"reached"`
}

// Why says why the Unserved models wait.
func (tp *TeamProgress) Why() string {
	if tp.NoWorker {
		return "no worker heard from in the last " + WorkersAlive.String()
	}
	return "none of the workers heard from in the last " + WorkersAlive.String() + " serves its queue"
}

// RunTeamProgress is run's progress through the workers; nil if it queued
// nothing.
func RunTeamProgress(ctx context.Context, jobs Jobs, run int64) (*TeamProgress, error) {
	q, err := jobs.QueueCounts(ctx, run)
	if err != nil || len(q) == 0 {
		return nil, err
	}
	tp := &TeamProgress{Queued: q[postgres.Queued], Running: q[postgres.Running], Done: q[postgres.Done], Failed: q[postgres.Failed]}
	rows, err := jobs.QueueTable(ctx, run)
	if err != nil {
		return nil, err
	}
	workers, err := jobs.Workers(ctx, WorkersAlive)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if open := r.Queued + r.Running; open > 0 && !Serves(workers, r.Queue) {
			tp.Unserved = append(tp.Unserved, Unserved{r.Provider + ":" + r.Model, open})
			tp.NoWorker = len(workers) == 0
		}
	}
	budget, spent, stopped, ok, err := jobs.Budget(ctx, run)
	if err != nil {
		return nil, err
	}
	if ok {
		tp.Budget = &Booked{budget, spent, stopped}
	}
	return tp, nil
}

// Serves reports whether one of workers serves queue.
func Serves(workers []postgres.WorkerInfo, queue string) bool {
	return slices.ContainsFunc(workers, func(w postgres.WorkerInfo) bool { return slices.Contains(strings.Fields(w.Serves), queue) })
}
