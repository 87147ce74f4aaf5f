package foils

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/fallacylab/fallacylab/corpus"
	"github.com/fallacylab/fallacylab/report"
	"github.com/fallacylab/fallacylab/stats"
	"github.com/fallacylab/fallacylab/store"
	"github.com/fallacylab/fallacylab/study"
)

// ValidityStudy asks people whether the audit's matched and wrong-scheme
// negatives are valid arguments (V / I / B, SPEC C.8 §6.7); its report
// adds the audit made again on the negatives they confirmed.
var ValidityStudy = study.RegisterKind(study.KindSpec{
	Kind:      validityKind,
	Benchmark: Definition.Name,
	Summary:   "Scheme Foils negatives: valid / invalid / borderline; decoys: the audit's fallacious test items (known invalid); default stratum: the source type",
	Questions: []study.Question{{ID: "validity", Text: "Is this a valid argument?", Positive: "V", Choices: []study.Choice{
		{Key: "V", Label: "valid", Help: "A reasonable argument: its premises, if true, support its conclusion; no fallacy."},
		{Key: "I", Label: "invalid", Help: "It commits a fallacy or its premises do not support its conclusion."},
		{Key: "B", Label: "borderline", Help: "Cannot be decided either way (B never counts as valid)."},
	}}},
	Strata:    ValidityStrata,
	LatestRun: latestAudit,
	Corpus:    true,
	Items: func(ctx context.Context, d study.Draw) ([]study.Item, []study.Item, map[string]string, error) {
		a, err := studiedAudit(ctx, d)
		if err != nil {
			return nil, nil, nil, err
		}
		stratify := d.Stratify
		if len(stratify) == 0 {
			stratify = []string{"type"}
		}
		cands, decoys, err := ValidityItems(a.Detections, stratify)
		return cands, decoys, nil, err
	},
	Analyze: func(rep *report.Report, s study.Study, anns []study.Annotation, o study.AnalyzeOptions) error {
		return analyzeValidity(rep, s, study.Index(anns), o)
	},
	Report: func(ctx context.Context, rs study.Records, rep *report.Report, s study.Study, anns []study.Annotation) error {
		audits, err := LoadAudits(ctx, rs, s.RunID)
		if err != nil {
			return err
		}
		return AddConfirmedAudit(rep, s, anns, audits)
	},
})

// NativeStudy codes a corpus' own "none" items A / B / N (SPEC C.8 §6.2),
// as `foils sheet` did.
var NativeStudy = study.RegisterKind(study.KindSpec{
	Kind:      nativeKind,
	Benchmark: Definition.Name,
	Summary:   "a corpus' own \"none\" items: A / B / N; decoys: scheme-matched valid arguments (known A); stratum: the corpus file",
	Questions: []study.Question{{ID: "code", Text: "What is this text?", Positive: "A", Choices: []study.Choice{
		{Key: "A", Label: "A: a valid argument in a fallacy's scheme", Help: "A valid argument that uses the scheme of one of the fallacy types (an appeal to an expert who is one, say)."},
		{Key: "B", Label: "B: another argument", Help: "An argument, but not in any fallacy's scheme."},
		{Key: "N", Label: "N: not an argument", Help: "No claim supported by a reason (a question, a joke, a statement)."},
	}}},
	Strata:    NativeStrata,
	Corpus:    true,
	LatestRun: latestAudit,
	Items: func(ctx context.Context, d study.Draw) ([]study.Item, []study.Item, map[string]string, error) {
		a, err := studiedAudit(ctx, d)
		if err != nil {
			return nil, nil, nil, err
		}
		// The corpus gives each native item its context and file; a
		// corpus that cannot be loaded now only costs those.
		items, err := corpus.Load(d.Data, a.Corpus, corpus.LoadOptions{})
		if err != nil && len(d.Stratify) > 0 {
			return nil, nil, nil, fmt.Errorf("--stratify file: %w", err)
		}
		cands, decoys, err := NativeItems(a.Detections, items, d.Stratify)
		return cands, decoys, nil, err
	},
	Analyze: func(rep *report.Report, s study.Study, anns []study.Annotation, o study.AnalyzeOptions) error {
		return analyzeNative(rep, s, study.Index(anns), o)
	},
})

const validityKind = "foils-validity"

