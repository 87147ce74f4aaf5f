package deflect

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"testing"
)

func synthRun(tb testing.TB) Dataset {
	tb.Helper()
	d, _, err := Synthesize(SynthOptions{Models: []string{"claude-opus-4-7", "deepseek-v4-pro", "gpt-5.5", "grok-4.3"}, Seed: 1, SoftFlip: 0.05, ErrorRate: 0.0005})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// BenchmarkSnapshotDecode is the analysis read of a full DeflectBench run
// from its snapshots, less the SQL: decoding both.
func BenchmarkSnapshotDecode(b *testing.B) {
	d := synthRun(b)
	g, err := encodeGenerations(d.Gens)
	if err != nil {
		b.Fatal(err)
	}
	e, err := encodeJudgements(d.Evals)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(g)+len(e))/1e6, "MB")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := decodeGenerations(g, true); err != nil {
			b.Fatal(err)
		}
		if _, err := decodeJudgements(e, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotEncode is what a full DeflectBench import adds to
// encode both snapshots.
func BenchmarkSnapshotEncode(b *testing.B) {
	d := synthRun(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := encodeGenerations(d.Gens); err != nil {
			b.Fatal(err)
		}
		if _, err := encodeJudgements(d.Evals); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEvalIDRoundTrip: an eval id comes back from what a snapshot keeps of
// it, whatever it looks like beside its generation's id.
func TestEvalIDRoundTrip(t *testing.T) {
	for _, c := range [][2]string{{"g1", "g1__judge_a"}, {"g1", "g1"}, {"g1", "other"}, {"g1", "g1\x00x"}, {"g1", "\x00g1"}, {"", "x"}, {"g1", ""}, {"g1", "g"}} {
		rest := evalRest(c[0], c[1])
		if got := evalID(c[0], rest); got != c[1] {
			t.Fatalf("gen %q eval %q: kept %q, back %q", c[0], c[1], rest, got)
		}
	}
	if rest := evalRest("g1", "g1__judge_a"); rest != "__judge_a" {
		t.Fatalf("kept %q of an id that starts with its generation's", rest)
	}
}

// TestSnapshotRoundTrip: a full synthetic run comes back from its
// snapshots as the analysis reads it.
func TestSnapshotRoundTrip(t *testing.T) {
	d, _, err := Synthesize(SynthOptions{Models: []string{"m1", "m2"}, Samples: 2, Seed: 3, ErrorRate: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	d.Gens[1].CallKey, d.Evals[2].CallKey = "k1", "k2"
	g, err := encodeGenerations(d.Gens)
	if err != nil {
		t.Fatal(err)
	}
	e, err := encodeJudgements(d.Evals)
	if err != nil {
		t.Fatal(err)
	}
	gens, err := decodeGenerations(g, true)
	if err != nil {
		t.Fatal(err)
	}
	evals, err := decodeJudgements(e, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range d.Gens {
		want.ClaimText, want.PromptText, want.Timestamp, want.Response = "", "", "", ResponseStart(want.Response)
		if !reflect.DeepEqual(gens[i], want) {
			t.Fatalf("generation %d:\n got %+v\nwant %+v", i, gens[i], want)
		}
	}
	for i, want := range d.Evals {
		want.Reasoning, want.RawJudgeResponse, want.DetectedFallacies, want.Timestamp = "", "", nil, ""
		if !reflect.DeepEqual(evals[i], want) {
			t.Fatalf("judgement %d:\n got %+v\nwant %+v", i, evals[i], want)
		}
	}
	if _, err := decodeJudgements(e[:len(e)/2], true); err == nil {
		t.Fatal("half a snapshot decoded")
	}
}

// TestEncodeSnapshotIsGob: a snapshot's bytes are a fresh gob encoder's,
// whether its size was guessed right, too small or far too large — the
// format every stored snapshot has.
func TestEncodeSnapshotIsGob(t *testing.T) {
	d, _, err := Synthesize(SynthOptions{Models: []string{"m1", "m2"}, Samples: 2, Seed: 3, ErrorRate: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var c genColumns
	for i := range d.Gens {
		c.add(&d.Gens[i])
	}
	s := genSnapshot{N: c.n, Level: c.level, GenID: c.id.column(), Response: c.resp.column(), Model: c.model.column(), Frame: c.frame.column()}
	var want bytes.Buffer
	if err := gob.NewEncoder(&want).Encode(s); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{0, 100, want.Len(), 10 * want.Len()} {
		got, err := encodeSnapshot(s, size)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("size %d: %d bytes unlike gob's %d", size, len(got), want.Len())
		}
	}
}
