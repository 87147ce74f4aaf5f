package deflect

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sort"
	"sync"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/judge"
	"github.com/fallacylab/fallacylab/store"
)

// The record kinds of a DeflectBench run: a generation per (generation,
// model), keyed "model|gen_id"; a judgement per (generation, judge), keyed
// "gen_id|judge". Each kind has its snapshot (snapshot.go).
const (
	KindGeneration = "deflect/generation"
	KindEval       = "deflect/eval"
)

// genKey and evalKey are a record's key within its kind.
func genKey(g *Generation) string { return g.Model + "|" + g.GenID }
func evalKey(e *Eval) string      { return e.GenID + "|" + e.JudgeModel }

// evalRecord is a judgement as its record keeps it: the eight fields as a
// list, and the raw answer only when no call holds it.
type evalRecord struct {
	EvalID            string   `json:"eval_id"`
	GenID             string   `json:"gen_id"`
	JudgeModel        string   `json:"judge_model"`
	GenModel          string   `json:"gen_model,omitempty"`
	Reasoning         string   `json:"reasoning"`
	ParseError        int      `json:"parse_error"`
	Raw               string   `json:"raw,omitempty"`
	Scores            Scores   `json:"scores"`
	DetectedFallacies []string `json:"detected_fallacies"`
	ConsistencyFlag   int      `json:"consistency_flag"`
	Timestamp         string   `json:"timestamp,omitempty"`
}

// genRecordOf is g's record: its JSON, the response left to the call that
// holds it.
func genRecordOf(g Generation) (store.Record, error) {
	if g.CallKey != "" {
		g.Response = ""
	}
	b, err := json.Marshal(g)
	return store.Record{Kind: KindGeneration, Key: genKey(&g), CallKey: g.CallKey, Body: b}, err
}

func evalRecordOf(e Eval) (store.Record, error) {
	raw := e.RawJudgeResponse
	if e.CallKey != "" {
		raw = ""
	}
	det := e.DetectedFallacies
	if det == nil {
		det = []string{}
	}
	b, err := json.Marshal(evalRecord{EvalID: e.EvalID, GenID: e.GenID, JudgeModel: e.JudgeModel, GenModel: e.GenModel, Reasoning: e.Reasoning,
		ParseError: e.ParseError, Raw: raw, Scores: e.Scores, DetectedFallacies: det, ConsistencyFlag: e.ConsistencyFlag, Timestamp: e.Timestamp})
	return store.Record{Kind: KindEval, Key: evalKey(&e), CallKey: e.CallKey, Body: b}, err
}

// GenerationOf reads a generation record (its answer from its call).
func GenerationOf(r store.Record) (Generation, error) {
	var g Generation
	if err := json.Unmarshal(r.Body, &g); err != nil {
		return g, fmt.Errorf("generation %s: %w", r.Key, err)
	}
	if g.CallKey = r.CallKey; g.CallKey != "" {
		if r.CallMissing {
			return g, fmt.Errorf("generation %s: its answer (call %s) is not in the store", g.GenID, g.CallKey)
		}
		g.Response = r.Answer
	}
	return g, nil
}

// EvalOf reads a judgement record (its raw answer from its call).
func EvalOf(r store.Record) (Eval, error) {
	var x evalRecord
	if err := json.Unmarshal(r.Body, &x); err != nil {
		return Eval{}, fmt.Errorf("judgement %s: %w", r.Key, err)
	}
	e := Eval{EvalID: x.EvalID, GenID: x.GenID, JudgeModel: x.JudgeModel, GenModel: x.GenModel, Reasoning: x.Reasoning, ParseError: x.ParseError,
		RawJudgeResponse: x.Raw, Scores: x.Scores, DetectedFallacies: x.DetectedFallacies, ConsistencyFlag: x.ConsistencyFlag, Timestamp: x.Timestamp, CallKey: r.CallKey}
	if e.CallKey != "" {
		if r.CallMissing {
			return e, fmt.Errorf("judgement %s: its answer (call %s) is not in the store", e.EvalID, e.CallKey)
		}
		e.RawJudgeResponse = r.Answer
	}
	return e, nil
}

// SaveRecords stores generation and eval records of the run, in one
// transaction, each non-nil slice in place of the run's records of its kind
// (a nil slice leaves them as they are).
func SaveRecords(ctx context.Context, st bench.Records, runID int64, gens []Generation, evals []Eval) error {
	var later func() ([]Eval, error)
	if evals != nil {
		later = func() ([]Eval, error) { return evals, nil }
	}
	return save(ctx, st, runID, gens, later)
}