// latestAudit is the newest Scheme Foils run (of runs, newest first) that
// audited the corpus ("": any corpus).
func latestAudit(ctx context.Context, rs study.Records, runs []store.Run, corpus string) (int64, error) {
	for _, r := range runs {
		if r.Benchmark != Definition.Name {
			continue
		}
		audits, err := LoadAudits(ctx, rs, r.ID)
		if errors.Is(err, ErrNoAudit) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if _, err := AuditOf(audits, r.ID, corpus); len(audits) > 0 && err == nil {
			return r.ID, nil
		}
	}
	if corpus == "" {
		return 0, fmt.Errorf("no Scheme Foils run of the store has an audit: run fallacylab foils audit first (or pass --run)")
	}
	return 0, fmt.Errorf("no Scheme Foils run of the store audited %s: run fallacylab foils audit --corpus %s first (or pass --run)", corpus, corpus)
}

// studiedAudit is the audit of the studied run that a study samples: the
// one of --corpus (default: its only one).
func studiedAudit(ctx context.Context, d study.Draw) (AuditRecord, error) {
	audits, err := LoadAudits(ctx, d.Records, d.Run.ID)
	if err != nil {
		return AuditRecord{}, err
	}
	return AuditOf(audits, d.Run.ID, d.Corpus)
}

func tallyOf[V any](m map[string]*V, k string) *V {
	if m[k] == nil {
		m[k] = new(V)
	}
	return m[k]
}

// ValidityStrata are the keys a Scheme Foils validity study
// stratifies by ("type" is the source scheme τ).
var ValidityStrata = []string{"type", "condition", "target"}

// ValidityItems makes the candidates of a validity study — the
// audit's matched and wrong-scheme negatives, with condition, schemes and
// the detector's label hidden — and the decoy pool: the audit's fallacious
// test items, whose known answer is "invalid" (the paper planted the
// source fallacious argument among the valid candidates).
func ValidityItems(dets []Detection, stratify []string) (cands, decoys []study.Item, err error) {
	if err := study.CheckKeys(stratify, ValidityStrata); err != nil {
		return nil, nil, err
	}
	for _, d := range dets {
		it := study.Item{Key: d.Condition + ":" + d.ID, Text: d.Text,
			Hidden: map[string]string{"condition": d.Condition, "source": d.Source, "target": d.Target, "gold": d.Gold, "pred": d.Pred}}
		switch {
		case d.Condition == Matched || d.Condition == WrongScheme:
			it.Stratum = study.StratumOf(stratify, func(k string) string {
				switch k {
				case "type":
					return d.Source
				case "condition":
					return d.Condition
				}
				return d.Target
			})
			cands = append(cands, it)
		case d.Condition == TestCondition && d.Gold != "" && d.Gold != None:
			it.Known = map[string]string{"validity": "I"}
			decoys = append(decoys, it)
		}
	}
	return cands, decoys, nil
}

// NativeStrata are the keys a native-class study stratifies by
// ("file": the corpus file an item comes from, as `foils sheet` sampled).
var NativeStrata = []string{"file"}

// NativeItems makes the candidates of a native-class study — the
// corpus' own "none" test items, the detector's label hidden — and the
// decoy pool: scheme-matched valid negatives, built to be valid arguments
// in a fallacy's scheme, whose known code is A. corpus, when given, are
// the audited corpus' items: a native item then shows its context (a
// thread's title, say) and can be stratified by its file.
func NativeItems(dets []Detection, corpus []Item, stratify []string) (cands, decoys []study.Item, err error) {
	if err := study.CheckKeys(stratify, NativeStrata); err != nil {
		return nil, nil, err
	}
	about := map[string]Item{}
	for _, it := range corpus {
		about[it.ID] = it
	}
	for _, d := range dets {
		it := study.Item{Key: d.Condition + ":" + d.ID, Text: d.Text,
			Hidden: map[string]string{"condition": d.Condition, "source": d.Source, "pred": d.Pred}}
		switch d.Condition {
		case Native:
			src, ok := about[d.ID]
			if !ok && len(stratify) > 0 {
				return nil, nil, fmt.Errorf("--stratify file: native item %s is not in the corpus as loaded now", d.ID)
			}
			it.Context = src.Context
			if len(stratify) > 0 {
				it.Stratum, it.Hidden["file"] = src.Source, src.Source
			}
			cands = append(cands, it)
		case Matched:
			it.Known = map[string]string{"code": "A"}
			decoys = append(decoys, it)
		}
	}
	return cands, decoys, nil
}

