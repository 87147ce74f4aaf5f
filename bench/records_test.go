package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/store"
)

type fakeRecords []store.Record

func (f fakeRecords) Records(_ context.Context, _ int64, kind string, fn func(store.Record) error) error {
	for _, r := range f {
		if r.Kind == kind {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestReadOneAndAll(t *testing.T) {
	rs := fakeRecords{{Kind: "x/setup", Body: []byte(`{"n":3}`)}, {Kind: "x/line", Key: "a", Body: []byte(`1`)}, {Kind: "x/line", Key: "b", Body: []byte(`2`)}}
	var setup struct{ N int }
	if found, err := ReadOne(t.Context(), rs, 1, "x/setup", &setup); !found || err != nil || setup.N != 3 {
		t.Fatalf("ReadOne: %v %v %+v", found, err, setup)
	}
	if found, err := ReadOne(t.Context(), rs, 1, "x/none", &setup); found || err != nil {
		t.Fatalf("ReadOne of no record: %v %v", found, err)
	}
	lines, err := ReadAll[int](t.Context(), rs, 1, "x/line", "line")
	if err != nil || len(lines) != 2 || lines[0] != 1 || lines[1] != 2 {
		t.Fatalf("ReadAll: %v %v", lines, err)
	}
	bad := append(rs, store.Record{Kind: "x/line", Key: "c", Body: []byte(`"no"`)})
	if _, err := ReadAll[int](t.Context(), bad, 1, "x/line", "line"); err == nil || !strings.Contains(err.Error(), "line c") {
		t.Fatalf("a bad record: %v", err)
	}
}