// SaveRecordsThen stores a run's generations and then the evals that evals
// returns, in one transaction, both in place of the run's records: evals is
// called once the generations are written, so that they are read while the
// generations are written; its error leaves the run's records as they were.
func SaveRecordsThen(ctx context.Context, st bench.Records, runID int64, gens []Generation, evals func() ([]Eval, error)) error {
	if gens == nil {
		gens = []Generation{}
	}
	return save(ctx, st, runID, gens, sync.OnceValues(evals)) // once: a busy store tries the write again
}

// SaveGens stores a run's generations in place of any it had.
func SaveGens(ctx context.Context, st bench.Records, runID int64, gens []Generation) error {
	if gens == nil {
		gens = []Generation{}
	}
	return save(ctx, st, runID, gens, nil)
}

// SaveEvals stores a run's evals in place of any it had.
func SaveEvals(ctx context.Context, st bench.Records, runID int64, evals []Eval) error {
	if evals == nil {
		evals = []Eval{}
	}
	return SaveRecords(ctx, st, runID, nil, evals)
}

// save writes the kinds given (nil gens, nil later: that kind is kept),
// each with its snapshot, encoded on another core while the records are
// written. A key given twice keeps its last values in the first one's
// place (Upserted), in the records and the snapshot alike.
func save(ctx context.Context, st bench.Records, runID int64, gens []Generation, later func() ([]Eval, error)) error {
	var set store.RecordSet
	var genSnap *pending
	if gens != nil {
		gens = Upserted(gens, func(g *Generation) [2]string { return [2]string{g.GenID, g.Model} })
		genSnap = encodeLater(func() ([]byte, error) { return encodeGenerations(gens) })
		set.Kinds = append(set.Kinds, KindGeneration)
		set.Snapshots = append(set.Snapshots, store.Snapshot{Kind: KindGeneration, Format: snapshotFormat, Data: genSnap.wait})
	}
	type judged struct {
		evals []Eval
		snap  *pending
		err   error
	}
	var evalsOnce func() judged
	if later != nil {
		evalsOnce = sync.OnceValue(func() judged {
			evals, err := later()
			if err != nil {
				return judged{err: err}
			}
			evals = Upserted(evals, func(e *Eval) [2]string { return [2]string{e.GenID, e.JudgeModel} })
			return judged{evals: evals, snap: encodeLater(func() ([]byte, error) { return encodeJudgements(evals) })}
		})
		set.Kinds = append(set.Kinds, KindEval)
		set.Snapshots = append(set.Snapshots, store.Snapshot{Kind: KindEval, Format: snapshotFormat, Data: func() ([]byte, error) {
			j := evalsOnce()
			if j.err != nil {
				return nil, j.err
			}
			return j.snap.wait()
		}})
	}
	set.Records = func(put func(store.Record) error) error {
		for _, g := range gens {
			r, err := genRecordOf(g)
			if err != nil {
				return fmt.Errorf("generation %s: %w", g.GenID, err)
			}
			if err := put(r); err != nil {
				return err
			}
		}
		if evalsOnce == nil {
			return nil
		}
		j := evalsOnce()
		if j.err != nil {
			return j.err
		}
		for _, e := range j.evals {
			r, err := evalRecordOf(e)
			if err != nil {
				return fmt.Errorf("judgement %s: %w", e.EvalID, err)
			}
			if err := put(r); err != nil {
				return err
			}
		}
		return nil
	}
	return st.PutRecordSet(ctx, runID, set)
}

// LoadRecords reads a DeflectBench run's records.
func LoadRecords(ctx context.Context, st bench.RecordReader, runID int64) (Dataset, error) {
	return loadRecords(runID, func() (Dataset, error) { return readRecords(ctx, st, runID) })
}

// LoadScores reads a DeflectBench run's records for Analyze: without the
// texts the analysis never reads (claim and prompt texts, the judges'
// reasoning, raw answers and detected fallacies, eval ids, call keys,
// timestamps), and with
// only the start of each response (ResponseStart). They come from the
// run's snapshots where it has them, from its records otherwise.
func LoadScores(ctx context.Context, st bench.Records, runID int64) (Dataset, error) {
	return loadRecords(runID, func() (Dataset, error) { return readScores(ctx, st, runID) })
}

func loadRecords(runID int64, read func() (Dataset, error)) (Dataset, error) {
	d, err := read()
	if err != nil {
		return d, err
	}
	if len(d.Gens) == 0 {
		return d, fmt.Errorf("run %d %w (was it interrupted? re-run `deflect run` to finish it)", runID, ErrNoGenerations)
	}
	return d, nil
}

// ErrNoGenerations is the error of a run that holds no generation records.
var ErrNoGenerations error = noGenerations{}

// noGenerations is ErrNoGenerations: a store.ErrNotFound to those who
// know no benchmark (the viewer's 404).
type noGenerations struct{}

