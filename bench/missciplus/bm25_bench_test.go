package missciplus

import "testing"

// BenchmarkBM25TestFullStudy ranks every passage of every test argument's
// study with upstream's BM25 (subtask 1 --fullstudy): the corpus tokenised
// (spans cached after the first round), indexed and queried 84 times.
func BenchmarkBM25TestFullStudy(b *testing.B) {
	args, err := Load("test")
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		BM25(args, true)
	}
}
