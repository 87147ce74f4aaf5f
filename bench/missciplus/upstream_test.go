package missciplus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// TestUpstreamExact: subtask 1 (closed and open) and subtask 2's ordered
// and random baselines equal upstream's, run unmodified
// (testdata/make_upstream.py): the same rankings, passage for passage
// (their SHA-256), and every score to 1e-9, on both splits and five seeds.
func TestUpstreamExact(t *testing.T) {
	ref := readUpstream(t, "testdata/upstream.json")
	if len(ref.Runs) != 36 {
		t.Fatalf("%d reference runs, want 36", len(ref.Runs))
	}
	for _, r := range ref.Runs {
		args, err := Load(r.Split)
		if err != nil {
			t.Fatal(err)
		}
		rks, err := Rank(r.Ranker, args, r.Full, []uint64{r.Seed})
		if err != nil {
			t.Fatal(err)
		}
		checkUpstream(t, fmt.Sprintf("subtask %d %s %s seed %d full %v", r.Subtask, r.Split, r.Ranker, r.Seed, r.Full), r.Subtask, args, rks[0], r.Full, r.SHA, r.Scores)
	}
}

// upstreamRuns are a fixture of upstream's ranking runs (make_upstream.py,
// make_bm25_rank.py): each run's setting, its scores and the SHA-256 of
// its rankings; and, for BM25, of the tokens of each split.
type upstreamRuns struct {
	Runs []struct {
		Subtask int
		Split   string
		Full    bool
		Ranker  string
		P0      bool
		Seed    uint64
		Scores  map[string]float64
		SHA     string `json:"rankings_sha256"`
	}
	Tokens map[string]string `json:"tokens_sha256"`
}

func readUpstream(t *testing.T, name string) upstreamRuns {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var ref upstreamRuns
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// checkUpstream requires rankings whose SHA-256 ("id<TAB>p1,p2,…\n" per
// argument) is upstream's and scores equal to upstream's to 1e-9.
func checkUpstream(t *testing.T, name string, subtask int, args []Argument, rk []Ranking, full bool, sha string, want map[string]float64) {
	t.Helper()
	h := sha256.New()
	for _, x := range rk {
		h.Write([]byte(x.ID + "\t" + strings.Join(x.Ranked, ",") + "\n"))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		t.Errorf("%s: rankings differ from upstream's", name)
	}
	sc, err := Score(subtask, args, rk, full)
	if err != nil {
		t.Fatal(err)
	}
	names, count := Subtask1Metrics, "instances"
	if subtask == 2 {
		names, count = Subtask2Metrics, "num_arguments"
	}
	if float64(sc.N) != want[count] {
		t.Errorf("%s: %d arguments scored, upstream %v", name, sc.N, want[count])
	}
	for j, m := range names {
		w, ok := want[m]
		if !ok {
			t.Fatalf("upstream has no %s", m)
		}
		if got := sc.Mean(j); math.Abs(got-w) > 1e-9 {
			t.Errorf("%s %s: %.12f, upstream %.12f", name, m, got, w)
		}
	}
}
