package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/store"
)

// testRecordSets: a record set replaces its kinds' records and snapshots
// in one transaction — records many to a statement, a key repeated within
// a statement and across statements keeping its first place and last
// values — and a kind written again without a snapshot loses its old one;
// a snapshot is read only in its format; an error from the records or a
// snapshot leaves everything as it was; records are read by key.
func testRecordSets(t *testing.T, st Store) {
	ctx := context.Background()
	id, _ := st.StartRun(ctx, store.Run{Name: "set", Benchmark: "any"})
	must(t, st.PutCall(ctx, okCall("k1", "answer", 1)))
	var recs []store.Record
	for i := range 150 {
		recs = append(recs, store.Record{Kind: "t/a", Key: fmt.Sprintf("a%03d", i), Body: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
	}
	recs = append(recs, store.Record{Kind: "t/a", Key: "a149", Body: json.RawMessage(`{"i":"again, same statement"}`)},
		store.Record{Kind: "t/a", Key: "a001", CallKey: "k1", Body: json.RawMessage(`{"i":"again, later statement"}`)},
		store.Record{Kind: "t/b", Key: "b", Body: json.RawMessage(`{}`)})
	snap := func(kind string, format int, data string) store.Snapshot {
		return store.Snapshot{Kind: kind, Format: format, Data: func() ([]byte, error) { return []byte(data), nil }}
	}
	set := store.RecordSetOf([]string{"t/a", "t/b"}, recs)
	set.Snapshots = []store.Snapshot{snap("t/a", 3, "A"), snap("t/b", 1, "B")}
	must(t, st.PutRecordSet(ctx, id, set))
	var keys []string
	var first string
	must(t, st.Records(ctx, id, "t/a", func(r store.Record) error {
		keys = append(keys, r.Key)
		if r.Key == "a001" {
			first = string(r.Body) + " " + r.CallKey + " " + r.Answer
		}
		return nil
	}))
	if len(keys) != 150 || keys[0] != "a000" || keys[1] != "a001" || keys[149] != "a149" || first != `{"i":"again, later statement"} k1 answer` {
		t.Fatalf("records of a set: %d, %v…, a001 %s", len(keys), keys[:3], first)
	}
	if got := kindRecords(t, st, id, "t/a"); !strings.Contains(got, `t/a/a149={"i":"again, same statement"}()`) {
		t.Fatal("a key repeated within one statement did not keep its last values")
	}
	snapOf := func(kind string, format int) string {
		t.Helper()
		data, ok, err := st.Snapshot(ctx, id, kind, format)
		must(t, err)
		if !ok {
			return "none"
		}
		return string(data)
	}
	if snapOf("t/a", 3) != "A" || snapOf("t/b", 1) != "B" || snapOf("t/a", 1) != "none" || snapOf("t/c", 1) != "none" {
		t.Fatalf("snapshots: %s %s %s", snapOf("t/a", 3), snapOf("t/b", 1), snapOf("t/a", 1))
	}
	var byKey []string
	must(t, st.RecordsByKey(ctx, id, "t/a", []string{"a120", "a001", "nope", "b"}, func(r store.Record) error {
		byKey = append(byKey, r.Key+"="+r.Answer)
		return nil
	}))
	if strings.Join(byKey, " ") != "a001=answer a120=" {
		t.Fatalf("records by key: %v", byKey)
	}
	// A record that names a call the store lacks says so.
	must(t, st.PutRecords(ctx, id, "t/c", []store.Record{{Key: "c1", CallKey: "no-such-call", Body: json.RawMessage(`{}`)},
		{Key: "c2", CallKey: "k1", Body: json.RawMessage(`{}`)}, {Key: "c3", Body: json.RawMessage(`{}`)}}))
	var missing []bool
	must(t, st.Records(ctx, id, "t/c", func(r store.Record) error { missing = append(missing, r.CallMissing); return nil }))
	if len(missing) != 3 || !missing[0] || missing[1] || missing[2] {
		t.Fatalf("calls missing: %v, want only the first", missing)
	}
	// A kind written again without a snapshot loses its own; the other
	// kind keeps its.
	must(t, st.PutRecords(ctx, id, "t/a", recs[:2]))
	if snapOf("t/a", 3) != "none" || snapOf("t/b", 1) != "B" {
		t.Fatalf("after t/a is written again: snapshots %s, %s", snapOf("t/a", 3), snapOf("t/b", 1))
	}
	// No data: no snapshot.
	none := store.RecordSetOf([]string{"t/b"}, nil)
	none.Snapshots = []store.Snapshot{{Kind: "t/b", Format: 1, Data: func() ([]byte, error) { return nil, nil }}}
	must(t, st.PutRecordSet(ctx, id, none))
	if snapOf("t/b", 1) != "none" {
		t.Fatal("a snapshot with no data kept the old one")
	}
	before := kindRecords(t, st, id, "")
	bad := errors.New("line 9 is bad")
	for _, set := range []store.RecordSet{
		{Kinds: []string{"t/a"}, Records: func(put func(store.Record) error) error {
			if err := put(store.Record{Kind: "t/a", Key: "x", Body: json.RawMessage(`1`)}); err != nil {
				return err
			}
			return bad
		}},
		{Kinds: []string{"t/a"}, Records: store.RecordSetOf(nil, recs[:1]).Records, Snapshots: []store.Snapshot{{Kind: "t/a", Data: func() ([]byte, error) { return nil, bad }}}},
	} {
		if err := st.PutRecordSet(ctx, id, set); !errors.Is(err, bad) {
			t.Fatalf("the set's error came back as %v", err)
		}
	}
	if after := kindRecords(t, st, id, ""); after != before {
		t.Fatalf("a failed write changed the records:\n%s\nwas\n%s", after, before)
	}
	if err := st.PutRecordSet(ctx, id, store.RecordSet{Kinds: []string{"t/a"}, Snapshots: []store.Snapshot{snap("t/z", 1, "Z")}}); err == nil {
		t.Fatal("stored a snapshot of a kind not written")
	}
	// Deleting the run takes its snapshots: a later run given its id
	// (SQLite gives the highest id again) must not read them.
	set = store.RecordSetOf([]string{"t/a"}, recs[:1])
	set.Snapshots = []store.Snapshot{snap("t/a", 3, "A")}
	must(t, st.PutRecordSet(ctx, id, set))
	if _, err := st.DeleteRun(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	if snapOf("t/a", 3) != "none" {
		t.Fatal("a deleted run's snapshot is still read")
	}
}

// RecordList is records held in memory, read as a store reads them (by
// kind, in order): for tests of what a Task makes of records a store
// returns, migrated ones say.
type RecordList []store.Record

// Records implements bench.RecordReader.
func (l RecordList) Records(_ context.Context, _ int64, kind string, fn func(store.Record) error) error {
	for _, r := range l {
		if kind == "" || r.Kind == kind {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// RecordLines are a run's records of every kind as "kind key body (call)"
// lines, in the store's order, for tests that compare them whole.
func RecordLines(t *testing.T, st interface {
	Records(ctx context.Context, runID int64, kind string, fn func(store.Record) error) error
}, runID int64) []string {
	t.Helper()
	var out []string
	if err := st.Records(context.Background(), runID, "", func(r store.Record) error {
		out = append(out, r.Kind+" "+r.Key+" "+string(r.Body)+" ("+r.CallKey+")")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// SameLines fails the test where got and want differ, line by line.
func SameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s:\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s, line %d: %s\nwant    %s", what, i+1, got[i], want[i])
		}
	}
}

// Compact is RecordLines with each body's JSON compacted (its key order
// kept): SQLite's and PostgreSQL's JSON functions space their output
// differently.
func Compact(t *testing.T, lines []string) []string {
	t.Helper()
	out := make([]string, len(lines))
	for i, l := range lines {
		kind, rest, _ := strings.Cut(l, " ")
		key, rest, _ := strings.Cut(rest, " ")
		j := strings.LastIndex(rest, " (")
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(rest[:j])); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		out[i] = kind + " " + key + " " + b.String() + rest[j:]
	}
	return out
}
