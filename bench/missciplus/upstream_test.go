package missciplus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	b, err := os.ReadFile("testdata/upstream.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Runs []struct {
			Subtask int
			Split   string
			Full    bool
			Ranker  string
			Seed    uint64
			Scores  map[string]float64
			SHA     string `json:"rankings_sha256"`
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
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
		rk := rks[0]
		h := sha256.New()
		for _, x := range rk {
			h.Write([]byte(x.ID + "\t" + strings.Join(x.Ranked, ",") + "\n"))
		}
		name := r.Split + " " + r.Ranker
		if got := hex.EncodeToString(h.Sum(nil)); got != r.SHA {
			t.Errorf("subtask %d %s seed %d full %v: rankings differ from upstream's", r.Subtask, name, r.Seed, r.Full)
		}
		sc, err := Score(r.Subtask, args, rk, r.Full)
		if err != nil {
			t.Fatal(err)
		}
		names := Subtask1Metrics
		count := "instances"
		if r.Subtask == 2 {
			names, count = Subtask2Metrics, "num_arguments"
		}
		if float64(sc.N) != r.Scores[count] {
			t.Errorf("subtask %d %s: %d arguments scored, upstream %v", r.Subtask, name, sc.N, r.Scores[count])
		}
		for j, m := range names {
			want, ok := r.Scores[m]
			if !ok {
				t.Fatalf("upstream has no %s", m)
			}
			if got := sc.Mean(j); math.Abs(got-want) > 1e-9 {
				t.Errorf("subtask %d %s seed %d full %v %s: %.12f, upstream %.12f", r.Subtask, name, r.Seed, r.Full, m, got, want)
			}
		}
	}
}
