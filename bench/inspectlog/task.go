package inspectlog

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/runner"
	"github.com/fallacylab/fallacylab/store"
)

// ImportFormat implements bench.Imports.
func (Task) ImportFormat() string { return "inspect" }

// Import implements bench.Imports: the log's header and samples become
// the run's records; the same file imported again is the same run.
func (Task) Import(_ context.Context, env bench.Env, file string) (runner.Spec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return runner.Spec{}, err
	}
	h, samples, err := Read(file, data)
	if err != nil {
		return runner.Spec{}, err
	}
	return importSpec(env, file, data, h, samples), nil
}

// importSpec is the run that holds an imported file (its bytes data):
// its header and samples stored as records when the run completes; its
// identity is the file's digest, so that the same file imported again is
// the same run.
func importSpec(env bench.Env, file string, data []byte, h Header, samples []Sample) runner.Spec {
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	return runner.Spec{
		Name:     runName(h),
		Options:  map[string]string{"file": file, "sha256": digest},
		Identity: []any{digest},
		Complete: func(ctx context.Context, runID int64) error {
			recs, err := records(h, samples)
			if err != nil {
				return err
			}
			kinds := []string{KindLog, KindSample}
			if err := env.Records.PutRecordKinds(ctx, runID, kinds, recs); err != nil {
				return err
			}
			fmt.Fprintf(env.Stderr, "imported %d samples of %s (task %s, model %s) as run %d\n", len(samples), h.File, h.Task, h.Model, runID)
			for _, d := range h.Dropped {
				fmt.Fprintf(env.Stderr, "  not carried: %s\n", d)
			}
			return nil
		},
	}
}

// runName names the run: its format and file, and for EEE results (files
// named by a uuid) what they evaluate and the model.
func runName(h Header) string {
	if h.Format == "eee" {
		return strings.Join(strings.Fields(strings.Join([]string{titleOf(h), h.Task, h.Model, "(" + h.File + ")"}, " ")), " ")
	}
	return titleOf(h) + " " + h.File
}

// titleOf names what the run holds: "inspect log" or "EEE results".
func titleOf(h Header) string {
	if h.Format == "eee" {
		return "EEE results"
	}
	return "inspect log"
}

// records are the header and the samples as records.
func records(h Header, samples []Sample) ([]store.Record, error) {
	body, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	recs := []store.Record{{Kind: KindLog, Key: "log", Body: body}}
	epochs := several(samples)
	seen := map[string]bool{}
	for _, s := range samples {
		k := s.Key(epochs)
		if seen[k] {
			return nil, fmt.Errorf("sample %s (epoch %d) appears twice in the log", s.ID, s.Epoch)
		}
		seen[k] = true
		b, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		recs = append(recs, store.Record{Kind: KindSample, Key: k, Body: b})
	}
	return recs, nil
}

// several reports whether the samples have more than one epoch.
func several(samples []Sample) bool {
	for _, s := range samples {
		if s.Epoch > 1 {
			return true
		}
	}
	return false
}

// Load reads an imported run's header and samples.
func Load(ctx context.Context, r bench.RecordReader, runID int64) (Header, []Sample, error) {
	var h Header
	var samples []Sample
	found := false
	err := r.Records(ctx, runID, "", func(rec store.Record) error {
		switch rec.Kind {
		case KindLog:
			found = true
			return json.Unmarshal(rec.Body, &h)
		case KindSample:
			var s Sample
			if err := json.Unmarshal(rec.Body, &s); err != nil {
				return fmt.Errorf("sample %s: %w", rec.Key, err)
			}
			samples = append(samples, s)
		}
		return nil
	})
	if err != nil {
		return h, nil, fmt.Errorf("run %d: %w", runID, err)
	}
	if !found {
		return h, nil, fmt.Errorf("run %d holds no imported log", runID)
	}
	return h, samples, nil
}

// Listing implements bench.Lists: the viewer lists the samples.
func (Task) Listing() bench.Listing {
	return bench.Listing{Kind: KindSample, Title: "samples", Columns: []string{"id", "epoch", "target", "answer", "scores", "input"}, Compared: "answer", Gold: "target",
		Row: func(r store.Record) ([]string, error) {
			var s Sample
			if err := json.Unmarshal(r.Body, &s); err != nil {
				return nil, err
			}
			return []string{s.ID, itoa(s.Epoch), s.Target, s.Answer, scoresText(s), s.Input}, nil
		}}
}

// scoresText is a sample's scores as one cell: name=value, by name.
func scoresText(s Sample) string {
	names := make([]string, 0, len(s.Scores))
	for n := range s.Scores {
		names = append(names, n)
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		v := fmt.Sprint(s.Scores[n])
		if raw, ok := s.Raw[n]; ok {
			v = raw
		}
		parts = append(parts, n+"="+v)
	}
	return strings.Join(parts, ", ")
}

