package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/store"
)

// TestClaimCallRead: a claim that reads the key's answer claims as
// ClaimCall does (a free key, its own again, another's once its lease ran
// out; not another's live one) and reads the answer stored — including one
// committed while the claim waited on the claim's row: the answer's
// transaction ends the claim, and a claim read in one statement would read
// from before it (and pay for the call again).
func TestClaimCallRead(t *testing.T) {
	st := freshStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	claim := func(key, owner string, lease time.Duration) (bool, bool) {
		t.Helper()
		got, c, answered, err := st.ClaimCallRead(ctx, key, owner, lease)
		if err != nil {
			t.Fatal(err)
		}
		if answered != (c.Response != nil) || answered && c.Key != key {
			t.Fatalf("claim of %s read %+v (answered %v)", key, c, answered)
		}
		return got, answered
	}
	if got, answered := claim("k1", "a", time.Minute); !got || answered {
		t.Fatalf("a free key: got %v, answered %v", got, answered)
	}
	if got, _ := claim("k1", "b", time.Minute); got {
		t.Fatal("b got a's live claim")
	}
	if got, _ := claim("k1", "a", time.Minute); !got {
		t.Fatal("a did not get its own claim again")
	}
	if got, _ := claim("k2", "a", -time.Second); !got {
		t.Fatal("a free key")
	}
	if got, _ := claim("k2", "b", time.Minute); !got {
		t.Fatal("b did not take a claim whose lease ran out")
	}

	// a answers k1 in a transaction that waits: b's claim waits on the
	// claim's row, and reads the answer once it is committed.
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`DELETE FROM call_claims WHERE key = 'k1'`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO calls (key, namespace, provider, model, request, response, status, attempts, created_at)
		VALUES ('k1', 'test', 'openai', 'm', '{}', '{"text":"a''s answer"}', 'ok', 1, '2026-12-07T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		got  bool
		call store.Call
		ok   bool
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		got, c, ok, err := st.ClaimCallRead(ctx, "k1", "b", time.Minute)
		done <- outcome{got, c, ok, err}
	}()
	var waiting int
	for waiting == 0 && ctx.Err() == nil {
		st.DB().QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%fl_claim%'`).Scan(&waiting)
		time.Sleep(5 * time.Millisecond)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil || !o.got || !o.ok || o.call.Response == nil || o.call.Response.Text != "a's answer" {
		t.Fatalf("b's claim after a's answer: got %v, answered %v, %+v (%v)", o.got, o.ok, o.call.Response, o.err)
	}
}
