package foils

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/store"
)

// Record kinds, in the store.
const (
	// KindAudit is one audit of a run (one per detector seed): its corpus,
	// detector, options and notes (key: its number, from 1).
	KindAudit = "foils/audit"
	// KindDetection is one item's detection in an audit (key: the audit's
	// number, the condition and the item id, joined by "/"); an LLM
	// detector's names its call, whose answer is the raw label.
	KindDetection = "foils/detection"
)

// ErrNoAudit is LoadAudits' error for a run that holds no audit.
var ErrNoAudit = errors.New("no Scheme Foils audit")

// auditBody is KindAudit's body.
type auditBody struct {
	SeedLabel    string      `json:"seed_label"`
	Corpus       string      `json:"corpus"`
	Detector     string      `json:"detector"`
	Binary       bool        `json:"binary"`
	Seed         uint64      `json:"seed"`
	Resamples    int         `json:"resamples"`
	Permutations int         `json:"permutations"`
	Meta         [][2]string `json:"meta"`
	// Report is the rendered report an older store kept (migration 011
	// moves it here); absent otherwise.
	Report json.RawMessage `json:"report,omitempty"`
}

// detectionBody is KindDetection's body: the detection, and its audit.
type detectionBody struct {
	Audit int `json:"audit"`
	Detection
}

// SaveAudits stores a run's audits and their detections in place of any
// it had, in one transaction.
func SaveAudits(ctx context.Context, recs bench.Records, runID int64, audits []AuditRecord) error {
	var out []store.Record
	for i, a := range audits {
		meta := a.Meta
		if meta == nil {
			meta = [][2]string{}
		}
		body, err := json.Marshal(auditBody{SeedLabel: a.SeedLabel, Corpus: a.Corpus, Detector: a.Detector, Binary: a.Binary,
			Seed: a.Options.Seed, Resamples: a.Options.Resamples, Permutations: a.Options.Perms, Meta: meta, Report: a.Report})
		if err != nil {
			return err
		}
		seq := strconv.Itoa(i + 1)
		out = append(out, store.Record{Kind: KindAudit, Key: seq, Body: body})
		for _, d := range a.Detections {
			if d.CallKey != "" {
				d.Raw = "" // the call keeps the answer, once
			}
			body, err := json.Marshal(detectionBody{Audit: i + 1, Detection: d})
			if err != nil {
				return err
			}
			out = append(out, store.Record{Kind: KindDetection, Key: seq + "/" + d.Condition + "/" + d.ID, CallKey: d.CallKey, Body: body})
		}
	}
	if err := recs.PutRecordKinds(ctx, runID, []string{KindAudit, KindDetection}, out); err != nil {
		return fmt.Errorf("store the audits of run %d: %w", runID, err)
	}
	return nil
}

// LoadAudits reads a run's audits with their detections (an LLM detector's
// raw answer read from its call); a run without any is an error that says
// so.
func LoadAudits(ctx context.Context, recs bench.RecordReader, runID int64) ([]AuditRecord, error) {
	var out []AuditRecord
	err := recs.Records(ctx, runID, KindAudit, func(r store.Record) error {
		var b auditBody
		if err := json.Unmarshal(r.Body, &b); err != nil {
			return fmt.Errorf("run %d: %s record %s: %w", runID, KindAudit, r.Key, err)
		}
		if n, err := strconv.Atoi(r.Key); err != nil || n != len(out)+1 {
			return fmt.Errorf("run %d: %s record %q is not audit %d", runID, KindAudit, r.Key, len(out)+1)
		}
		a := AuditRecord{SeedLabel: b.SeedLabel, Corpus: b.Corpus, Detector: b.Detector, Binary: b.Binary,
			Options: AuditOptions{Seed: b.Seed, Resamples: b.Resamples, Perms: b.Permutations}, Meta: b.Meta}
		if len(b.Report) > 0 && !bytes.Equal(b.Report, []byte("null")) {
			a.Report = []byte(b.Report)
		}
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("run %d has %w (it did not get that far: run the audit again)", runID, ErrNoAudit)
	}
	err = recs.Records(ctx, runID, KindDetection, func(r store.Record) error {
		var b detectionBody
		if err := json.Unmarshal(r.Body, &b); err != nil {
			return fmt.Errorf("run %d: %s record %s: %w", runID, KindDetection, r.Key, err)
		}
		if b.Audit < 1 || b.Audit > len(out) {
			return fmt.Errorf("run %d: %s record %s: audit %d of %d", runID, KindDetection, r.Key, b.Audit, len(out))
		}
		d := b.Detection
		if d.CallKey = r.CallKey; d.CallKey != "" {
			d.Raw = r.Answer
		}
		out[b.Audit-1].Detections = append(out[b.Audit-1].Detections, d)
		return nil
	})
	return out, err
}

// AuditOf picks the audit of a corpus among a run's (any corpus: the first).
func AuditOf(audits []AuditRecord, runID int64, corpus string) (AuditRecord, error) {
	var have []string
	for _, a := range audits {
		if corpus == "" || a.Corpus == corpus {
			return a, nil
		}
		have = append(have, a.Corpus)
	}
	return AuditRecord{}, fmt.Errorf("--corpus %s: run %d audited %s", corpus, runID, strings.Join(have, ", "))
}
