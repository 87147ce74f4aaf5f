package foils

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/outfile"
	"github.com/fallacylab/fallacylab/runner"

	"github.com/fallacylab/fallacylab/detect"
	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
	"github.com/spf13/cobra"
)

type foilsOptions struct {
	Corpus, Detector, DataDir string
	Format, Out               string
	Seed                      uint64
	Resamples, Perms          int
	SkipBadRows               bool
	Variant                   string
	Matched, Wrong            string
	Seeds                     string
	Limit                     int
	// Brief prints the verdict and the key figures instead of the whole
	// report: on a terminal, with neither --format nor --out.
	Brief bool
}

// Commands implements bench.Commands: the built-in detector's training
// and the native-class sheets (the audit and its report are the Task's
// BindRun and BindReport; the generation of new negatives is GenerateTask,
// nested under foils). Why they are commands of their own: train writes a
// model file and makes no run; sheet is the older spelling of a
// foils-native study, kept for the files it reads and writes.
func (Task) Commands(h bench.Host) []*cobra.Command {
	return []*cobra.Command{newFoilsTrainCmd(h), newFoilsItemsCmd(h), newFoilsSheetCmd(h)}
}

// LoadCorpus returns a corpus' items (corpus.Load) from the data folder
// dir ("": none). The audit refuses LOGIC, which has no valid class.
func LoadCorpus(name, dir string, o corpus.LoadOptions) ([]Item, error) {
	var data fs.FS
	if dir != "" {
		data = os.DirFS(dir)
	}
	return loadCorpus(name, data, o)
}

// loadCorpus returns a corpus' items from the data folder data (nil:
// none).
func loadCorpus(name string, data fs.FS, o corpus.LoadOptions) ([]Item, error) {
	switch name {
	case "logic", "logicclimate":
		return nil, fmt.Errorf("corpus %s has no valid class: a false-positive rate is not measurable, so it cannot be audited", name)
	case "reddit", "cocolofa", "argotario", "mafalda", "touche":
	default:
		return nil, fmt.Errorf("corpus %q: use reddit, cocolofa, argotario, mafalda or touche", name)
	}
	return corpus.Load(data, name, o)
}

// auditSets picks the audit's items: the test split (every item when the
// corpus has no split), and the released or user-given matched and
// wrong-scheme sets.
func auditSets(o foilsOptions, items []Item) (Sets, []string, error) {
	var notes []string
	test := Split(items, "test")
	if len(test) == 0 {
		test = items
		notes = append(notes, "the corpus has no test split: every item is audited")
	}
	sets := Sets{Corpus: o.Corpus, Test: test}
	if o.Matched != "" || o.Wrong != "" {
		if o.Matched == "" || o.Wrong == "" {
			return sets, nil, fmt.Errorf("pass both --matched and --wrong")
		}
		for _, x := range []struct {
			path, cond string
			dst        *[]Foil
		}{{o.Matched, Matched, &sets.Matched}, {o.Wrong, WrongScheme, &sets.Wrong}} {
			f, err := os.Open(x.path)
			if err != nil {
				return sets, nil, err
			}
			*x.dst, err = ParseFoils(f, x.path, x.cond, o.Corpus)
			f.Close()
			if err != nil {
				return sets, nil, err
			}
		}
		return sets, notes, nil
	}
	m, w, err := EmbeddedFoils(o.Corpus)
	if err != nil {
		return sets, nil, fmt.Errorf("no released Scheme Foils sets for %s: build them with `fallacylab foils generate` and pass --matched and --wrong", o.Corpus)
	}
	sets.Matched, sets.Wrong = m, w
	return sets, notes, nil
}

func examplesOf(items []Item, split string) []detect.Example {
	var out []detect.Example
	for _, it := range Split(items, split) {
		out = append(out, detect.Example{Text: it.Text, Label: it.Gold})
	}
	return out
}

func trainTFIDF(stderr io.Writer, corpus string, items []Item) (*detect.TFIDFModel, error) {
	tr, dv := examplesOf(items, "train"), examplesOf(items, "dev")
	if len(tr) == 0 {
		return nil, fmt.Errorf("corpus %s has no train split here: pass a trained model with --detector model:FILE", corpus)
	}
	fmt.Fprintf(stderr, "training TF-IDF + logistic regression on %s train (%d items), C chosen on dev (%d items)…\n", corpus, len(tr), len(dv))
	m, err := detect.TrainTFIDF(tr, dv, Labels, nil, detect.VectorizerOptions{Sublinear: true})
	if err != nil {
		return nil, err
	}
	m.Corpus = corpus
	return m, nil
}

