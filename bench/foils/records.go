package foils

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/report"
)

// Detection is one audited item with the detector's label: the record an
// audit stores per item.
type Detection struct {
	Condition string `json:"condition"` // Native, "test" (fallacious test items), Matched or WrongScheme
	ID        string `json:"id"`        // item id, or the foil's Key
	Text      string `json:"text"`
	Gold      string `json:"gold,omitempty"`   // test items
	Source    string `json:"source,omitempty"` // foils: τ
	Target    string `json:"target,omitempty"` // WS: τ′
	Pred      string `json:"pred"`             // Unparsed ("") or a label
	// Raw is the detector's answer when it did not come from a stored call
	// (external detectors); CallKey references an LLM detector's call.
	Raw     string `json:"raw,omitempty"`
	CallKey string `json:"-"`
}

// Answer is a detector's raw answer for one input, kept with its detection.
type Answer struct {
	Raw     string
	CallKey string
}

// AuditRecord is everything an audit stores: its detections and what the
// report needs beside them, so the report can be made again, identical,
// from the store.
type AuditRecord struct {
	SeedLabel  string // the --seeds value this audit is, or ""
	Corpus     string
	Detector   string
	Binary     bool
	Options    AuditOptions
	Meta       [][2]string // rows shown after the audit's own (notes, skipped rows)
	Detections []Detection
	// Report is a rendered report JSON, kept by stores made before audits
	// were records; nil otherwise.
	Report []byte
}

// TestCondition marks fallacious test items among detections.
const TestCondition = "test"

// Record turns an audit input, made with options o, into its record.
func Record(in AuditInput, o AuditOptions) AuditRecord {
	r := AuditRecord{Corpus: in.Corpus, Detector: in.Detector, Binary: in.Binary, Options: o}
	add := func(d Detection, inputID string) {
		a := in.Answers[inputID]
		d.Raw, d.CallKey = a.Raw, a.CallKey
		if d.CallKey != "" {
			d.Raw = ""
		}
		r.Detections = append(r.Detections, d)
	}
	for i, it := range in.Test {
		cond := TestCondition
		if it.Gold == None {
			cond = Native
		}
		add(Detection{Condition: cond, ID: it.ID, Text: it.Text, Gold: it.Gold, Pred: in.TestPred[i]}, "T:"+it.ID)
	}
	for i, f := range in.Matched {
		add(Detection{Condition: Matched, ID: f.Key(), Text: f.Text, Source: f.Source, Pred: in.MatchedPred[i]}, "M:"+f.Key())
	}
	for i, f := range in.Wrong {
		add(Detection{Condition: WrongScheme, ID: f.Key(), Text: f.Text, Source: f.Source, Target: f.Target, Pred: in.WrongPred[i]}, "W:"+f.Key())
	}
	return r
}

// Input rebuilds the audit input from a record, in the order it was audited.
func (r AuditRecord) Input() (AuditInput, error) {
	in := AuditInput{Corpus: r.Corpus, Detector: r.Detector, Binary: r.Binary}
	for _, d := range r.Detections {
		switch d.Condition {
		case Native, TestCondition:
			it := Item{ID: d.ID, Corpus: r.Corpus, Text: d.Text, Gold: d.Gold, Split: "test"}
			in.Test, in.TestPred = append(in.Test, it), append(in.TestPred, d.Pred)
			if it.Gold == None {
				in.Native, in.NativePred = append(in.Native, it), append(in.NativePred, d.Pred)
			}
		case Matched, WrongScheme:
			i := strings.LastIndexByte(d.ID, '#')
			id, err := strconv.Atoi(d.ID[i+1:])
			if i < 0 || err != nil {
				return in, fmt.Errorf("detection %s %q: not a foil key (type#id)", d.Condition, d.ID)
			}
			f := Foil{Condition: d.Condition, Corpus: r.Corpus, Source: d.Source, Target: d.Target, ID: id, Text: d.Text}
			if d.Condition == Matched {
				in.Matched, in.MatchedPred = append(in.Matched, f), append(in.MatchedPred, d.Pred)
			} else {
				in.Wrong, in.WrongPred = append(in.Wrong, f), append(in.WrongPred, d.Pred)
			}
		default:
			return in, fmt.Errorf("detection %q: unknown condition %q", d.ID, d.Condition)
		}
	}
	return in, nil
}

// ReportOf makes the report of one or more audits of a run (several: one per
// seed, with an across-seeds section), exactly as the audit made it: the
// first audit's report, its extra meta rows, then the seeds. It returns the
// first audit's summary.
func ReportOf(audits []AuditRecord) (*report.Report, Summary, error) {
	if len(audits) == 0 {
		return nil, Summary{}, fmt.Errorf("no audit to report")
	}
	var rep *report.Report
	var first Summary
	sums := make([]Summary, 0, len(audits))
	seeds := make([]string, 0, len(audits))
	for i, a := range audits {
		in, err := a.Input()
		if err != nil {
			return nil, Summary{}, err
		}
		r, su, err := Audit(in, a.Options)
		if err != nil {
			return nil, Summary{}, err
		}
		if i == 0 {
			rep, first = r, su
		}
		sums, seeds = append(sums, su), append(seeds, a.SeedLabel)
	}
	if len(audits) > 1 {
		AcrossSeeds(rep, seeds, sums)
	}
	rep.Meta = append(rep.Meta, audits[0].Meta...)
	return rep, first, nil
}
