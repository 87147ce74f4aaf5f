package scorer_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm"
	"github.com/fallacylab/fallacylab/scorer"
)

func TestClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Pairs []scorer.Pair }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", 400)
			return
		}
		out := map[string][]map[string]float64{"scores": {}}
		for _, p := range in.Pairs {
			out["scores"] = append(out["scores"], map[string]float64{"bertscore": float64(len(p.Reference)) / float64(len(p.Prediction))})
		}
		if strings.Contains(r.URL.Path, "short") {
			out["scores"] = out["scores"][:1]
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	pairs := []scorer.Pair{{Reference: "abcd", Prediction: "ab"}, {Reference: "a", Prediction: "abcd"}}
	got, err := scorer.Client{URL: srv.URL}.Score(context.Background(), pairs)
	if err != nil || len(got) != 2 || got[0]["bertscore"] != 2 || got[1]["bertscore"] != 0.25 {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := (scorer.Client{URL: srv.URL + "/short"}).Score(context.Background(), pairs); err == nil || !strings.Contains(err.Error(), "1 scores for 2 pairs") {
		t.Fatalf("a short answer: %v", err)
	}
	if _, err := (scorer.Client{URL: srv.URL + "/x"}).Score(context.Background(), nil); err != nil {
		t.Fatalf("no pairs: %v", err)
	}
}

// TestBusyScorerIsRetried: a scorer that is busy (429, 5xx) or not
// answering gives an error the engine tries again; a refused request
// (4xx) is final.
func TestBusyScorerIsRetried(t *testing.T) {
	status := http.StatusServiceUnavailable
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
	pairs := []llm.ScorePair{{Reference: "a", Prediction: "b"}}
	for _, c := range []struct {
		status int
		retry  bool
	}{{503, true}, {429, true}, {500, true}, {400, false}, {404, false}} {
		status = c.status
		_, err := scorer.Provider{}.Score(context.Background(), srv.URL, pairs)
		if err == nil || llm.IsRetryable(err) != c.retry {
			t.Fatalf("HTTP %d: %v (retryable %v), want retryable %v", c.status, err, llm.IsRetryable(err), c.retry)
		}
	}
	srv.Close()
	if _, err := (scorer.Provider{}).Score(context.Background(), srv.URL, pairs); err == nil || !llm.IsRetryable(err) {
		t.Fatalf("a scorer that does not answer: %v, want a retryable error", err)
	}
}
