package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/store/postgres"
	"github.com/fallacylab/fallacylab/store/postgres/pgproxy"
)

// TestWritesRideOutARestart: the database goes away (every connection
// cut, new ones refused) just as a run stores its phase counts, its
// records and its end. With Options.Outage the writes wait for it and
// are stored once it is back; without (as before), the first write fails
// — and a run on the team store failed with "could not be stored" though
// its calls had waited through the same restart.
func TestWritesRideOutARestart(t *testing.T) {
	db := freshDB(t)
	direct, err := postgres.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	for _, outage := range []time.Duration{0, time.Minute} {
		proxy, via := pgproxy.New(t, db)
		ctx := context.Background()
		st, err := postgres.OpenWith(ctx, via, postgres.Options{Outage: outage})
		if err != nil {
			t.Fatal(err)
		}
		id, err := st.StartRun(ctx, store.Run{Name: "restart", Benchmark: "any"})
		if err != nil {
			t.Fatal(err)
		}
		proxy.Down()
		back := time.AfterFunc(time.Second, proxy.Up)
		counts := []store.PhaseCount{{Seq: 1, Phase: "generation", Model: "m", Jobs: 3, Answered: 3}}
		err = st.PutPhases(ctx, id, counts)
		if outage == 0 {
			if err == nil || !postgres.Unreachable(err) {
				t.Fatalf("with no outage allowed, a write while the database is away: %v", err)
			}
			back.Stop()
			proxy.Up()
			st.Close()
			continue
		}
		if err != nil {
			t.Fatalf("phase counts while the database restarts: %v", err)
		}
		if err := st.PutRecords(ctx, id, "k/line", []store.Record{{Key: "a", Body: []byte(`{"x":1}`)}}); err != nil {
			t.Fatalf("records: %v", err)
		}
		proxy.Cut(500 * time.Millisecond) // and again, for the run's end
		if err := st.EndRun(ctx, id, store.RunDone, ""); err != nil {
			t.Fatalf("the run's end while the database restarts: %v", err)
		}
		st.Close()
		if got, err := direct.Phases(ctx, id); err != nil || len(got) != 1 || got[0].Answered != 3 {
			t.Fatalf("phases stored: %+v (%v)", got, err)
		}
		if r, _, err := direct.Run(ctx, id); err != nil || r.Status != store.RunDone {
			t.Fatalf("the run: %+v (%v)", r, err)
		}
		if n, err := direct.CountRecords(ctx, id); err != nil || n != 1 {
			t.Fatalf("%d records stored (%v)", n, err)
		}
	}
}
