package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fallacylab/fallacylab/store/sqlite"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/store"
)

func open(t *testing.T) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.db")
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func call(key, status, text string) store.Call {
	c := store.Call{Key: key, Namespace: "ns", Provider: "openai", Model: "m", Request: json.RawMessage(`{}`), Status: status, Attempts: 1}
	if status == store.StatusOK {
		c.Response = &llm.Response{Text: text}
		c.Usage = llm.Usage{InputTokens: 3, OutputTokens: 4}
	} else {
		c.Error = text
	}
	return c
}

func TestCallLifecycle(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	if _, ok, err := s.GetCall(ctx, "k"); ok || err != nil {
		t.Fatalf("empty store hit: %v %v", ok, err)
	}
	if err := s.PutCall(ctx, call("k", store.StatusError, "boom")); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.GetCall(ctx, "k"); ok {
		t.Fatal("an error must not be a cache hit")
	}
	if err := s.PutCall(ctx, call("k", store.StatusOK, "first")); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCall(ctx, call("k", store.StatusOK, "second")); err != nil {
		t.Fatal(err)
	}
	c, ok, err := s.GetCall(ctx, "k")
	if err != nil || !ok || c.Response.Text != "first" || c.Attempts != 2 {
		t.Fatalf("stored answer must never be overwritten: %+v %v %v", c, ok, err)
	}
}

func TestConcurrentWritesAllCommitted(t *testing.T) {
	s, path := open(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 500; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := s.PutCall(ctx, call(fmt.Sprint("k", i), store.StatusOK, "x")); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	s.Close()
	s2, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if n, _ := s2.CountCalls(ctx, store.StatusOK); n != 500 {
		t.Fatalf("want 500 calls after reopen, got %d", n)
	}
}

func TestRunsLabelsBatchesStats(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	id, err := s.StartRun(ctx, store.Run{Name: "r", Benchmark: "ask", Version: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	s.PutCall(ctx, call("a", store.StatusOK, "x"))
	s.LinkRun(ctx, id, "a", "job-a", false)
	s.LinkRun(ctx, id, "a", "job-a", true) // ignored: already linked
	if err := s.FinishRun(ctx, id, store.RunDone); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx)
	if err != nil || len(runs) != 1 || runs[0].Status != store.RunDone || runs[0].Calls != 1 || runs[0].Cached != 0 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	if err := s.PutLabels(ctx, []store.Label{{RunID: id, Key: "a", Kind: "judge", Source: "j", Value: json.RawMessage(`{"x":1}`)}}); err != nil {
		t.Fatal(err)
	}
	if ls, _ := s.Labels(ctx, id, "judge"); len(ls) != 1 || string(ls[0].Value) != `{"x":1}` {
		t.Fatalf("labels %+v", ls)
	}
	if err := s.SaveBatch(ctx, store.Batch{ID: "b1", Provider: "openai", Items: []store.BatchItem{{Key: "z", Model: "m", Request: json.RawMessage(`{}`)}}}); err != nil {
		t.Fatal(err)
	}
	if in, _ := s.InPendingBatch(ctx, "z"); !in {
		t.Fatal("z should be pending")
	}
	pend, _ := s.PendingBatches(ctx, "openai")
	if len(pend) != 1 || len(pend[0].Items) != 1 {
		t.Fatalf("pending %+v", pend)
	}
	s.SetBatchStatus(ctx, "b1", store.BatchIngested)
	if pend, _ := s.PendingBatches(ctx, "openai"); len(pend) != 0 {
		t.Fatal("ingested batch still pending")
	}
	st, err := s.Stats(ctx)
	if err != nil || len(st) != 1 || st[0].Calls != 1 || st[0].InputTokens != 3 || st[0].UnpricedCalls != 1 {
		t.Fatalf("stats %+v %v", st, err)
	}
}

func TestUnreadableDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(path, []byte(strings.Repeat("not a database ", 200)), 0o644)
	_, err := sqlite.Open(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--db") {
		t.Fatalf("want a clear error naming the file, got %v", err)
	}
	_, err = sqlite.Open(filepath.Join(t.TempDir(), "missing", "x.db"))
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing dir: %v", err)
	}
}

