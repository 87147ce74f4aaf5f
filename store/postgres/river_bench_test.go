package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/fallacylab/fallacylab/store/postgres"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// BenchmarkRiverFetch is the cost of a worker's fetch of its next 32 jobs
// (River's own JobGetAvailable, as its producer runs it) from a queue that
// holds 100,000 queued jobs; each fetch is rolled back, so every one reads
// the full queue.
func BenchmarkRiverFetch(b *testing.B) {
	ctx := context.Background()
	u := freshDB(b)
	st, err := postgres.Open(ctx, u) // migrates: fallacylab's tables and River's
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	driver := riverpgxv5.New(pool)
	c, err := river.NewClient(driver, &river.Config{})
	if err != nil {
		b.Fatal(err)
	}
	queue := postgres.QueueName("openai", "gpt-4.1-mini", "", false)
	const n = 100_000
	params := make([]river.InsertManyParams, n)
	for i := range params {
		params[i] = river.InsertManyParams{Args: postgres.CallArgs{Key: fmt.Sprintf("key-%06d", i), Run: 1, JobID: fmt.Sprint(i), Job: "{}"},
			InsertOpts: &river.InsertOpts{Queue: queue}}
	}
	if _, err := c.InsertManyFast(ctx, params); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE river_job`); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		tx, err := pool.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		res, err := driver.UnwrapExecutor(tx).JobGetAvailable(ctx, &riverdriver.JobGetAvailableParams{
			ClientID: "bench", MaxAttemptedBy: 100, MaxToLock: 32, Queue: queue})
		tx.Rollback(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Jobs) != 32 {
			b.Fatalf("fetched %d jobs, want 32", len(res.Jobs))
		}
	}
}