// analyzeValidity is SPEC C.8 §6.7: an item is valid when more than half
// of its annotators say V (2 of 3; B never counts as V; a tie is not
// valid); judge precision = valid / sampled, overall, by source type and
// by condition; and the audit's false-positive rate on the matched items
// humans confirmed valid, beside its rate on all sampled matched items.
func analyzeValidity(rep *report.Report, s study.Study, ans study.Answers, o study.AnalyzeOptions) error {
	sec := rep.AddSection("Validity of the negatives", "An item is valid when more than half of its annotators call it V (2 of 3): B never counts as V, and a tie is not valid (SPEC C.8). Precision of the filter that kept these negatives = valid / annotated.")
	type tally struct{ valid, n int }
	all := tally{}
	byType, byCond := map[string]*tally{}, map[string]*tally{}
	var confirmedFlag, confirmed, sampledFlag, sampled int
	var binRatings [][]string
	for _, it := range s.Items {
		if it.Decoy {
			continue
		}
		valid, n := validOf(ans, it.Key)
		if n == 0 {
			continue
		}
		row := make([]string, len(s.Annotators))
		for j, a := range s.Annotators {
			if got := ans[it.Key][a.Name]["validity"]; got != "" {
				row[j] = map[bool]string{true: "V", false: "not V"}[got == "V"]
			}
		}
		binRatings = append(binRatings, row)
		for _, t := range []*tally{&all, tallyOf(byType, it.Hidden["source"]), tallyOf(byCond, it.Hidden["condition"])} {
			t.n++
			if valid {
				t.valid++
			}
		}
		if it.Hidden["condition"] == "matched" {
			flagged := it.Hidden["pred"] != "" && it.Hidden["pred"] != "none"
			sampled++
			if flagged {
				sampledFlag++
			}
			if valid {
				confirmed++
				if flagged {
					confirmedFlag++
				}
			}
		}
	}
	t := sec.Add(&report.Table{ID: "validity", Title: "Judge precision: valid / annotated", Columns: report.Cols("group", "annotated", "valid", "precision")})
	t.Rows = append(t.Rows, []report.Cell{report.T("all"), report.I(all.n), report.I(all.valid), o.Prop(all.valid, all.n)})
	for _, g := range []struct {
		name string
		m    map[string]*tally
	}{{"condition", byCond}, {"source type", byType}} {
		var keys []string
		for k := range g.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x := g.m[k]
			t.Rows = append(t.Rows, []report.Cell{report.T(g.name + ": " + k), report.I(x.n), report.I(x.valid), o.Prop(x.valid, x.n)})
		}
	}
	bt := sec.Add(&report.Table{ID: "validity_binary", Title: "Agreement on valid vs not valid", Columns: report.Cols("measure", "value")})
	if ac, err := stats.GwetAC1(binRatings, 2); err == nil && ac.Items > 0 {
		bt.Rows = append(bt.Rows, []report.Cell{report.T("Gwet's AC1 (V vs not V, Q = 2)"), report.F(ac.AC1, 3)})
	} else {
		bt.Rows = append(bt.Rows, []report.Cell{report.T("Gwet's AC1 (V vs not V, Q = 2)"), report.NA("no item answered twice")})
	}
	ft := sec.Add(&report.Table{ID: "confirmed_fpr", Title: "The audit's false-positive rate on matched items (detector calls a fallacy)", Columns: report.Cols("subset", "items", "flagged", "rate")})
	ft.Rows = append(ft.Rows,
		[]report.Cell{report.T("matched items annotated"), report.I(sampled), report.I(sampledFlag), o.Prop(sampledFlag, sampled)},
		[]report.Cell{report.T("of them confirmed valid by the humans"), report.I(confirmed), report.I(confirmedFlag), o.Prop(confirmedFlag, confirmed)})
	return nil
}

// validOf is the papers' rule for one negative: valid when more than half
// of the n annotators who answered say V (B never counts as V; a tie is not
// valid), or when an adjudicator said V.
func validOf(ans study.Answers, key string) (valid bool, n int) {
	v := 0
	for name, a := range ans[key] {
		if name == study.Adjudicator {
			continue
		}
		switch a["validity"] {
		case "V":
			v++
			n++
		case "":
		default:
			n++
		}
	}
	if g, ok := ans.Adjudicated(key, "validity"); ok {
		return g == "V", n
	}
	return 2*v > n, n
}