// Arms implements bench.Compares: the log's model, each scorer a metric
// over the samples (binary when every value is 0 or 1), clustered by the
// log's cluster field, else by sample id (a sample's epochs move
// together).
func (Task) Arms(ctx context.Context, env bench.Env, run store.Run) ([]bench.Arm, error) {
	h, samples, err := Load(ctx, env.Records, run.ID)
	if err != nil {
		return nil, err
	}
	return []bench.Arm{{Model: h.Model, Metrics: metrics(h, samples), Design: h.Design, Judges: h.Judges}}, nil
}

// ComparesAs implements bench.ComparesAs: a log fallacylab exported (its
// task fallacylab/NAME) compares with the runs of NAME — a colleague's
// exported run, imported, against one's own — item by item, on the
// metrics both have.
func (Task) ComparesAs(ctx context.Context, env bench.Env, run store.Run) (string, error) {
	var h Header
	if _, err := bench.ReadOne(ctx, env.Records, run.ID, KindLog, &h); err != nil {
		return "", err
	}
	name := h.Of
	if name == "" { // imported before the header kept it
		name, _ = strings.CutPrefix(h.Task, "fallacylab/")
	}
	if _, known := bench.TaskOf(name); !known || name == Name || name == EEEName {
		return "", nil
	}
	return name, nil
}

// metrics are the samples' scores, a metric per scorer: the log's scorers
// first, in their order, then the scores it does not list, by name (a
// sample's scores are a map: in the order read, a report or comparison
// differed from one run of it to the next).
func metrics(h Header, samples []Sample) []compare.Metric {
	var extra []string
	for _, s := range samples {
		for n := range s.Scores {
			if !slices.Contains(h.Scorers, n) && !slices.Contains(extra, n) {
				extra = append(extra, n)
			}
		}
	}
	slices.Sort(extra)
	names := append(slices.Clone(h.Scorers), extra...)
	epochs := several(samples)
	var out []compare.Metric
	for _, n := range names {
		m := compare.Metric{Name: n, Unit: cmp.Or(h.Unit, h.ClusterBy, "sample"), Binary: !slices.Contains(h.NotRates, n)}
		for _, s := range samples {
			v, ok := s.Scores[n]
			if !ok || math.IsNaN(v) {
				continue
			}
			m.Binary = m.Binary && (v == 0 || v == 1)
			m.Items = append(m.Items, compare.Item{ID: s.Key(epochs), Cluster: cmp.Or(s.Cluster, s.ID), Value: v})
		}
		if len(m.Items) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// BindReport implements bench.Reports: each scorer's mean over the
// samples with its cluster bootstrap interval, and what was not carried.
func (Task) BindReport(f *pflag.FlagSet) func(context.Context, bench.Env, store.Run) (*report.Report, error) {
	o := compare.Options{Resamples: 2000, Seed: 20260101}
	f.IntVar(&o.Resamples, "resamples", o.Resamples, "bootstrap resamples of the samples for the intervals")
	f.Uint64Var(&o.Seed, "seed", o.Seed, "bootstrap seed")
	return func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
		h, samples, err := Load(ctx, env.Records, run.ID)
		if err != nil {
			return nil, err
		}
		rep := &report.Report{Title: titleOf(h) + " " + h.File, Benchmark: run.Benchmark,
			Meta: [][2]string{{"task", h.Task}, {"model", h.Model}, {"log status", h.Status}, {"created", h.Created}, {"samples", itoa(len(samples))}}}
		for _, d := range h.Dropped {
			rep.Meta = append(rep.Meta, [2]string{"not carried", d})
		}
		over := "sample ids"
		if h.ClusterBy != "" {
			over = "the samples' clusters, metadata." + h.ClusterBy
			rep.Meta = append(rep.Meta, [2]string{"clustered by", "metadata." + h.ClusterBy})
		}
		intro := fmt.Sprintf("Each scorer's mean over the samples, with a 95 %% percentile bootstrap interval over %s (%d resamples, seed %d; a sample's epochs move together); a rate of samples each its own cluster has Wilson's interval.", over, o.Resamples, o.Seed)
		if h.Format == "" {
			intro += " C, I, P and N count as 1, 0, 0.5 and 0."
		}
		t := rep.AddSection("Scores", intro).
			Add(&report.Table{ID: "scores", Title: "Scores", Columns: report.Cols("scorer", "samples", "mean")})
		for _, m := range metrics(h, samples) {
			e, err := compare.EstimateOf(m, o)
			if err != nil {
				return nil, err
			}
			cell := report.NCI(e.Mean, e.Lo, e.Hi, 3)
			if e.Binary {
				cell = report.PCI(e.Mean, e.Lo, e.Hi, e.N)
			}
			t.Rows = append(t.Rows, []report.Cell{report.T(m.Name), report.I(e.N), cell})
		}
		rep.NotePointIntervals(cmp.Or(h.Unit, h.ClusterBy, "sample"))
		return rep, nil
	}
}
