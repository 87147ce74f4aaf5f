package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store"
)

// batchPlan asks two models in turn: OpenAI and Gemini batches hold one model
// each, so the engine must split them.
func batchPlan(n int, provider string) engine.Plan {
	jobs := make([]engine.Job, n)
	for i := range jobs {
		jobs[i] = engine.Job{ID: fmt.Sprint(i), Namespace: "b", Spec: llm.Spec{Provider: provider, Model: []string{"m", "m2"}[i%2]}, Request: llm.UserPrompt("", fmt.Sprint("batch ", i))}
	}
	return engine.SlicePlan("batch", jobs)
}

func TestBatchModeAllProviders(t *testing.T) {
	for _, prov := range []string{"openai", "anthropic", "gemini"} {
		t.Run(prov, func(t *testing.T) {
			srv := llmtest.New(llmtest.Options{BatchPolls: 2})
			defer srv.Close()
			st := openStore(t)
			opts := fastOpts(st, srv)
			opts.BatchPoll, opts.BatchSize = time.Millisecond, 40
			opts.Prices = llm.Prices{prov + ":m": {Input: 1, Output: 1}, prov + ":m2": {Input: 1, Output: 1}}
			news := map[string][]string{}
			opts.OnBatch = func(ev engine.BatchEvent) {
				s := ev.Status
				if s == "ingested" {
					s = fmt.Sprintf("ingested %d/%d", ev.Results, ev.Requests)
				}
				news[ev.ID] = append(news[ev.ID], s)
			}
			got := map[string]string{}
			sum, err := engine.New(opts).RunBatch(context.Background(), batchPlan(100, prov), func(r engine.Result) {
				if r.Err == nil {
					got[r.Job.ID] = r.Response.Text
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Done != 100 || len(got) != 100 || got["7"] != "echo: batch 7" {
				t.Fatalf("%+v %d", sum.Progress, len(got))
			}
			for _, e := range srv.Ledger() {
				if !e.Call.Batch {
					t.Fatal("batch mode made a live call")
				}
			}
			// 50 jobs per model in batches of at most 40: 2 batches per model,
			// each submitted, seen in progress and done, then fully ingested.
			if len(news) != 4 {
				t.Fatalf("%d batches reported: %v", len(news), news)
			}
			for id, ev := range news {
				if len(ev) != 4 || ev[0] != "submitted" || !strings.HasPrefix(ev[3], "ingested ") {
					t.Fatalf("batch %s: events %v", id, ev)
				}
				var n, m int
				fmt.Sscanf(ev[3], "ingested %d/%d", &n, &m)
				if n != m || (n != 40 && n != 10) {
					t.Fatalf("batch %s: %s", id, ev[3])
				}
			}
			// Cached afterwards, by live or batch runs alike.
			sum, _ = collect(t, engine.New(opts), batchPlan(100, prov))
			if sum.Cached != 100 {
				t.Fatalf("batch answers not in the cache: %+v", sum.Progress)
			}
		})
	}
}

func TestKilledBatchRunResumesPollingWithoutResubmitting(t *testing.T) {
	srv := llmtest.New(llmtest.Options{BatchPolls: 1 << 30}) // never finishes until we say
	defer srv.Close()
	st := openStore(t)
	opts := fastOpts(st, srv)
	opts.BatchPoll = time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	engine.New(opts).RunBatch(ctx, batchPlan(30, "openai"), nil) // "killed" while polling
	pend, _ := st.PendingBatches(context.Background(), "openai")
	if len(pend) != 2 || len(pend[0].Items) != 15 || len(pend[1].Items) != 15 {
		t.Fatalf("want one recorded batch per model, got %d", len(pend))
	}
	first := len(srv.Ledger())

	// The provider finishes the batch; a re-run must poll it, not resubmit.
	srv.Update(func(o *llmtest.Options) { o.BatchPolls = 1 })
	sum, err := engine.New(opts).RunBatch(context.Background(), batchPlan(30, "openai"), nil)
	if err != nil || sum.Done != 30 || sum.Failed != 0 {
		t.Fatalf("resume: %+v %v", sum, err)
	}
	if len(srv.Ledger()) != first {
		t.Fatalf("batch resubmitted: ledger %d → %d", first, len(srv.Ledger()))
	}
	if n, _ := st.CountCalls(context.Background(), store.StatusOK); n != 30 {
		t.Fatalf("stored %d", n)
	}
}

// TestBatchesRespectProviderByteLimits: Gemini inlines requests in one call
// capped at 20 MB, so large prompts are split into several batches, each
// accepted by the API.
func TestBatchesRespectProviderByteLimits(t *testing.T) {
	srv := llmtest.New(llmtest.Options{})
	defer srv.Close()
	st := openStore(t)
	opts := fastOpts(st, srv)
	opts.BatchPoll = time.Millisecond
	var sizes []int
	opts.OnBatch = func(ev engine.BatchEvent) {
		if ev.Status == "submitted" {
			sizes = append(sizes, ev.Requests)
		}
	}
	big := strings.Repeat("long context ", 2_800_000/13) // ≈ 2.8 MB per prompt
	jobs := make([]engine.Job, 7)
	for i := range jobs {
		jobs[i] = engine.Job{ID: fmt.Sprint(i), Namespace: "b", Spec: llm.Spec{Provider: "gemini", Model: "m"},
			Request: llm.UserPrompt("", fmt.Sprintf("%d %s", i, big))}
	}
	sum, err := engine.New(opts).RunBatch(context.Background(), engine.SlicePlan("big", jobs), nil)
	if err != nil || sum.Done != 7 || sum.Failed != 0 {
		t.Fatalf("%+v %v", sum, err)
	}
	// 16 MB of canonical JSON per batch: 5 prompts of 2.8 MB fit, a 6th does not.
	if fmt.Sprint(sizes) != "[5 2]" {
		t.Fatalf("batch sizes %v", sizes)
	}
}

// TestLostBatchAnswerIsFoundNotResubmitted: the provider creates the batch
// but its answer is lost. The next run must find the batch by the engine's
// token (OpenAI metadata, Gemini display name) and poll it, never submit it
// again. Anthropic cannot look batches up: the batch is submitted again and
// the user is told.
func TestLostBatchAnswerIsFoundNotResubmitted(t *testing.T) {
	for _, prov := range []string{"openai", "gemini", "anthropic"} {
		t.Run(prov, func(t *testing.T) {
			srv := llmtest.New(llmtest.Options{LoseBatchCreates: 1})
			defer srv.Close()
			st := openStore(t)
			opts := fastOpts(st, srv)
			opts.BatchPoll = time.Millisecond
			var news []string
			opts.OnBatch = func(ev engine.BatchEvent) { news = append(news, ev.Status) }
			plan := func() engine.Plan {
				jobs := make([]engine.Job, 12)
				for i := range jobs {
					jobs[i] = engine.Job{ID: fmt.Sprint(i), Namespace: "lost", Spec: llm.Spec{Provider: prov, Model: "m"}, Request: llm.UserPrompt("", fmt.Sprint("lost ", i))}
				}
				return engine.SlicePlan("lost", jobs)
			}
			if _, err := engine.New(opts).RunBatch(context.Background(), plan(), nil); err == nil {
				t.Fatal("a lost answer should fail the submitting run")
			}
			if got := len(srv.Ledger()); got != 12 {
				t.Fatalf("the provider saw %d requests, want the 12 of one batch", got)
			}
			sum, err := engine.New(opts).RunBatch(context.Background(), plan(), nil)
			if err != nil || sum.Done != 12 || sum.Failed != 0 {
				t.Fatalf("re-run: %+v %v", sum.Progress, err)
			}
			want := 12
			if prov == "anthropic" {
				want = 24
			}
			if got := len(srv.Ledger()); got != want {
				t.Fatalf("ledger %d after the re-run, want %d; events %v", got, want, news)
			}
			joined := strings.Join(news, "; ")
			if prov != "anthropic" && !strings.Contains(joined, "found after a lost answer") {
				t.Fatalf("events %v", news)
			}
			if prov == "anthropic" && !strings.Contains(joined, "may be paid twice") {
				t.Fatalf("events %v", news)
			}
			if pend, _ := st.UnconfirmedBatches(context.Background(), prov); len(pend) != 0 {
				t.Fatalf("unconfirmed batches left: %v", pend)
			}
		})
	}
}
