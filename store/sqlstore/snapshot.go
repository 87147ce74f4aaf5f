package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/judge"
)

// A snapshot is an analysis copy of a run's DeflectBench records: what
// DeflectScores returns, column by column, gob-encoded in one value per
// kind (table record_snapshots). It is written with the rows, in the same
// transaction, so it is never out of step with them; reading one value and
// decoding a few columns takes a fraction of stepping 72,000 rows through
// the pure-Go SQLite. The rows remain the records: a run without a snapshot
// (stored before migration 006), or with one of another format, is read
// from them, and so are full reads.

// snapshotFormat is the version of the encoding below. Any change to what
// is encoded, or how, takes a new number: an older snapshot is then not
// read, and the rows are.
const snapshotFormat = 1

// Snapshot kinds.
const (
	snapGenerations = "deflect-generations"
	snapJudgements  = "deflect-judgements"
)

// Columns are packed into bytes, which gob copies whole: a column of
// 48,000 numbers is one copy to encode and to decode, not 48,000 gob
// values. Numbers are varints (most take a byte), read back whole.

// ints is a column of integers, as varints.
type ints []byte

func (c ints) values(n int) ([]int, error) {
	out := make([]int, n)
	for i := range out {
		v, k := binary.Varint(c)
		if k <= 0 {
			return nil, errColumns
		}
		out[i], c = int(v), c[k:]
	}
	if len(c) != 0 {
		return nil, errColumns
	}
	return out, nil
}

var errColumns = errors.New("columns of different lengths")

// textColumn is a column of strings kept as one text and each value's
// length: decoding it is one allocation, and the values are slices of it.
type textColumn struct {
	Text string
	Lens ints
}

// textValues is a decoded textColumn.
type textValues struct {
	text string
	ends []int
}

func (c textColumn) decode(n int) (textValues, error) {
	ends, err := c.Lens.values(n)
	if err != nil {
		return textValues{}, err
	}
	at := 0
	for i, l := range ends {
		if l < 0 || at+l > len(c.Text) {
			return textValues{}, errColumns
		}
		at += l
		ends[i] = at
	}
	return textValues{text: c.Text, ends: ends}, nil
}

func (t textValues) at(i int) string {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.text[start:t.ends[i]]
}

// codedColumn is a column of few distinct strings (models, frames): each
// distinct value once, and each row's as an index.
type codedColumn struct {
	Values textColumn
	N      int // distinct values
	Codes  ints
}

// coded is a decoded codedColumn.
type coded struct {
	values []string
	codes  []int
}

func (c codedColumn) decode(n int) (coded, error) {
	v, err := c.Values.decode(c.N)
	if err != nil {
		return coded{}, err
	}
	codes, err := c.Codes.values(n)
	if err != nil {
		return coded{}, err
	}
	out := coded{values: make([]string, c.N), codes: codes}
	for i := range out.values {
		out.values[i] = v.at(i)
	}
	for _, k := range codes {
		if k < 0 || k >= c.N {
			return coded{}, errColumns
		}
	}
	return out, nil
}

func (c coded) at(i int) string { return c.values[c.codes[i]] }

// textBuilder builds a textColumn.
type textBuilder struct {
	b    []byte
	lens []byte
}

// sized is a textBuilder with room for n values of size bytes in all.
func sized(n, size int) textBuilder {
	return textBuilder{b: make([]byte, 0, size), lens: make([]byte, 0, n)}
}

func (t *textBuilder) add(s string) {
	t.b = append(t.b, s...)
	t.lens = binary.AppendVarint(t.lens, int64(len(s)))
}

func (t *textBuilder) column() textColumn { return textColumn{Text: string(t.b), Lens: t.lens} }

// codeBuilder builds a codedColumn.
type codeBuilder struct {
	values textBuilder
	index  map[string]int
	codes  []byte
}

func (c *codeBuilder) add(s string) {
	i, ok := c.index[s]
	if !ok {
		if c.index == nil {
			c.index = map[string]int{}
		}
		i = len(c.index)
		c.index[s] = i
		c.values.add(s)
	}
	c.codes = binary.AppendVarint(c.codes, int64(i))
}

func (c *codeBuilder) column() codedColumn {
	return codedColumn{Values: c.values.column(), N: len(c.index), Codes: c.codes}
}

