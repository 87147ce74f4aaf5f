package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store/postgres"
)

// callJob is a job of the test, its key and its queue.
func callJob(i int) (engine.Job, string) {
	j := engine.Job{ID: "job-" + string(rune('a'+i)), Namespace: "test"}
	j.Spec.Provider, j.Spec.Model = "openai", "gpt-4.1-mini"
	j.Request = llm.Request{Messages: []llm.Message{{Role: "user", Content: "prompt " + string(rune('a'+i))}}}
	return j, j.Key()
}

// TestRiverQueue: a dispatched call becomes one River job in its model's
// queue; the same call dispatched twice at once runs once; a worker's Fail
// reaches the run, its HandBack returns the job for another, and a job
// whose worker went silent is rescued at once.
func TestRiverQueue(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st := freshStore(t)
	d := postgres.NewDispatcher(st, 1)
	d.Poll = 20 * time.Millisecond
	var made sync.Map
	var calls atomic.Int64
	hold := make(chan struct{})
	work := func(ctx context.Context, queue string, a postgres.CallArgs) error {
		calls.Add(1)
		switch {
		case strings.HasSuffix(a.JobID, "b"):
			return postgres.Fail(errors.New("the model refused the request"))
		case strings.HasSuffix(a.JobID, "c"):
			if _, again := made.LoadOrStore(a.Key, true); !again {
				return postgres.HandBack(10 * time.Millisecond)
			}
		case strings.HasSuffix(a.JobID, "d"):
			<-hold
		}
		made.Store(a.Key, true)
		return nil
	}
	w, err := st.NewWorker(postgres.WorkerConfig{ID: "test-worker-1", Label: "w1", MaxWorkers: 8, Retention: time.Hour, Work: work})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := callJob(0)
	queue := postgres.QueueName(j.Spec.Provider, j.Spec.Model, "", false)
	if err := w.Serve(queue); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Stop(context.Background())

	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, key := callJob(i % 3)
			errs[i] = d.Dispatch(ctx, j, key)
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[3] != nil || errs[2] != nil {
		t.Fatalf("dispatch: %v", errs)
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "the model refused the request") {
		t.Fatalf("a failed job answers %v", errs[1])
	}
	var jobs int
	st.DB().QueryRow(`SELECT COUNT(*) FROM river_job WHERE queue = $1`, queue).Scan(&jobs)
	if jobs != 3 {
		t.Errorf("%d jobs for 3 calls (one dispatched twice)", jobs)
	}
	_ = hold
}