// analyzeNative is SPEC C.8 §6.2 and §6.6: the resolved code of each native
// item (the majority; a tie is not A), the share of A, and the detector's
// flag rate on the items of each code.
func analyzeNative(rep *report.Report, s study.Study, ans study.Answers, o study.AnalyzeOptions) error {
	sec := rep.AddSection("Native class", "Each item's code is its annotators' majority; an unresolved item is not A (SPEC C.8). The flag rate is the share of items of a code the audited detector calls a fallacy (§6.6).")
	counts := map[string]int{}
	flags := map[string]int{}
	n := 0
	for _, it := range s.Items {
		if it.Decoy {
			continue
		}
		code, k := ans.Majority(it.Key, "code")
		if k == 0 {
			continue
		}
		if code == "" {
			code = "unresolved"
		}
		n++
		counts[code]++
		if p := it.Hidden["pred"]; p != "" && p != "none" {
			flags[code]++
		}
	}
	t := sec.Add(&report.Table{ID: "codes", Title: "Codes of the native \"none\" items", Columns: report.Cols("code", "items", "share", "flagged by the detector", "flag rate")})
	for _, c := range []string{"A", "B", "N", "unresolved"} {
		t.Rows = append(t.Rows, []report.Cell{report.T(c), report.I(counts[c]), o.Prop(counts[c], n), report.I(flags[c]), o.Prop(flags[c], counts[c])})
	}
	return nil
}

// ConfirmedAudits keeps, of each audit of a validity study's run, the
// native and fallacious test items and only the matched and wrong-scheme
// negatives the annotators confirmed valid (SPEC C.8 §6.7: the audit on the
// human-confirmed subset). It returns how many negatives are kept.
func ConfirmedAudits(s study.Study, anns []study.Annotation, audits []AuditRecord) ([]AuditRecord, int, error) {
	if s.Kind != validityKind {
		return nil, 0, fmt.Errorf("study %d is a %s study: only a validity study confirms negatives", s.ID, s.Kind)
	}
	ans := study.Index(anns)
	confirmed := map[string]bool{}
	for _, it := range s.Items {
		if valid, _ := validOf(ans, it.Key); valid && !it.Decoy {
			confirmed[it.Key] = true
		}
	}
	out := make([]AuditRecord, len(audits))
	kept := 0
	for i, a := range audits {
		a.Report = nil // a stored rendering is of the whole audit
		var dets []Detection
		for _, d := range a.Detections {
			switch d.Condition {
			case Matched, WrongScheme:
				if !confirmed[d.Condition+":"+d.ID] {
					continue
				}
				if i == 0 {
					kept++
				}
			}
			dets = append(dets, d)
		}
		a.Detections = dets
		out[i] = a
	}
	return out, kept, nil
}

// AddConfirmedAudit appends to a validity study's report the audit's
// verdict — flag rates and gaps — computed again on the human-confirmed
// subset, its tables named confirmed_* so they stand beside the study's.
func AddConfirmedAudit(rep *report.Report, s study.Study, anns []study.Annotation, audits []AuditRecord) error {
	sub, kept, err := ConfirmedAudits(s, anns, audits)
	if err != nil {
		return err
	}
	title := "The audit on the human-confirmed subset"
	if kept == 0 {
		rep.AddSection(title, "No negative is confirmed valid yet.")
		return nil
	}
	audit, _, err := ReportOf(sub)
	if err != nil {
		rep.AddSection(title, fmt.Sprintf("The audit cannot be made again on the %d confirmed negatives: %v.", kept, err))
		return nil
	}
	for _, sec := range audit.Sections {
		if sec.Title != "Verdict" {
			continue
		}
		out := rep.AddSection(title, fmt.Sprintf("The audit of run %d made again with its native and test items and only the %d matched and wrong-scheme negatives the annotators confirmed valid. %s", s.RunID, kept, sec.Intro))
		for _, t := range sec.Tables {
			c := *t
			c.ID = "confirmed_" + t.ID
			out.Add(&c)
		}
	}
	return nil
}