// genSnapshot is generations as DeflectScores reads them: no claim or
// prompt text or timestamp, the response only as far as the analysis reads
// it (deflect.ResponseStart).
type genSnapshot struct {
	N                                                                       int
	GenID, CallKey, Response                                                textColumn
	Model, ClaimID, Context, Domain, Fallacy, Explicitness, Frame, PromptID codedColumn
	Level, PromptNum, Sample, InputTokens, OutputTokens, IsError            ints
}

// judgeSnapshot is judgements as DeflectScores reads them: no reasoning,
// raw answer, detected fallacies or timestamp.
type judgeSnapshot struct {
	N       int
	CallKey textColumn
	// GenID is coded (each generation has a judgement per judge), and so
	// is EvalID, as what follows its generation's id (most are that id and
	// the judge's name): see evalRest.
	GenID, EvalRest, Judge, GenModel codedColumn
	Scores                           []byte // eight per judgement, in deflect.Fields order, each plus one
	ParseError, ConsistencyFlag      ints
}

// upserted is what an upsert of rows leaves in a table, in the order it is
// read back: a row whose key came before replaces that row's values, in
// its place. The stores write its result, so that neither relies on its
// SQL for rows repeated within one write (PostgreSQL refuses them in one
// statement). Keys are first told apart by a hash: rows whose hashes all
// differ, as almost all do, cost one map of integers.
func upserted[T any](rows []T, key func(*T) [2]string) []T {
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

// encodeGenerations encodes the snapshot of gens, which hold no key twice
// (upserted).
func encodeGenerations(gens []deflect.Generation) ([]byte, error) {
	n := len(gens)
	var idLen, keyLen, respLen int
	starts := make([]string, n)
	for i, g := range gens {
		starts[i] = deflect.ResponseStart(g.Response)
		idLen, keyLen, respLen = idLen+len(g.GenID), keyLen+len(g.CallKey), respLen+len(starts[i])
	}
	id, key, resp := sized(n, idLen), sized(n, keyLen), sized(n, respLen)
	var model, claim, ctxt, domain, fallacy, expl, frame, prompt codeBuilder
	var level, num, sample, in, out, isErr []byte
	for i, g := range gens {
		id.add(g.GenID)
		key.add(g.CallKey)
		resp.add(starts[i])
		model.add(g.Model)
		claim.add(g.ClaimID)
		ctxt.add(g.Context)
		domain.add(g.Domain)
		fallacy.add(g.Fallacy)
		expl.add(g.Explicitness)
		frame.add(g.Frame)
		prompt.add(g.PromptID)
		level, num, sample = binary.AppendVarint(level, int64(g.Level)), binary.AppendVarint(num, int64(g.PromptNum)), binary.AppendVarint(sample, int64(g.Run))
		in, out, isErr = binary.AppendVarint(in, int64(g.InputTokens)), binary.AppendVarint(out, int64(g.OutputTokens)), binary.AppendVarint(isErr, int64(g.IsError))
	}
	s := genSnapshot{N: n, Level: level, PromptNum: num, Sample: sample, InputTokens: in, OutputTokens: out, IsError: isErr,
		GenID: id.column(), CallKey: key.column(), Response: resp.column(),
		Model: model.column(), ClaimID: claim.column(), Context: ctxt.column(), Domain: domain.column(),
		Fallacy: fallacy.column(), Explicitness: expl.column(), Frame: frame.column(), PromptID: prompt.column()}
	return encodeSnapshot(s, idLen+keyLen+respLen+20*n)
}

func decodeGenerations(data []byte) ([]deflect.Generation, error) {
	var s genSnapshot
	if err := decodeSnapshot(data, &s); err != nil {
		return nil, err
	}
	n := s.N
	var t [3]textValues
	for i, c := range []textColumn{s.GenID, s.CallKey, s.Response} {
		var err error
		if t[i], err = c.decode(n); err != nil {
			return nil, err
		}
	}
	var k [8]coded
	for i, c := range []codedColumn{s.Model, s.ClaimID, s.Context, s.Domain, s.Fallacy, s.Explicitness, s.Frame, s.PromptID} {
		var err error
		if k[i], err = c.decode(n); err != nil {
			return nil, err
		}
	}
	var v [6][]int
	for i, c := range []ints{s.Level, s.PromptNum, s.Sample, s.InputTokens, s.OutputTokens, s.IsError} {
		var err error
		if v[i], err = c.values(n); err != nil {
			return nil, err
		}
	}
	out := make([]deflect.Generation, n)
	for i := range out {
		out[i] = deflect.Generation{GenID: t[0].at(i), CallKey: t[1].at(i), Response: t[2].at(i),
			Model: k[0].at(i), ClaimID: k[1].at(i), Context: k[2].at(i), Domain: k[3].at(i), Fallacy: k[4].at(i),
			Explicitness: k[5].at(i), Frame: k[6].at(i), PromptID: k[7].at(i),
			Level: v[0][i], PromptNum: v[1][i], Run: v[2][i], InputTokens: v[3][i], OutputTokens: v[4][i], IsError: v[5][i]}
	}
	return out, nil
}

// errNoSnapshot: these records are read from their rows (a score outside
// −1…1, which the row read reports).
var errNoSnapshot = errors.New("no snapshot")

// evalRest is what an eval id keeps in a snapshot: what follows its
// generation's id, or, where it does not start with that, a NUL and the
// whole id (evalID reverses it).
func evalRest(genID, evalID string) string {
	if rest, ok := strings.CutPrefix(evalID, genID); ok && !strings.HasPrefix(rest, "\x00") {
		return rest
	}
	return "\x00" + evalID
}

func evalID(genID, rest string) string {
	if whole, ok := strings.CutPrefix(rest, "\x00"); ok {
		return whole
	}
	return genID + rest
}

// encodeJudgements encodes the snapshot of evals, which hold no key twice
// (upserted).
func encodeJudgements(evals []deflect.Eval) ([]byte, error) {
	n := len(evals)
	var keyLen int
	for _, e := range evals {
		keyLen += len(e.CallKey)
	}
	key := sized(n, keyLen)
	var gen, rest, jdg, model codeBuilder
	scores := make([]byte, 0, 2*n)
	var parse, flag []byte
	for _, e := range evals {
		gen.add(e.GenID)
		rest.add(evalRest(e.GenID, e.EvalID))
		key.add(e.CallKey)
		jdg.add(e.JudgeModel)
		model.add(e.GenModel)
		packed := 0
		for i := len(e.Scores) - 1; i >= 0; i-- {
			v := e.Scores[i]
			if v < judge.Missing || v > 1 {
				return nil, errNoSnapshot
			}
			packed = 3*packed + v + 1
		}
		scores = binary.LittleEndian.AppendUint16(scores, uint16(packed))
		parse, flag = binary.AppendVarint(parse, int64(e.ParseError)), binary.AppendVarint(flag, int64(e.ConsistencyFlag))
	}
	s := judgeSnapshot{N: n, Scores: scores, ParseError: parse, ConsistencyFlag: flag,
		CallKey: key.column(), GenID: gen.column(), EvalRest: rest.column(), Judge: jdg.column(), GenModel: model.column()}
	return encodeSnapshot(s, keyLen+len(s.GenID.Values.Text)+len(s.EvalRest.Values.Text)+12*n)
}

func decodeJudgements(data []byte) ([]deflect.Eval, error) {
	var s judgeSnapshot
	if err := decodeSnapshot(data, &s); err != nil {
		return nil, err
	}
	n := s.N
	key, err := s.CallKey.decode(n)
	if err != nil {
		return nil, err
	}
	var k [4]coded
	for i, c := range []codedColumn{s.GenID, s.EvalRest, s.Judge, s.GenModel} {
		if k[i], err = c.decode(n); err != nil {
			return nil, err
		}
	}
	parse, err := s.ParseError.values(n)
	if err != nil {
		return nil, err
	}
	flag, err := s.ConsistencyFlag.values(n)
	if err != nil {
		return nil, err
	}
	if len(s.Scores) != 2*n {
		return nil, errColumns
	}
	out := make([]deflect.Eval, n)
	for i := range out {
		e := &out[i]
		e.GenID, e.JudgeModel, e.GenModel = k[0].at(i), k[2].at(i), k[3].at(i)
		e.EvalID = evalID(e.GenID, k[1].at(i))
		e.ParseError, e.ConsistencyFlag, e.CallKey = parse[i], flag[i], key.at(i)
		packed := int(binary.LittleEndian.Uint16(s.Scores[2*i:]))
		for f := range e.Scores {
			e.Scores[f] = packed%3 - 1
			packed /= 3
		}
	}
	return out, nil
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
	}()
	return p
}

