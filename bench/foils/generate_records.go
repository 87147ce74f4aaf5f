package foils

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/store"
)

// Record kinds of a generation run.
const (
	// KindGenSetup is the run's corpus, generator and judge (key "run").
	KindGenSetup = "foils-generate/setup"
	// KindGenerated is one candidate negative with the judge's outcome
	// (key: condition/type#id), with its generation call.
	KindGenerated = "foils-generate/item"
)

// genSetup is KindGenSetup's body.
type genSetup struct {
	Corpus    string `json:"corpus"`
	Generator string `json:"generator"`
	Judge     string `json:"judge"`
}

// genItem is KindGenerated's body.
type genItem struct {
	Cond        string   `json:"condition"`
	SourceType  string   `json:"source_type"`
	TargetType  string   `json:"target_type,omitempty"`
	ID          int      `json:"id"`
	Source      string   `json:"source"`
	Text        string   `json:"generated"`
	Failed      string   `json:"failed,omitempty"`
	Kept        bool     `json:"kept"`
	DropReasons []string `json:"drop_reasons,omitempty"`
	NeedsReview []string `json:"needs_review,omitempty"`
	Flesch      float64  `json:"flesch"`
	Words       int      `json:"words"`
	Overlap     float64  `json:"overlap"`
}

// saveGenerated stores a generation run's setup and every candidate in
// one transaction.
func saveGenerated(ctx context.Context, recs bench.Records, runID int64, s genSetup, gs []Generated) error {
	body, err := json.Marshal(s)
	if err != nil {
		return err
	}
	out := []store.Record{{Kind: KindGenSetup, Key: "run", Body: body}}
	for _, g := range gs {
		it := genItem{Cond: g.Cond, SourceType: g.A.Item.Gold, ID: g.A.ID, Source: g.A.Item.Text, Text: g.Text, Failed: g.Failed,
			Kept: g.Kept, DropReasons: g.DropReasons, NeedsReview: g.NeedsReview, Flesch: g.Flesch, Words: g.Words, Overlap: g.Overlap}
		if g.Cond == WrongScheme {
			it.TargetType = g.A.Target
		}
		b, err := json.Marshal(it)
		if err != nil {
			return err
		}
		out = append(out, store.Record{Kind: KindGenerated, Key: fmt.Sprintf("%s/%s#%d", g.Cond, g.A.Item.Gold, g.A.ID), CallKey: g.Key, Body: b})
	}
	if err := recs.PutRecordKinds(ctx, runID, []string{KindGenSetup, KindGenerated}, out); err != nil {
		return fmt.Errorf("store the candidates of run %d: %w", runID, err)
	}
	return nil
}

// BindReport implements bench.Reports: per condition, the candidates, the
// share the judge kept (Wilson interval), those flagged for review and
// those dropped by each criterion, and the kept items' diagnostics.
func (GenerateTask) BindReport(f *pflag.FlagSet) func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
	return func(ctx context.Context, env bench.Env, run store.Run) (*report.Report, error) {
		var s genSetup
		found, err := bench.ReadOne(ctx, env.Records, run.ID, KindGenSetup, &s)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("run %d stores no candidates (a generation run made before they were stored: run its command again with --cache only to store them)", run.ID)
		}
		items, err := bench.ReadAll[genItem](ctx, env.Records, run.ID, KindGenerated, "candidates")
		if err != nil {
			return nil, err
		}
		return generationReport(s, items), nil
	}
}

// generationReport is the report of a generation run's candidates.
func generationReport(s genSetup, items []genItem) *report.Report {
	rep := &report.Report{Title: "Scheme Foils generation: " + s.Corpus, Benchmark: GenerateDefinition.Name,
		Meta: [][2]string{{"corpus", s.Corpus}, {"generator", s.Generator}, {"judge", s.Judge}}}
	sec := rep.AddSection("Candidates", "Each fallacious source item gets one matched and one wrong-scheme candidate; the judge, of another lineage, drops a candidate failing a drop criterion and flags one failing another for review (SPEC C.9). Kept: Wilson 95 % interval over candidates.")
	t := sec.Add(&report.Table{ID: "generation", Title: "Candidates kept, flagged and dropped", Columns: report.Cols("condition", "candidates", "kept", "needs review", "dropped", "dropped by")})
	d := sec.Add(&report.Table{ID: "generation_diagnostics", Title: "Kept items: readability, length and overlap with the source (recorded, never used to drop)", Columns: report.Cols("condition", "kept", "Flesch", "words", "overlap")})
	for _, cond := range []string{Matched, WrongScheme} {
		var n, kept, review, dropped int
		var flesch, words, overlap float64
		by := map[string]int{}
		for _, it := range items {
			if it.Cond != cond {
				continue
			}
			n++
			switch {
			case it.Kept:
				kept++
				flesch, words, overlap = flesch+it.Flesch, words+float64(it.Words), overlap+it.Overlap
				if len(it.NeedsReview) > 0 {
					review++
				}
			default:
				dropped++
			}
			for _, r := range it.DropReasons {
				by[r]++
			}
		}
		if n == 0 {
			continue
		}
		reasons := make([]string, 0, len(by))
		for r, k := range by {
			reasons = append(reasons, r+" "+strconv.Itoa(k))
		}
		sort.Strings(reasons)
		p, _ := stats.Prop(kept, n, 0.95, stats.Wilson)
		t.Rows = append(t.Rows, []report.Cell{report.T(cond), report.I(n), report.PCI(p.Estimate, p.Lo, p.Hi, n), report.I(review), report.I(dropped), report.T(strings.Join(reasons, ", "))})
		if kept == 0 {
			d.Rows = append(d.Rows, []report.Cell{report.T(cond), report.I(0), report.NA("none kept"), report.NA("none kept"), report.NA("none kept")})
			continue
		}
		k := float64(kept)
		d.Rows = append(d.Rows, []report.Cell{report.T(cond), report.I(kept), report.F(flesch/k, 1), report.F(words/k, 1), report.F(overlap/k, 3)})
	}
	return rep
}

// Listing implements bench.Lists: every candidate, with the judge's
// outcome.
func (GenerateTask) Listing() bench.Listing {
	return bench.Listing{Kind: KindGenerated, Title: "candidates",
		Columns: []string{"condition", "source type", "target type", "id", "outcome", "generated"},
		Row: func(r store.Record) ([]string, error) {
			var it genItem
			if err := json.Unmarshal(r.Body, &it); err != nil {
				return nil, fmt.Errorf("record %s: %w", r.Key, err)
			}
			outcome := "kept"
			switch {
			case !it.Kept:
				outcome = "dropped: " + strings.Join(it.DropReasons, ", ")
			case len(it.NeedsReview) > 0:
				outcome = "needs review: " + strings.Join(it.NeedsReview, ", ")
			}
			return []string{it.Cond, it.SourceType, it.TargetType, strconv.Itoa(it.ID), outcome, it.Text}, nil
		}}
}
