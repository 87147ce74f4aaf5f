package deflect

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/fallacylab/fallacylab/judge"
)

// A snapshot is an analysis copy of a run's records: what LoadScores
// returns, column by column, gob-encoded in one value per kind, which the
// store keeps beside the records (store.Snapshot) and never reads. It is
// written with the records, in the same transaction, so it is never out of
// step with them; reading one value and decoding a few columns takes a
// fraction of decoding 72,000 records. The records remain the records: a
// run without a snapshot (stored before migration 006), or with one of
// another format, is read from them, and so are full reads.

// snapshotFormat is the version of the encoding below. Any change to what
// is encoded, or how, takes a new number: an older snapshot is then not
// read, and the rows are.
const snapshotFormat = 1

// genSnapshot is generations as LoadScores reads them: no claim or
// prompt text or timestamp, the response only as far as the analysis reads
// it (ResponseStart).
type genSnapshot struct {
	N                                                                       int
	GenID, CallKey, Response                                                textColumn
	Model, ClaimID, Context, Domain, Fallacy, Explicitness, Frame, PromptID codedColumn
	Level, PromptNum, Sample, InputTokens, OutputTokens, IsError            ints
}

// judgeSnapshot is judgements as LoadScores reads them: no reasoning,
// raw answer, detected fallacies or timestamp.
type judgeSnapshot struct {
	N       int
	CallKey textColumn
	// GenID is coded (each generation has a judgement per judge), and so
	// is EvalID, as what follows its generation's id (most are that id and
	// the judge's name): see evalRest.
	GenID, EvalRest, Judge, GenModel codedColumn
	Scores                           []byte // eight per judgement, in Fields order, each plus one
	ParseError, ConsistencyFlag      ints
}

// genScoresSnapshot is genSnapshot as an analysis decodes it, without the
// call keys (see judgeScoresSnapshot).
type genScoresSnapshot struct {
	N                                                                       int
	GenID, Response                                                         textColumn
	Model, ClaimID, Context, Domain, Fallacy, Explicitness, Frame, PromptID codedColumn
	Level, PromptNum, Sample, InputTokens, OutputTokens, IsError            ints
}

// judgeScoresSnapshot is judgeSnapshot as an analysis decodes it: gob
// skips the fields a type lacks, so the call keys and eval ids are never
// made into strings.
type judgeScoresSnapshot struct {
	N                           int
	GenID, Judge, GenModel      codedColumn
	Scores                      []byte
	ParseError, ConsistencyFlag ints
}

// genColumns builds the snapshot of generations one at a time (an import
// streams them), holding a few bytes per generation.
type genColumns struct {
	n                                                int
	id, key, resp                                    textBuilder
	model, claim, ctxt, domain, fallacy, expl, frame codeBuilder
	prompt                                           codeBuilder
	level, num, sample, in, out, isErr               []byte
}

func (c *genColumns) add(g *Generation) {
	c.n++
	c.id.add(g.GenID)
	c.key.add(g.CallKey)
	c.resp.add(ResponseStart(g.Response))
	c.model.add(g.Model)
	c.claim.add(g.ClaimID)
	c.ctxt.add(g.Context)
	c.domain.add(g.Domain)
	c.fallacy.add(g.Fallacy)
	c.expl.add(g.Explicitness)
	c.frame.add(g.Frame)
	c.prompt.add(g.PromptID)
	c.level, c.num, c.sample = binary.AppendVarint(c.level, int64(g.Level)), binary.AppendVarint(c.num, int64(g.PromptNum)), binary.AppendVarint(c.sample, int64(g.Run))
	c.in, c.out, c.isErr = binary.AppendVarint(c.in, int64(g.InputTokens)), binary.AppendVarint(c.out, int64(g.OutputTokens)), binary.AppendVarint(c.isErr, int64(g.IsError))
}