// wait is the encoding, once done (any number of times: a write is tried
// again after a busy store).
func (p *pending) wait() ([]byte, error) {
	<-p.done
	return p.data, p.err
}

// encodeSnapshot gob-encodes v, of about size bytes.
func encodeSnapshot(v any, size int) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(size + size/8 + 4096)
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func decodeSnapshot(data []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// putSnapshot stores the snapshot of kind, or, where the records cannot
// have one (errNoSnapshot, or too large), removes the one stored before:
// the rows are then read.
func putSnapshot(tx Tx, runID int64, kind string, data []byte, err error) error {
	if err != nil {
		if _, derr := tx.Exec(`DELETE FROM record_snapshots WHERE run_id = ? AND kind = ?`, runID, kind); derr != nil {
			return fmt.Errorf("snapshot of run %d: %w", runID, derr)
		}
		return nil
	}
	if _, err := tx.Exec(`INSERT INTO record_snapshots (run_id, kind, format, data) VALUES (?, ?, ?, ?)
		ON CONFLICT(run_id, kind) DO UPDATE SET format = excluded.format, data = excluded.data`, runID, kind, snapshotFormat, data); err != nil {
		return fmt.Errorf("snapshot of run %d: %w", runID, err)
	}
	return nil
}

// snapshot reads a run's snapshot of kind; ok is false when there is none
// of this format.
func (s *Store) snapshot(ctx context.Context, runID int64, kind string) (data []byte, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT data FROM record_snapshots WHERE run_id = ? AND kind = ? AND format = ?`, runID, kind, snapshotFormat).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("snapshot of run %d: %w", runID, err)
	}
	return data, true, nil
}

// BackfillSnapshots gives the runs stored before snapshots existed
// (migration 006) theirs: each kind of records a run has rows of but no
// snapshot for is read from the rows and its snapshot written, unless the
// run's records were written again meanwhile (they then have their own). A
// run whose rows cannot be read keeps being read from them. It returns how
// many snapshots it wrote; the stores call it once, when they apply
// migration 006.
func (s *Store) BackfillSnapshots(ctx context.Context) (int, error) {
	written := 0
	for _, k := range []struct{ kind, table string }{{snapGenerations, "generations"}, {snapJudgements, "judgements"}} {
		rows, err := s.db.QueryContext(ctx, `SELECT r.id, r.records_version FROM runs r
			WHERE EXISTS (SELECT 1 FROM `+k.table+` t WHERE t.run_id = r.id)
			AND NOT EXISTS (SELECT 1 FROM record_snapshots p WHERE p.run_id = r.id AND p.kind = ?) ORDER BY r.id`, k.kind)
		if err != nil {
			return written, fmt.Errorf("snapshots to write: %w", err)
		}
		var runs [][2]int64
		for rows.Next() {
			var id, version int64
			if err := rows.Scan(&id, &version); err != nil {
				rows.Close()
				return written, fmt.Errorf("snapshots to write: %w", err)
			}
			runs = append(runs, [2]int64{id, version})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return written, fmt.Errorf("snapshots to write: %w", err)
		}
		for _, r := range runs {
			var data []byte
			var encErr error
			if k.kind == snapGenerations {
				gens, err := s.generationsWhere(ctx, r[0], false, nil)
				if err != nil {
					continue
				}
				data, encErr = encodeGenerations(gens)
			} else {
				evals, err := s.judgementScores(ctx, r[0])
				if err != nil {
					continue
				}
				data, encErr = encodeJudgements(evals)
			}
			wrote := false
			err := s.write(ctx, func(tx Tx) error {
				var version int64
				switch err := tx.QueryRow(`SELECT records_version FROM runs WHERE id = ?`, r[0]).Scan(&version); {
				case errors.Is(err, sql.ErrNoRows):
					return nil // gone meanwhile
				case err != nil:
					return err
				case version != r[1]:
					return nil // written again meanwhile, with its own snapshot
				}
				wrote = encErr == nil
				return putSnapshot(tx, r[0], k.kind, data, encErr)
			})
			if err != nil {
				return written, fmt.Errorf("snapshot of run %d: %w", r[0], err)
			}
			if wrote {
				written++
			}
		}
	}
	return written, nil
}
