package deflect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/internal/outfile"
	"github.com/fallacylab/fallacylab/internal/reportcache"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
)

func newImportCmd(h bench.Host) *cobra.Command {
	var gens, evals, name string
	cmd := &cobra.Command{
		Use:     "import",
		Short:   "Store published upstream-format generations and evals as a run, to re-analyse them",
		Example: `  fallacylab deflect import --generations generations_gpt_5_5.jsonl --evals evals_gpt_5_4_mini.jsonl,evals_claude_haiku_4_5_20251001.jsonl`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if gens == "" {
				return fmt.Errorf("--generations is required")
			}
			return importRun(cmd.Context(), h, gens, evals, name)
		},
	}
	cmd.Flags().StringVar(&gens, "generations", "", "generations JSONL (upstream format): files or globs, comma-separated (upstream writes one per model)")
	cmd.Flags().StringVar(&evals, "evals", "", "evals JSONL files or globs, comma-separated")
	cmd.Flags().StringVar(&name, "name", "deflect import", "run name")
	return cmd
}

// importRun stores upstream-format files as a run, in one transaction: the
// generations are parsed first, then written while the evals are parsed
// (on the other core), then the evals written. The files' digest (the
// run's identity) is taken while they are parsed. Bad input in either file
// leaves no run and no record.
func importRun(ctx context.Context, h bench.Host, gensPaths, evalsPaths, name string) error {
	stdout, stderr := h.Settings().Stdout, h.Settings().Stderr
	digest := make(chan string, 1)
	go func() { digest <- importDigest(gensPaths, evalsPaths) }()
	gens, genFiles, err := readGenerationFiles(gensPaths)
	if err != nil {
		return err
	}
	type parsed struct {
		evals []Eval
		err   error
	}
	evalsRead := make(chan parsed, 1)
	go func() {
		ev, err := readEvalFiles(evalsPaths, false)
		evalsRead <- parsed{ev, err}
	}()
	evals := sync.OnceValue(func() parsed { return <-evalsRead })
	s, err := h.Open(ctx, true)
	if err != nil {
		return err
	}
	defer s.Close()
	d, _, _ := Dedupe(Dataset{Gens: gens})
	run, err := s.Start(ctx, runner.Spec{Name: name, Options: map[string]string{"generations": gensPaths, "evals": evalsPaths},
		Identity: []any{<-digest}})
	if err != nil {
		return err
	}
	// The report with its default options is analysed on the other core
	// while the records are written, and left in the report cache: the
	// first `deflect report` (or viewer page) of the run reads it back
	// instead of analysing 72,000 records again.
	warm := make(chan *report.Report, 1)
	dataset := make(chan Dataset, 1)
	if reportcache.Enabled() {
		go func() {
			d, ok := <-dataset
			if !ok {
				warm <- nil
				return
			}
			rep, err := Analyze(d, DefaultAnalysis())
			if err != nil {
				rep = nil // the report will say why
			}
			warm <- rep
		}()
	} else {
		warm <- nil
	}
	droppedEvals := 0
	err = SaveRecordsThen(ctx, s.Env("").Records, run.ID, d.Gens, func() ([]Eval, error) {
		p := evals()
		if p.err != nil {
			return nil, p.err
		}
		var de Dataset
		de, _, droppedEvals = Dedupe(Dataset{Evals: p.evals})
		d.Evals = de.Evals
		dataset <- d
		return d.Evals, nil
	})
	close(dataset)
	if p := evals(); p.err != nil {
		// Bad input: nothing was written; the run it started goes too.
		<-warm
		if derr := s.Discard(ctx, run.ID); derr != nil {
			return fmt.Errorf("%w (and the run %d it started could not be removed: %v)", p.err, run.ID, derr)
		}
		return p.err
	}
	sayRead(stderr, len(gens)-len(d.Gens), droppedEvals, genFiles, len(d.Gens))
	if err := run.Finish(ctx, err); err != nil {
		return err
	}
	if rep := <-warm; rep != nil {
		keepReport(ctx, s, run.ID, rep)
	}
	fmt.Fprintf(stdout, "imported %d generations and %d evals as run %d: fallacylab deflect report --run %d\n", len(d.Gens), len(d.Evals), run.ID, run.ID)
	return nil
}