func (noGenerations) Error() string        { return "has no DeflectBench generations" }
func (noGenerations) Is(target error) bool { return target == store.ErrNotFound }

// both runs the generations' read beside the judgements'.
func both(gens func() ([]Generation, error), evals func() ([]Eval, error)) (Dataset, error) {
	var d Dataset
	var gensErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Gens, gensErr = gens()
	}()
	var err error
	d.Evals, err = evals()
	<-done
	if err = errors.Join(gensErr, err); err != nil {
		return Dataset{}, err
	}
	return d, nil
}

// readRecords reads every record of the run, whole.
func readRecords(ctx context.Context, st bench.RecordReader, runID int64) (Dataset, error) {
	return both(func() ([]Generation, error) { return readKind(ctx, st, runID, KindGeneration, GenerationOf) },
		func() ([]Eval, error) { return readKind(ctx, st, runID, KindEval, EvalOf) })
}

// readKind reads the run's records of kind with of.
func readKind[T any](ctx context.Context, st bench.RecordReader, runID int64, kind string, of func(store.Record) (T, error)) ([]T, error) {
	var out []T
	err := st.Records(ctx, runID, kind, func(r store.Record) error {
		v, err := of(r)
		if err != nil {
			return fmt.Errorf("run %d: %w", runID, err)
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// readScores reads the analysis copy of the run: its snapshots, else its
// records, cut as the snapshots are.
func readScores(ctx context.Context, st bench.Records, runID int64) (Dataset, error) {
	return both(func() ([]Generation, error) { return scoreGens(ctx, st, runID) },
		func() ([]Eval, error) {
			if evals, ok, err := readSnapshot(ctx, st, runID, KindEval, func(b []byte) ([]Eval, error) { return decodeJudgements(b, false) }); err != nil || ok {
				return evals, err
			}
			return scoreEvals(ctx, st, runID)
		})
}

// loadAnalysis is LoadScores for the analysis alone: the judgements come
// in the analysis's form (Dataset.judged), never as Evals too.
func loadAnalysis(ctx context.Context, st bench.Records, runID int64) (Dataset, error) {
	return loadRecords(runID, func() (Dataset, error) {
		var judged *judgedRows
		d, err := both(func() ([]Generation, error) { return scoreGens(ctx, st, runID) },
			func() ([]Eval, error) {
				data, ok, err := st.Snapshot(ctx, runID, KindEval, snapshotFormat)
				if err != nil {
					return nil, err
				}
				if ok {
					if judged, err = decodeJudged(data); err != nil {
						return nil, fmt.Errorf("%s records of run %d: snapshot: %w", KindEval, runID, err)
					}
					return nil, nil
				}
				evals, err := scoreEvals(ctx, st, runID)
				if err == nil {
					judged = judgedOf(evals)
				}
				return nil, err
			})
		d.judged = judged
		return d, err
	})
}

// scoreGens reads a run's generations as the analysis reads them: from
// the snapshot, or from the records, cut to what it reads.
func scoreGens(ctx context.Context, st bench.Records, runID int64) ([]Generation, error) {
	if gens, ok, err := readSnapshot(ctx, st, runID, KindGeneration, func(b []byte) ([]Generation, error) { return decodeGenerations(b, false) }); err != nil || ok {
		return gens, err
	}
	gens, err := readKind(ctx, st, runID, KindGeneration, GenerationOf)
	for i := range gens {
		g := &gens[i]
		g.ClaimText, g.PromptText, g.Timestamp, g.Response, g.CallKey = "", "", "", ResponseStart(g.Response), ""
	}
	return gens, err
}

// scoreEvals reads a run's judgements from its records, cut to what the
// analysis reads (a run without a snapshot of them).
func scoreEvals(ctx context.Context, st bench.Records, runID int64) ([]Eval, error) {
	evals, err := readKind(ctx, st, runID, KindEval, EvalOf)
	for i := range evals {
		e := &evals[i]
		for _, v := range e.Scores {
			if v < judge.Missing || v > 1 {
				return nil, fmt.Errorf("run %d judgement %s: a rubric field outside −1…1", runID, e.EvalID)
			}
		}
		e.EvalID, e.CallKey, e.Reasoning, e.RawJudgeResponse, e.DetectedFallacies, e.Timestamp = "", "", "", "", nil, ""
	}
	return evals, err
}

// readSnapshot decodes a run's snapshot of kind; ok is false when it has
// none of this format.
func readSnapshot[T any](ctx context.Context, st bench.Records, runID int64, kind string, decode func([]byte) ([]T, error)) ([]T, bool, error) {
	data, ok, err := st.Snapshot(ctx, runID, kind, snapshotFormat)
	if err != nil || !ok {
		return nil, false, err
	}
	out, err := decode(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s records of run %d: snapshot: %w", kind, runID, err)
	}
	return out, true, nil
}

// Page reads one page of a run's analysable generations — valid (not an
// API error) and scored by at least one judge, in gen_id order, as Rows
// lists them under the default consensus — with all their judgements, and
// how many such generations the run has. The viewer shows a run's first
// page from it while the whole run loads.
func Page(ctx context.Context, st bench.Records, runID int64, offset, limit int) (Dataset, int, error) {
	lean, err := readScores(ctx, st, runID)
	if err != nil {
		return Dataset{}, 0, err
	}
	scored := map[string]bool{}
	for _, e := range lean.Evals {
		if e.ParseError == 0 {
			scored[e.GenID] = true
		}
	}
	var ok []Generation
	for _, g := range lean.Gens {
		if g.Valid() && scored[g.GenID] {
			ok = append(ok, g)
		}
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].GenID < ok[j].GenID })
	total := len(ok)
	ok = ok[min(offset, total):min(offset+limit, total)]
	if len(ok) == 0 {
		return Dataset{}, total, nil
	}
	page := map[string]bool{}
	var genKeys, evalKeys []string
	for i := range ok {
		page[ok[i].GenID] = true
		genKeys = append(genKeys, genKey(&ok[i]))
	}
	for i := range lean.Evals {
		if page[lean.Evals[i].GenID] {
			evalKeys = append(evalKeys, evalKey(&lean.Evals[i]))
		}
	}
	var d Dataset
	if err := st.RecordsByKey(ctx, runID, KindGeneration, genKeys, func(r store.Record) error {
		g, err := GenerationOf(r)
		d.Gens = append(d.Gens, g)
		return err
	}); err != nil {
		return Dataset{}, 0, err
	}
	if err := st.RecordsByKey(ctx, runID, KindEval, evalKeys, func(r store.Record) error {
		e, err := EvalOf(r)
		d.Evals = append(d.Evals, e)
		return err
	}); err != nil {
		return Dataset{}, 0, err
	}
	return d, total, nil
}

// Upserted is what an upsert of rows leaves, in the order it is read back:
// a row whose key came before replaces that row's values, in its place.
// Keys are first told apart by a hash: rows whose hashes all differ, as
// almost all do, cost one map of integers.
func Upserted[T any](rows []T, key func(*T) [2]string) []T {
	seed := maphash.MakeSeed()
	seen := make(map[uint64]struct{}, len(rows))
	for i := range rows {
		k := key(&rows[i])
		h := maphash.String(seed, k[0]) ^ (maphash.String(seed, k[1]) * 0x9e3779b97f4a7c15)
		if _, ok := seen[h]; ok {
			return upsertedSlow(rows, key)
		}
		seen[h] = struct{}{}
	}
	return rows
}

func upsertedSlow[T any, K comparable](rows []T, key func(*T) K) []T {
	at := make(map[K]int, len(rows))
	out := make([]T, 0, len(rows))
	for i := range rows {
		k := key(&rows[i])
		if j, ok := at[k]; ok {
			out[j] = rows[i]
			continue
		}
		at[k] = len(out)
		out = append(out, rows[i])
	}
	return out
}

// pending is a snapshot being encoded.
type pending struct {
	done chan struct{}
	data []byte
	err  error
}

// encodeLater encodes on another goroutine.
func encodeLater(encode func() ([]byte, error)) *pending {
	p := &pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.data, p.err = encode()
		if errors.Is(p.err, errNoSnapshot) {
			p.data, p.err = nil, nil // read from the records
		}
	}()
	return p
}

// wait is the encoding, once done (any number of times: a write is tried
// again after a busy store).
func (p *pending) wait() ([]byte, error) {
	<-p.done
	return p.data, p.err
}

// encodeSnapshot gob-encodes v, of about size bytes. gob builds a message
// whole in a buffer of its own before it writes it, and that buffer grows
// by doubling from nothing: a 9.5-MB snapshot left about twice its size
// behind while it was encoded (the 4× import's highest memory). So the
// encoder first encodes, to nowhere, a byte slice of the message's size,
// which grows its buffer in one step; its buffer is reused for v, whose
// bytes are those of a fresh encoder (no type is described for a byte
// slice). The slice is a view of the output's own spare room.
func encodeSnapshot(v any, size int) ([]byte, error) {
	var b bytes.Buffer
	room := size + size/8 + 4096
	b.Grow(room)
	w := &switchWriter{w: io.Discard}
	enc := gob.NewEncoder(w)
	if err := enc.Encode(b.AvailableBuffer()[:room]); err != nil {
		return nil, err
	}
	w.w = &b
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// switchWriter writes to w, which may be changed between writes.
type switchWriter struct{ w io.Writer }

func (s *switchWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

func decodeSnapshot(data []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}
