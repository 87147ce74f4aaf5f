package deflect

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/report"
	"github.com/valyala/fastjson"
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

// synthFiles are the upstream-format files of FALLACYLAB_SYNTH_DIR (as
// `fallacylab deflect synth --out-dir` writes them: bench/speed.sh's 1×
// and 4× runs), else the full-scale synthetic run written here.
func synthFiles(b *testing.B) (gens, evals string) {
	if dir := os.Getenv("FALLACYLAB_SYNTH_DIR"); dir != "" {
		return filepath.Join(dir, "generations.jsonl"), filepath.Join(dir, "evals.jsonl")
	}
	return writeSynthFiles(b)
}

// BenchmarkDecodeFloor is the floor `deflect report` from the JSONL files
// is measured against (issue 46): every line of both files parsed as JSON
// and nothing kept (valyala/fastjson, one thread per file, as the report
// reads them), in CPU time; beside it, the report's own reading of the
// files into the records it analyses (lean-cpu-ms).
func BenchmarkDecodeFloor(b *testing.B) {
	gens, evals := synthFiles(b)
	parse := func(path string) {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		var p fastjson.Parser
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if _, err := p.ParseBytes(sc.Bytes()); err != nil {
				b.Fatal(err)
			}
		}
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	var floor, lean time.Duration
	for range b.N {
		c0 := cpuTime()
		var wg sync.WaitGroup
		for _, p := range []string{gens, evals} {
			wg.Go(func() { parse(p) })
		}
		wg.Wait()
		c1 := cpuTime()
		if _, err := readLean(io.Discard, gens, evals); err != nil {
			b.Fatal(err)
		}
		floor, lean = floor+c1-c0, lean+cpuTime()-c1
	}
	b.ReportMetric(float64(floor.Milliseconds())/float64(b.N), "floor-cpu-ms")
	b.ReportMetric(float64(lean.Milliseconds())/float64(b.N), "lean-cpu-ms")
}