// readGenerationFiles reads the generations files (files or globs,
// comma-separated), and says how many files there were.
func readGenerationFiles(paths string) ([]Generation, int, error) {
	files, err := expandPaths("generations", paths)
	if err != nil {
		return nil, 0, err
	}
	var out []Generation
	for _, p := range files {
		got, err := readFileWith(p, func(r io.Reader) ([]Generation, error) { return ReadGenerationsFrom(r, p) })
		if err != nil {
			return nil, 0, err
		}
		out = append(out, got...)
	}
	return out, len(files), nil
}

// readEvalFiles reads the evals files.
func readEvalFiles(paths string, forAnalysis bool) ([]Eval, error) {
	files, err := expandPaths("evals", paths)
	if err != nil {
		return nil, err
	}
	var out []Eval
	for _, p := range files {
		ev, err := readFileWith(p, func(r io.Reader) ([]Eval, error) { return ReadEvalsFrom(r, p, forAnalysis) })
		if err != nil {
			return nil, err
		}
		out = append(out, ev...)
	}
	return out, nil
}

// readFileWith opens path and reads it with read.
func readFileWith[T any](path string, read func(io.Reader) ([]T, error)) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f)
}

// expandPaths splits a comma-separated list of files and globs; a glob that
// matches nothing is an error.
func expandPaths(what, list string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", what, p, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: %q matches no file", what, p)
		}
		out = append(out, m...)
	}
	return out, nil
}

// importDigest identifies an import by the contents of its files.
func importDigest(gens, evals string) string {
	g, _ := expandPaths("generations", gens)
	e, _ := expandPaths("evals", evals)
	return fileDigest(append(g, e...)...)
}

// fileDigest is the SHA-256 of the named files' contents (a file that cannot
// be read counts as its name).
func fileDigest(paths ...string) string {
	h := sha256.New()
	for _, p := range paths {
		f, err := os.Open(strings.TrimSpace(p))
		if err != nil {
			h.Write([]byte(p))
			continue
		}
		io.Copy(h, f)
		f.Close()
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func newSynthCmd(h bench.Host) *cobra.Command {
	var models, out string
	var samples int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "synth",
		Short: "Write a synthetic full-scale run (upstream format) with known rates, for tests and benchmarks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout := h.Settings().Stdout
			d, _, err := Synthesize(SynthOptions{Models: strings.Split(models, ","), Samples: samples, Seed: seed, SoftFlip: 0.05, ErrorRate: 0.0005})
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			write := func(name string, n int, item func(i int) any) error {
				return outfile.Write(stdout, filepath.Join(out, name), func(w io.Writer) error {
					enc := json.NewEncoder(w)
					for i := range n {
						if err := enc.Encode(item(i)); err != nil {
							return err
						}
					}
					return nil
				})
			}
			if err := write("generations.jsonl", len(d.Gens), func(i int) any { return d.Gens[i] }); err != nil {
				return err
			}
			if err := write("evals.jsonl", len(d.Evals), func(i int) any { return d.Evals[i] }); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %d generations and %d evals to %s\n", len(d.Gens), len(d.Evals), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&models, "models", "claude-opus-4-7,deepseek-v4-pro,gpt-5.5,grok-4.3", "model names")
	cmd.Flags().IntVar(&samples, "samples", 5, "runs per condition")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed")
	cmd.Flags().StringVar(&out, "out-dir", "synthetic", "output directory")
	cmd.Flags().StringVar(&out, "out", "synthetic", "the same as --out-dir")
	cmd.Flags().MarkHidden("out")
	return cmd
}