func (c *genColumns) encode() ([]byte, error) {
	s := genSnapshot{N: c.n, Level: c.level, PromptNum: c.num, Sample: c.sample, InputTokens: c.in, OutputTokens: c.out, IsError: c.isErr,
		GenID: c.id.column(), CallKey: c.key.column(), Response: c.resp.column(),
		Model: c.model.column(), ClaimID: c.claim.column(), Context: c.ctxt.column(), Domain: c.domain.column(),
		Fallacy: c.fallacy.column(), Explicitness: c.expl.column(), Frame: c.frame.column(), PromptID: c.prompt.column()}
	return encodeSnapshot(s, len(c.id.b)+len(c.key.b)+len(c.resp.b)+20*c.n)
}

// encodeGenerations encodes the snapshot of gens, which hold no key twice
// (Upserted).
func encodeGenerations(gens []Generation) ([]byte, error) {
	var c genColumns
	for i := range gens {
		c.add(&gens[i])
	}
	return c.encode()
}

// decodeGenerations decodes a generations snapshot; without keys the call
// keys are left empty (an analysis never reads them).
func decodeGenerations(data []byte, keys bool) ([]Generation, error) {
	var s genSnapshot
	if keys {
		if err := decodeSnapshot(data, &s); err != nil {
			return nil, err
		}
	} else {
		var l genScoresSnapshot
		if err := decodeSnapshot(data, &l); err != nil {
			return nil, err
		}
		s = genSnapshot{N: l.N, GenID: l.GenID, Response: l.Response, Model: l.Model, ClaimID: l.ClaimID, Context: l.Context,
			Domain: l.Domain, Fallacy: l.Fallacy, Explicitness: l.Explicitness, Frame: l.Frame, PromptID: l.PromptID,
			Level: l.Level, PromptNum: l.PromptNum, Sample: l.Sample, InputTokens: l.InputTokens, OutputTokens: l.OutputTokens, IsError: l.IsError}
	}
	n := s.N
	var t [3]textValues
	for i, c := range []textColumn{s.GenID, s.CallKey, s.Response} {
		if i == 1 && !keys {
			t[i] = textValues{ends: make([]int, n)} // "" each
			continue
		}
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
	out := make([]Generation, n)
	for i := range out {
		out[i] = Generation{GenID: t[0].at(i), CallKey: t[1].at(i), Response: t[2].at(i),
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

// evalColumns builds the snapshot of judgements one at a time; a score
// outside −1…1 makes it errNoSnapshot (the records are then read).
type evalColumns struct {
	n                     int
	key                   textBuilder
	gen, rest, jdg, model codeBuilder
	scores, parse, flag   []byte
	bad                   bool
}

func (c *evalColumns) add(e *Eval) {
	c.n++
	c.gen.add(e.GenID)
	c.rest.add(evalRest(e.GenID, e.EvalID))
	c.key.add(e.CallKey)
	c.jdg.add(e.JudgeModel)
	c.model.add(e.GenModel)
	packed := 0
	for i := len(e.Scores) - 1; i >= 0; i-- {
		v := e.Scores[i]
		if v < judge.Missing || v > 1 {
			c.bad = true
		}
		packed = 3*packed + v + 1
	}
	c.scores = binary.LittleEndian.AppendUint16(c.scores, uint16(packed))
	c.parse, c.flag = binary.AppendVarint(c.parse, int64(e.ParseError)), binary.AppendVarint(c.flag, int64(e.ConsistencyFlag))
}

func (c *evalColumns) encode() ([]byte, error) {
	if c.bad {
		return nil, errNoSnapshot
	}
	s := judgeSnapshot{N: c.n, Scores: c.scores, ParseError: c.parse, ConsistencyFlag: c.flag,
		CallKey: c.key.column(), GenID: c.gen.column(), EvalRest: c.rest.column(), Judge: c.jdg.column(), GenModel: c.model.column()}
	return encodeSnapshot(s, len(c.key.b)+len(s.GenID.Values.Text)+len(s.EvalRest.Values.Text)+12*c.n)
}

// encodeJudgements encodes the snapshot of evals, which hold no key twice
// (Upserted).
func encodeJudgements(evals []Eval) ([]byte, error) {
	var c evalColumns
	for i := range evals {
		c.add(&evals[i])
	}
	return c.encode()
}

// decodeJudgements decodes a judgements snapshot; without ids the eval ids
// and call keys are left empty (an analysis never reads them: 380,000
// strings spared at 190,000 judgements).
func decodeJudgements(data []byte, ids bool) ([]Eval, error) {
	c, err := decodeJudgeColumns(data, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Eval, c.n)
	for i := range out {
		e := &out[i]
		if ids {
			e.EvalID, e.CallKey = evalID(c.k[0].at(i), c.k[1].at(i)), c.key.at(i)
		}
		c.fill(i, &e.GenID, &e.JudgeModel, &e.GenModel, &e.ParseError, &e.ConsistencyFlag, &e.Scores)
	}
	return out, nil
}

// decodeJudged decodes a judgements snapshot of scores straight into the
// analysis's form, each judge's rows in a slice of its exact size: the
// judgements are never held as Evals too (a 4× run's analysis peaked 44 MB
// higher so).
func decodeJudged(data []byte) (*judgedRows, error) {
	c, err := decodeJudgeColumns(data, false)
	if err != nil {
		return nil, err
	}
	b := judgedBuilder{rows: make([]judgeRow, 0, c.n)}
	for i := range c.n {
		var e Eval
		c.fill(i, &e.GenID, &e.JudgeModel, &e.GenModel, &e.ParseError, &e.ConsistencyFlag, &e.Scores)
		b.add(&e)
	}
	return b.done(), nil
}

// judgeColumns are a judgements snapshot's decoded columns.
type judgeColumns struct {
	n           int
	key         textValues
	k           [4]coded // gen id, eval id rest, judge, generation's model
	parse, flag []int
	scores      []byte
}

// fill sets one judgement's analysed fields from row i.
func (c *judgeColumns) fill(i int, genID, judge, genModel *string, parseError, flag *int, scores *Scores) {
	*genID, *judge, *genModel = c.k[0].at(i), c.k[2].at(i), c.k[3].at(i)
	*parseError, *flag = c.parse[i], c.flag[i]
	packed := int(binary.LittleEndian.Uint16(c.scores[2*i:]))
	for f := range scores {
		scores[f] = packed%3 - 1
		packed /= 3
	}
}

// decodeJudgeColumns decodes a judgements snapshot's columns (ids: with
// the eval ids and call keys).
func decodeJudgeColumns(data []byte, ids bool) (*judgeColumns, error) {
	var s judgeSnapshot
	if ids {
		if err := decodeSnapshot(data, &s); err != nil {
			return nil, err
		}
	} else {
		var l judgeScoresSnapshot
		if err := decodeSnapshot(data, &l); err != nil {
			return nil, err
		}
		s = judgeSnapshot{N: l.N, GenID: l.GenID, Judge: l.Judge, GenModel: l.GenModel, Scores: l.Scores, ParseError: l.ParseError, ConsistencyFlag: l.ConsistencyFlag}
	}
	c := &judgeColumns{n: s.N, scores: s.Scores}
	var err error
	if ids {
		if c.key, err = s.CallKey.decode(c.n); err != nil {
			return nil, err
		}
	}
	for i, col := range []codedColumn{s.GenID, s.EvalRest, s.Judge, s.GenModel} {
		if i == 1 && !ids {
			continue // the eval ids
		}
		if c.k[i], err = col.decode(c.n); err != nil {
			return nil, err
		}
	}
	if c.parse, err = s.ParseError.values(c.n); err != nil {
		return nil, err
	}
	if c.flag, err = s.ConsistencyFlag.values(c.n); err != nil {
		return nil, err
	}
	if len(s.Scores) != 2*c.n {
		return nil, errColumns
	}
	return c, nil
}
