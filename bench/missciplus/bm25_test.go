package missciplus

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestBM25OkapiEqualsRankBM25: on seeded corpora (empty documents, words
// in most documents, repeated and unknown query words), every score equals
// rank_bm25 0.2.2's own BM25Okapi (testdata/make_bm25.py) to 1e-12.
func TestBM25OkapiEqualsRankBM25(t *testing.T) {
	b, err := os.ReadFile("testdata/bm25.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Corpus  [][]string
			Queries [][]string
			Scores  [][]float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	n := 0
	for ci, c := range ref.Cases {
		m := NewBM25Okapi(c.Corpus)
		for qi, q := range c.Queries {
			got := m.Scores(q)
			if len(got) != len(c.Scores[qi]) {
				t.Fatalf("case %d: %d scores, want %d", ci, len(got), len(c.Scores[qi]))
			}
			for d, w := range c.Scores[qi] {
				if math.Abs(got[d]-w) > 1e-12 {
					t.Errorf("case %d query %d doc %d: %.15f, rank_bm25 %.15f", ci, qi, d, got[d], w)
				}
				n++
			}
		}
	}
	if n < 200 {
		t.Errorf("only %d scores compared", n)
	}
}
