package deflect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

func newImportCmd(h bench.Host) *cobra.Command {
	var gens, evals, name string
	cmd := &cobra.Command{
		Use:         "import",
		Annotations: bench.HoldsRun(),
		Short:       "Store published upstream-format generations and evals as a run, to re-analyse them",
		Example:     `  fallacylab deflect import --generations generations_gpt_5_5.jsonl --evals evals_gpt_5_4_mini.jsonl,evals_claude_haiku_4_5_20251001.jsonl`,
		Args:        cobra.NoArgs,
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

// importRun stores upstream-format files as a run, in one transaction,
// streaming: each file is read a block of lines at a time (on every CPU)
// while the records before are written, and only the keys seen, the
// snapshot's few bytes a record are held, never the files. The
// files' digest (the run's identity) is taken first. Bad input in any file
// leaves no run and no record.
func importRun(ctx context.Context, h bench.Host, gensPaths, evalsPaths, name string) error {
	stdout, stderr := h.Settings().Stdout, h.Settings().Stderr
	files, err := newFileStream(gensPaths, evalsPaths)
	if err != nil {
		return err
	}
	digest := importDigest(gensPaths, evalsPaths)
	s, err := h.Open(ctx, true)
	if err != nil {
		return err
	}
	defer s.Close()
	im := importer{files: files}
	if !h.Settings().Quiet {
		im.progress = stderr
	}
	env := s.Env("")
	_, err = s.Run(ctx, runner.Spec{Name: name, Options: map[string]string{"generations": gensPaths, "evals": evalsPaths},
		Identity: []any{digest},
		Complete: func(ctx context.Context, runID int64) error {
			if err := env.Records.PutRecordSet(ctx, runID, im.set()); err != nil {
				return err
			}
			files.say(stderr, im.gens)
			im.outOfRange.say(stderr)
			return nil
		},
		// Bad input: nothing was written; the run it started goes too.
		Discard: func(err error) bool {
			var bad inputError
			return errors.As(err, &bad)
		},
		Done: func(ctx context.Context, runID int64, exit error) error {
			if exit != nil {
				return exit
			}
			// The report with its default options is kept with the run
			// (and in the report cache): the first `deflect report` (or
			// viewer page) of the run reads it back. It is analysed from
			// the snapshot just written, after the import, so that the
			// import's memory and the analysis's are never held at once.
			keepReport(ctx, env, runID)
			fmt.Fprintf(stdout, "imported %d generations and %d evals as run %d: fallacylab deflect report --run %d\n", im.gens, im.evals, runID, runID)
			return nil
		}})
	return err
}

// importer is the record set of an import: the files' records as they are
// read, with their snapshots built alongside.
type importer struct {
	files       *fileStream
	gens, evals int
	genCols     genColumns
	evalCols    evalColumns
	// outOfRange counts, per rubric field, the judgements whose value was
	// not 0, 1, true, false or null (read as missing).
	outOfRange rubricOdd
	// progress, when set, hears every few seconds how many records are
	// read (an import of 72,000 records takes a while).
	progress io.Writer
	said     time.Time
	clock    func() time.Time // nil: time.Now
}

// importSayEvery is how often an import says how far it is.
const importSayEvery = 2 * time.Second

// tick says how far the import is, when importSayEvery has passed.
func (im *importer) tick() {
	if im.progress == nil {
		return
	}
	now := time.Now()
	if im.clock != nil {
		now = im.clock()
	}
	if im.said.IsZero() {
		im.said = now
		return
	}
	if now.Sub(im.said) >= importSayEvery {
		im.said = now
		fmt.Fprintf(im.progress, "%s import: %d generations and %d judgements read\n", now.Format("15:04:05"), im.gens, im.evals)
	}
}

// rubricOdd counts, per rubric field (Fields), the judgements a file gave
// a value other than 0, 1, true, false or null, read as missing: an import
// and a report from the files say how many.
type rubricOdd [8]int

// add counts a judgement's out-of-range fields (Eval.outOfRange's bits).
func (c *rubricOdd) add(bits uint8) {
	if bits == 0 {
		return
	}
	for i := range Fields {
		if bits&(1<<i) != 0 {
			c[i]++
		}
	}
}

// say says how many rubric values were out of range, by field (nothing
// if none was).
func (c *rubricOdd) say(w io.Writer) {
	var parts []string
	n := 0
	for i, f := range Fields {
		if k := c[i]; k > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", f, k))
			n += k
		}
	}
	switch {
	case n == 1:
		fmt.Fprintf(w, "note: 1 rubric value was not 0, 1, true, false or null and is read as missing, as upstream's analysis reads it (%s)\n", strings.Join(parts, ", "))
	case n > 1:
		fmt.Fprintf(w, "note: %d rubric values were not 0, 1, true, false or null and are read as missing, as upstream's analysis reads them (%s)\n", n, strings.Join(parts, ", "))
	}
}

func (im *importer) set() store.RecordSet {
	snapshot := func(encode func() ([]byte, error)) func() ([]byte, error) {
		return func() ([]byte, error) {
			data, err := encode()
			if errors.Is(err, errNoSnapshot) {
				return nil, nil // read from the records
			}
			return data, err
		}
	}
	return store.RecordSet{Kinds: []string{KindGeneration, KindEval},
		Records: im.records,
		// A builder is let go once encoded (a retried transaction streams
		// the files, and builds them, again).
		Snapshots: []store.Snapshot{{Kind: KindGeneration, Format: snapshotFormat, Data: snapshot(func() ([]byte, error) {
			defer func() { im.genCols = genColumns{} }()
			// The stream's garbage (its lines, the records written) is
			// collected first, so that the snapshots' encoding (twice
			// their size at once, about 20 MB at 4×) reuses its memory
			// instead of growing the process past it: the 4× import's
			// peak, there, was 191–203 MB, and is 185–190.
			runtime.GC()
			return im.genCols.encode()
		})},
			{Kind: KindEval, Format: snapshotFormat, Data: snapshot(func() ([]byte, error) {
				defer func() { im.evalCols = evalColumns{} }()
				return im.evalCols.encode()
			})}}}
}

// records streams the files into put (again from the start when the store
// tries its transaction again).
func (im *importer) records(put func(store.Record) error) error {
	im.gens, im.evals, im.genCols, im.evalCols, im.outOfRange = 0, 0, genColumns{}, evalColumns{}, rubricOdd{}
	return im.files.each(func(g *Generation) error {
		r, err := genRecordOf(*g)
		if err != nil {
			return fmt.Errorf("generation %s: %w", g.GenID, err)
		}
		im.gens++
		im.genCols.add(g)
		im.tick()
		return put(r)
	}, func(e *Eval) error {
		r, err := evalRecordOf(*e)
		if err != nil {
			return fmt.Errorf("judgement %s: %w", e.EvalID, err)
		}
		im.evals++
		im.evalCols.add(e)
		im.outOfRange.add(e.outOfRange)
		im.tick()
		return put(r)
	})
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
			// The import reads its files twice (their digest, then their
			// records): a pipe or a device (/dev/stdin, /dev/zero) would
			// be read once, or never end.
			if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() {
				return nil, fmt.Errorf("%s: %s is not a regular file (a pipe, a device or a folder): save it to a file and import that", what, p)
			}
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
	o := SynthOptions{}
	cmd := &cobra.Command{
		Use:   "synth",
		Short: "Write a synthetic full-scale run (upstream format) with known rates, for tests and benchmarks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout, stderr, quiet := h.Settings().Stdout, h.Settings().Stderr, h.Settings().Quiet
			o.Models, o.Samples, o.Seed = strings.Split(models, ","), samples, seed
			say := func(f string, a ...any) {
				if !quiet {
					fmt.Fprintf(stderr, time.Now().Format("15:04:05")+" synth: "+f+"\n", a...)
				}
			}
			say("making %d models × %d samples", len(o.Models), samples)
			d, _, err := Synthesize(o)
			if err != nil {
				return err
			}
			say("%d generations and %d evals made; writing them", len(d.Gens), len(d.Evals))
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
	cmd.Flags().Float64Var(&o.SoftFlip, "soft-flip", 0.05, "probability that the second judge flips soft_refusal")
	cmd.Flags().Float64Var(&o.ErrorRate, "error-rate", 0.0005, "share of generations that are API errors")
	cmd.Flags().Float64Var(&o.JudgeNoise, "judge-noise", 0, "probability that the second judge flips each other field")
	cmd.Flags().Float64Var(&o.ParseErrors, "parse-errors", 0, "share of judge answers that are not JSON")
	cmd.Flags().StringVar(&out, "out-dir", "synthetic", "output directory")
	cmd.Flags().StringVar(&out, "out", "synthetic", "the same as --out-dir")
	cmd.Flags().MarkHidden("out")
	return cmd
}