func TestRunCallsAndRunStats(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	price := 0.25
	a, b, c := call("ka", store.StatusOK, "A"), call("kb", store.StatusOK, "B"), call("kc", store.StatusError, "boom")
	a.Cost, b.Cost = &price, &price
	b.Model = "m2"
	for _, x := range []store.Call{a, b, c} {
		if err := s.PutCall(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	first, _ := s.StartRun(ctx, store.Run{Name: "one", Benchmark: "prompts"})
	second, _ := s.StartRun(ctx, store.Run{Name: "two", Benchmark: "prompts", Config: json.RawMessage(`{"samples":2}`)})
	s.LinkRun(ctx, first, "ka", "q1", false)
	s.LinkRun(ctx, second, "ka", "q1", true) // the second run got ka from the cache
	s.LinkRun(ctx, second, "kb", "q2", false)
	s.LinkRun(ctx, second, "kc", "q0", false)

	r, ok, err := s.Run(ctx, second)
	if err != nil || !ok || r.Name != "two" || r.Calls != 3 || r.Cached != 1 || string(r.Config) != `{"samples":2}` {
		t.Fatalf("run: %+v %v %v", r, ok, err)
	}
	if _, ok, err := s.Run(ctx, 99); ok || err != nil {
		t.Fatalf("missing run: %v %v", ok, err)
	}
	var jobs []string
	err = s.RunCalls(ctx, second, func(rc store.RunCall) error {
		jobs = append(jobs, fmt.Sprintf("%s:%s:%v:%s", rc.Job, rc.Key, rc.Cached, rc.Status))
		if rc.Status == store.StatusOK && rc.Response == nil || rc.Status == store.StatusError && (rc.Response != nil || rc.Error != "boom") {
			t.Fatalf("call %+v", rc)
		}
		return nil
	})
	if err != nil || strings.Join(jobs, " ") != "q0:kc:false:error q1:ka:true:ok q2:kb:false:ok" {
		t.Fatalf("run calls: %v %v", jobs, err)
	}
	stats, err := s.RunModelStats(ctx, second)
	if err != nil || len(stats) != 2 {
		t.Fatalf("stats %+v %v", stats, err)
	}
	// m: ka (cached, costs nothing again) and kc (error); m2: kb paid.
	if m := stats[0]; m.Model != "m" || m.Calls != 1 || m.Errors != 1 || m.Hits != 1 || m.Cost != 0 {
		t.Fatalf("m: %+v", m)
	}
	if m := stats[1]; m.Model != "m2" || m.Calls != 1 || m.Hits != 0 || m.Cost != 0.25 || m.InputTokens != 3 {
		t.Fatalf("m2: %+v", m)
	}
}

// A new store opens while another process keeps reading the file (a test,
// or `fallacylab runs` in another terminal): switching it to WAL waits for
// the reader instead of failing with SQLITE_BUSY.
func TestOpenNewStoreWhileRead(t *testing.T) {
	for i := range 10 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("s%d.db", i))
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(50)"); err == nil {
					var n int
					db.QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&n)
					db.Close()
				}
			}
		}()
		st, err := sqlite.Open(path)
		close(stop)
		<-done
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		st.Close()
	}
}

// A new store holds its schema in its file, not in SQLite's write-ahead
// log: the migrations and the compaction of a new store left 1.9 MB of
// page images in the log beside a 16 KB file, until SQLite's own
// checkpoint at 1,000 pages, which filled a small disk before the first
// call (TestFullDiskThenKill in CI).
func TestNewStoreLeavesNoLog(t *testing.T) {
	_, path := open(t)
	db, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.Stat(path + "-wal")
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if log != nil && log.Size() > 0 {
		t.Fatalf("a new store, open: %d bytes in its file, %d in its write-ahead log", db.Size(), log.Size())
	}
	t.Logf("a new store: %d bytes", db.Size())
}