// redditVariant selects the Reddit dataset variant.
func redditVariant(corpus, variant string, items []Item) ([]Item, error) {
	if corpus != "reddit" {
		return items, nil
	}
	switch variant {
	case "", "annotated":
		return RedditAnnotated(items), nil
	case "full":
		return items, nil
	}
	return nil, fmt.Errorf("--reddit-variant %q: use annotated or full", variant)
}

// errSeedsNeedFile is --seeds with a detector other than a file's.
var errSeedsNeedFile = fmt.Errorf("--seeds works with --detector file:PREDS.csv (a seed column per row)")

// foilsAuditRun runs the detector(s) inside the run: one audit record per
// detector (per seed with --seeds).
func foilsAuditRun(ctx context.Context, env bench.Env, run *runner.Active, o foilsOptions, items []Item, sets Sets) ([]AuditRecord, error) {
	var dets []detect.Detector
	seeds := []string{""}
	if o.Seeds != "" {
		p, _ := strings.CutPrefix(o.Detector, "file:") // spec refused --seeds with another detector
		seeds = nil
		for _, sd := range strings.Split(o.Seeds, ",") {
			sd = strings.TrimSpace(sd)
			fh, err := os.Open(p)
			if err != nil {
				return nil, fmt.Errorf("detector predictions: %w", err)
			}
			d, err := detect.LoadFileSeed(fh, p, sd)
			fh.Close()
			if err != nil {
				return nil, err
			}
			dets, seeds = append(dets, d), append(seeds, sd)
		}
	} else {
		det, err := buildDetector(env, o, items, run)
		if err != nil {
			return nil, err
		}
		dets = []detect.Detector{det}
	}
	opts := AuditOptions{Seed: o.Seed, Resamples: o.Resamples, Perms: o.Perms}
	var audits []AuditRecord
	for i, det := range dets {
		if _, isLLM := det.(*detect.LLM); !isLLM {
			det = &countedDetector{Detector: det, phase: run.Phase(fmt.Sprintf("detection %d", i+1), Definition.Phase("detection").Hint)}
		}
		in, err := Predict(ctx, det, sets)
		if c, ok := det.(*countedDetector); ok {
			if perr := c.phase.End(ctx, engine.Summary{}); err == nil {
				err = perr
			}
		}
		if err != nil {
			return nil, err
		}
		a := Record(in, opts)
		a.SeedLabel = seeds[i]
		audits = append(audits, a)
	}
	return audits, nil
}

// countedDetector counts a detector's predictions that map to no audit label
// as unusable answers of a phase.
type countedDetector struct {
	detect.Detector
	phase runner.Counter
}

// Detect implements detect.Detector.
func (c *countedDetector) Detect(ctx context.Context, in []detect.Input) ([]detect.Prediction, error) {
	preds, err := c.Detector.Detect(ctx, in)
	for _, p := range preds {
		raw := p.Raw
		if raw == "" {
			raw = p.Label
		}
		c.phase.Count(c.Name(), LabelOf(p) != Unparsed, raw)
	}
	return preds, err
}

// foilsDryPlan is what a dry run of an audit prices: an LLM detector's
// calls; other detectors call no model.
func foilsDryPlan(o foilsOptions, sets Sets) (engine.Plan, string, error) {
	det, err := llmDetector(o)
	if err != nil || det == nil {
		return engine.Plan{}, fmt.Sprintf("dry run: 0 jobs: detector %s calls no model (nothing is trained, called or stored in a dry run)", o.Detector), err
	}
	return det.Plan(sets.Inputs()), "", nil
}

