package inspectlog

import (
	"slices"
	"strings"
	"testing"
)

// logWith is an inspect log in its JSON form: two samples of claim a, one
// of claim b, and the stderr's params as given.
func logWith(params, thirdMeta string) string {
	return `{"status": "success", "eval": {"task": "t", "model": "m", "scorers": [{"name": "s"}]},
	"results": {"scores": [{"name": "s", "metrics": {"mean": {"name": "mean", "value": 0.5, "params": {}},
		"stderr": {"name": "stderr", "value": 0.1, "params": ` + params + `}}}]},
	"samples": [
		{"id": 1, "epoch": 1, "scores": {"s": {"value": "C"}}, "metadata": {"claim": "a", "cluster": "x"}},
		{"id": 2, "epoch": 1, "scores": {"s": {"value": "I"}}, "metadata": {"claim": "a", "cluster": "x"}},
		{"id": 3, "epoch": 1, "scores": {"s": {"value": "C"}}, "metadata": ` + thirdMeta + `}]}`
}

// An imported log keeps the clusters its stderr names (inspect's
// stderr(cluster="claim")), else fallacylab's own "cluster" field where
// every sample has it, else each sample is its own: a comparison of an
// exported run imported back resamples its claims, not its generations
// one by one (whose intervals and tests were far too narrow).
func TestImportKeepsTheLogsClusters(t *testing.T) {
	for _, c := range []struct {
		name, params, third, by string
		clusters                []string
	}{
		{"stderr names claim", `{"cluster": "claim"}`, `{"claim": "b"}`, "claim", []string{"a", "a", "b"}},
		{"fallacylab's field", `{}`, `{"cluster": "y"}`, "cluster", []string{"x", "x", "y"}},
		{"none", `{}`, `{"claim": "b"}`, "", []string{"1", "2", "3"}},
	} {
		h, samples, err := Read("log.json", []byte(logWith(c.params, c.third)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, it := range metrics(h, samples)[0].Items {
			got = append(got, it.Cluster)
		}
		if h.ClusterBy != c.by || !slices.Equal(got, c.clusters) {
			t.Errorf("%s: clustered by %q: %v, want %q: %v", c.name, h.ClusterBy, got, c.by, c.clusters)
		}
	}
	_, _, err := Read("log.json", []byte(logWith(`{"cluster": "claim"}`, `{"other": 1}`)))
	if err == nil || !strings.Contains(err.Error(), "log.json: samples[2] (id 3): metadata.claim: missing") {
		t.Fatalf("a sample without the field the stderr clusters by: %v", err)
	}
}
