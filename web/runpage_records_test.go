package web_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/web"
)

// countingStore counts the reads of a kind of records.
type countingStore struct {
	backend.Store
	kind  string
	reads atomic.Int64
}

func (s *countingStore) Records(ctx context.Context, runID int64, kind string, fn func(store.Record) error) error {
	if kind == s.kind || kind == "" {
		s.reads.Add(1)
	}
	return s.Store.Records(ctx, runID, kind, fn)
}

// TestRunPageReadsNoRecords: a DeflectBench run's page is its report,
// made from the run's analysis snapshot: opening it reads none of the
// run's generation records (a 24,000-generation run's page answered in a
// twelfth of the time). The lists read them on first use, and show them.
func TestRunPageReadsNoRecords(t *testing.T) {
	sq, id, _ := seed(t, []string{"model-a", "model-b"}, 2)
	st := &countingStore{Store: sq, kind: deflect.KindGeneration}
	v, err := web.New(st)
	if err != nil {
		t.Fatal(err)
	}
	v.Resamples = 50
	h := v.Handler()
	code, body, _ := get(t, h, fmt.Sprintf("/runs/%d", id))
	if code != 200 || !strings.Contains(body, "Generations by model") {
		t.Fatalf("run page: %d\n%.500s", code, body)
	}
	if n := st.reads.Load(); n != 0 {
		t.Fatalf("the run page read the generation records %d times", n)
	}
	code, body, _ = get(t, h, fmt.Sprintf("/runs/%d/generations?model=model-b", id))
	if code != 200 || !strings.Contains(body, "model-b") {
		t.Fatalf("a filtered list: %d\n%.500s", code, body)
	}
	if st.reads.Load() == 0 {
		t.Fatal("the list did not read the records")
	}
}