// llmDetector builds the detector of --detector llm:…, or returns nil for
// any other detector.
func llmDetector(o foilsOptions) (*detect.LLM, error) {
	rest, ok := strings.CutPrefix(o.Detector, "llm:")
	if !ok {
		return nil, nil
	}
	kind := "typed"
	if i := strings.LastIndex(rest, ":"); i > 0 && strings.Count(rest, ":") >= 2 {
		switch mode := rest[i+1:]; {
		case mode == "typed" || mode == "binary":
			rest, kind = rest[:i], mode
		case detectorModeLike(mode):
			return nil, fmt.Errorf("--detector %s: unknown mode %q: use typed or binary (a model whose name ends in :%s needs the mode spelled out, e.g. llm:%s:typed)", o.Detector, mode, mode, rest)
		}
	}
	spec, err := llm.ParseSpec(rest)
	if err != nil {
		return nil, fmt.Errorf("--detector llm:PROVIDER:MODEL[:typed|binary]: %w", err)
	}
	tpl, err := DetectorPrompt(kind)
	if err != nil {
		return nil, err
	}
	return &detect.LLM{Spec: spec, Kind: kind, Template: tpl, Labels: Labels, Namespace: DetectNamespace}, nil
}

// detectorModeLike reports whether the last part of --detector llm:P:M:X
// looks like a mode word (letters only) rather than a model tag such as
// 8b or 4.1-mini.
func detectorModeLike(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// buildDetector turns --detector into a detector. LLM detectors run their
// calls as a phase of the audit's run.
func buildDetector(env bench.Env, o foilsOptions, items []Item, run *runner.Active) (detect.Detector, error) {
	switch d := o.Detector; {
	case d == "tfidf":
		m, err := trainTFIDF(env.Stderr, o.Corpus, items)
		return m, err
	case strings.HasPrefix(d, "model:"):
		p := strings.TrimPrefix(d, "model:")
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("detector model: %w", err)
		}
		defer f.Close()
		return detect.LoadTFIDF(f, p)
	case strings.HasPrefix(d, "file:"):
		p := strings.TrimPrefix(d, "file:")
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("detector predictions: %w", err)
		}
		defer f.Close()
		return detect.LoadFile(f, p)
	case strings.HasPrefix(d, "http://"), strings.HasPrefix(d, "https://"):
		return &detect.HTTP{URL: d}, nil
	case strings.HasPrefix(d, "llm:"):
		det, err := llmDetector(o)
		if err != nil {
			return nil, err
		}
		det.Run = func(ctx context.Context, p engine.Plan, on func(engine.Result)) error {
			ps := Definition.Phase("detection").Run(p)
			ps.Usable = func(r engine.Result) bool { // the detector's own label set
				_, ok := det.Parse(r.Response.Text)
				return ok
			}
			ps.OnResult = on
			_, err := run.Engine(ctx, ps)
			return err
		}
		return det, nil
	}
	return nil, fmt.Errorf("--detector %q: use tfidf, model:FILE, file:PREDS.csv, llm:PROVIDER:MODEL[:typed|binary] or an http(s) URL", o.Detector)
}

func newFoilsTrainCmd(h bench.Host) *cobra.Command {
	var corpusName, out, dir, variant string
	cmd := &cobra.Command{
		Use:     "train",
		Short:   "Train the built-in TF-IDF + logistic-regression detector and save it",
		Example: `  fallacylab foils train --corpus reddit --out reddit-tfidf.json.gz`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			items, err := LoadCorpus(corpusName, h.DataDir(dir), corpus.LoadOptions{})
			if err != nil {
				return err
			}
			if items, err = redditVariant(corpusName, variant, items); err != nil {
				return err
			}
			m, err := trainTFIDF(h.Settings().Stderr, corpusName, items)
			if err != nil {
				return err
			}
			if err := outfile.Write(h.Settings().Stdout, out, func(w io.Writer) error { return m.Save(w) }); err != nil {
				return err
			}
			fmt.Fprintf(h.Settings().Stdout, "saved %s to %s (dev accuracy by C: %s)\n", m.Name(), out, detect.SelectionText(m.Selection))
			return nil
		},
	}
	cmd.Flags().StringVar(&corpusName, "corpus", "reddit", "corpus to train on")
	cmd.Flags().StringVar(&out, "out", "tfidf-model.json.gz", "model file")
	cmd.Flags().StringVar(&dir, "data-dir", "", "data directory")
	cmd.Flags().StringVar(&variant, "reddit-variant", "annotated", "annotated or full")
	return cmd
}
