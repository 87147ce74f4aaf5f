package deflect

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/fallacylab/fallacylab/report"
)

// writeSynthFiles writes the full-scale synthetic run (4 models × 6,000
// generations, two judges) as upstream-format JSONL files, as
// `fallacylab deflect synth` does.
func writeSynthFiles(b *testing.B) (gens, evals string) {
	b.Helper()
	d, _, err := Synthesize(SynthOptions{Models: []string{"claude-opus-4-7", "deepseek-v4-pro", "gpt-5.5", "grok-4.3"}, Seed: 1, SoftFlip: 0.05, ErrorRate: 0.0005})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	write := func(name string, n int, item func(int) any) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		enc := json.NewEncoder(f)
		for i := range n {
			if err := enc.Encode(item(i)); err != nil {
				b.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		return p
	}
	return write("generations.jsonl", len(d.Gens), func(i int) any { return d.Gens[i] }),
		write("evals.jsonl", len(d.Evals), func(i int) any { return d.Evals[i] })
}

// BenchmarkReportFromJSONL is the issue's figure for `deflect report
// --generations … --evals …`: read upstream's files, analyse with every CI
// (1,000 resamples) and render the Markdown report.
func BenchmarkReportFromJSONL(b *testing.B) {
	gens, evals := writeSynthFiles(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var d Dataset
		gf, err := os.Open(gens)
		if err != nil {
			b.Fatal(err)
		}
		d.Gens, err = ReadGenerationsFrom(gf, gens)
		gf.Close()
		if err != nil {
			b.Fatal(err)
		}
		ef, err := os.Open(evals)
		if err != nil {
			b.Fatal(err)
		}
		d.Evals, err = ReadEvalsFrom(ef, evals, true)
		ef.Close()
		if err != nil {
			b.Fatal(err)
		}
		d, _, _ = Dedupe(d)
		rep, err := Analyze(d, Options{Seed: 20260101})
		if err != nil {
			b.Fatal(err)
		}
		if err := report.Render(io.Discard, rep, report.Markdown); err != nil {
			b.Fatal(err)
		}
	}
}
