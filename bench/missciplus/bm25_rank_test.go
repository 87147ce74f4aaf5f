package missciplus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestBM25AgainstUpstream: upstream's bm25.py run unmodified
// (testdata/make_bm25_rank.py; spaCy stood in for by the transcription
// spaCy's own tests pass) ranks every passage as BM25 does, and its
// evaluators give the same scores to 1e-9, for subtask 1 closed and open
// and subtask 2 with and without --p0, on dev and test.
func TestBM25AgainstUpstream(t *testing.T) {
	ref := readUpstream(t, "testdata/bm25_rank.json")
	if len(ref.Runs) != 10 || len(ref.Tokens) != 2 {
		t.Fatalf("%d reference runs and %d token digests, want 10 and 2", len(ref.Runs), len(ref.Tokens))
	}
	for split, want := range ref.Tokens {
		args, err := Load(split)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		seen := map[string]bool{}
		for _, a := range args {
			h.Write([]byte(a.ID + "\t" + strings.Join(bm25Words(a.Argument.Claim), "\x1f") + "\n"))
			for _, id := range a.Passages(true) {
				if seen[id] {
					continue
				}
				seen[id] = true
				p, _ := a.Study.All.Get(id)
				h.Write([]byte(id + "\t" + strings.Join(bm25Words(p.Text(false)), "\x1f") + "\n"))
			}
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			t.Errorf("%s: the tokens of the claims and passages differ from upstream's", split)
		}
	}
	for _, r := range ref.Runs {
		args, err := Load(r.Split)
		if err != nil {
			t.Fatal(err)
		}
		if r.P0 {
			args = WithP0(args, r.Seed)
		}
		checkUpstream(t, fmt.Sprintf("subtask %d %s p0 %v seed %d full %v", r.Subtask, r.Split, r.P0, r.Seed, r.Full), r.Subtask, args, BM25(args, r.Full), r.Full, r.SHA, r.Scores)
	}
}
