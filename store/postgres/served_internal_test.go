package postgres

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestServedWatchSaysOnceForEachReason: a run waiting on two queues that no
// worker serves says nothing for UnservedAfter, then one line naming both
// (no worker alive), nothing more while that holds; when a worker comes
// that serves one and skips the other, it says the first is served and why
// the second still waits; and nothing once it waits on neither.
func TestServedWatchSaysOnceForEachReason(t *testing.T) {
	lab := QueueInfo{Name: "lab_m1", Provider: "lab", Model: "m1"}
	oai := QueueInfo{Name: "openai_x", Provider: "openai", Model: "x"}
	both := map[string]QueueInfo{lab.Name: lab, oai.Name: oai}
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	var w servedWatch
	steps := []struct {
		at      time.Duration
		waiting map[string]QueueInfo
		live    [][]string
		want    []string // substrings, one per line said
	}{
		{0, both, nil, nil},
		{9 * time.Second, both, [][]string{{"other_queue"}}, nil}, // a worker of another queue: not yet 10 s
		{10 * time.Second, both, nil, []string{"no worker is alive to make this run's calls of lab:m1, openai:x, for 10s now"}},
		{12 * time.Second, both, nil, nil},
		{13 * time.Second, both, [][]string{{"lab_m1"}}, []string{
			"a worker serves lab:m1 now (queue lab_m1)",
			"openai:x (queue openai_x) has waited 13s for a worker: the worker alive does not serve it"}},
		{14 * time.Second, both, [][]string{{"lab_m1"}, {"lab_m1"}}, nil},
		{15 * time.Second, nil, nil, nil},
		// Waiting again after a while: a new spell, said after 10 s again.
		{20 * time.Second, map[string]QueueInfo{oai.Name: oai}, [][]string{{"lab_m1"}, {}}, nil},
		{29 * time.Second, map[string]QueueInfo{oai.Name: oai}, [][]string{{"lab_m1"}, {}}, nil},
		{30 * time.Second, map[string]QueueInfo{oai.Name: oai}, [][]string{{"lab_m1"}, {}}, []string{"openai:x (queue openai_x) has waited 10s for a worker: the 2 workers alive do not serve it"}},
	}
	for i, s := range steps {
		got := w.news(t0.Add(s.at), s.waiting, s.live, 10*time.Second)
		ok := len(got) == len(s.want)
		for k := 0; ok && k < len(got); k++ {
			ok = strings.Contains(got[k], s.want[k])
		}
		if !ok {
			t.Fatalf("step %d (at %s): said %q, want lines with %q", i, s.at, got, s.want)
		}
	}
	if !slices.Equal(sortedKeys(w.since), []string{"openai_x"}) {
		t.Fatalf("the watch holds %v, want only the queue still waited on", w.since)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
