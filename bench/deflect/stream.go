package deflect

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
)

// inputError is bad input in a file read (a line that does not decode,
// a file that cannot be read): an import that meets one leaves no run.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// fileStream reads upstream-format generations and evals files, one block
// of lines at a time, and hands on each record once — the first of each
// gen_id, and of each (gen_id, judge), as upstream's loaders keep — holding
// only the keys seen: its memory does not grow with the files but by a few
// bytes a record.
type fileStream struct {
	gens, evals []string // the files, in order
	// scoresOnly reads no judge reasoning or raw answer, no timestamps and
	// of a response only its start (an analysis: lean records).
	scoresOnly bool

	droppedGens, droppedEvals int
	// The keys seen: each gen_id's place (genIDs holds the first
	// generation's own copy of it), and each judgement's (gen, judge) — by
	// places where its generation is known, in a map the collector need
	// not scan, by names where it is not.
	seenGen    map[string]int32
	genIDs     []string
	judges     map[string]int32
	seenEval   map[uint64]struct{}
	orphanEval map[[2]string]struct{}
}

// firstEval reports whether e is the first judgement of its (gen_id,
// judge), and gives it the generation's copy of its gen_id.
func (f *fileStream) firstEval(e *Eval) bool {
	g, known := f.seenGen[e.GenID]
	if !known {
		k := [2]string{e.GenID, e.JudgeModel}
		if _, dup := f.orphanEval[k]; dup {
			return false
		}
		f.orphanEval[k] = struct{}{}
		return true
	}
	e.GenID = f.genIDs[g] // one copy of each id, the generation's
	j, ok := f.judges[e.JudgeModel]
	if !ok {
		j = int32(len(f.judges))
		f.judges[e.JudgeModel] = j
	}
	k := uint64(uint32(g))<<32 | uint64(uint32(j))
	if _, dup := f.seenEval[k]; dup {
		return false
	}
	f.seenEval[k] = struct{}{}
	return true
}

// each streams every file, calling gen and eval with each record kept (in
// file order, generations first); it may be called again and reads the
// files again.
func (f *fileStream) each(gen func(*Generation) error, eval func(*Eval) error) error {
	f.droppedGens, f.droppedEvals = 0, 0
	f.seenGen, f.genIDs, f.judges = map[string]int32{}, nil, map[string]int32{}
	f.seenEval, f.orphanEval = map[uint64]struct{}{}, map[[2]string]struct{}{}
	g := generationLine
	if f.scoresOnly {
		g = leanGenerationLine
	}
	for _, p := range f.gens {
		if err := streamFile(p, g, func(gs []Generation) error {
			for i := range gs {
				if _, dup := f.seenGen[gs[i].GenID]; dup {
					f.droppedGens++
					continue
				}
				f.seenGen[gs[i].GenID] = int32(len(f.genIDs))
				f.genIDs = append(f.genIDs, gs[i].GenID)
				if err := gen(&gs[i]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	d := evalDecoder
	if f.scoresOnly {
		d = evalScoresDecoder
	}
	for _, p := range f.evals {
		if err := streamFile(p, d, func(es []Eval) error {
			for i := range es {
				if !f.firstEval(&es[i]) {
					f.droppedEvals++
					continue
				}
				if err := eval(&es[i]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if len(f.seenEval) == 0 && len(f.orphanEval) > 0 {
		ids := map[string]bool{}
		for k := range f.orphanEval {
			ids[k[0]] = true
		}
		return inputError{errNoneJudged(len(ids), len(f.genIDs))}
	}
	f.seenGen, f.genIDs, f.judges, f.seenEval, f.orphanEval = nil, nil, nil, nil, nil // read: only the counts are kept
	return nil
}

// errNoneJudged is the error of judgements none of which is of the
// generations beside them (files of two runs): a report of them would be
// of no judged generation.
func errNoneJudged(judgedIDs, gens int) error {
	return fmt.Errorf("no judgement is of these generations: the judgements name %d gen_ids, none of the %d generations' — are the generations and the judgements of one run?", judgedIDs, gens)
}

// streamFile streams one file's lines with d; its read and decode errors
// are inputErrors, emit's own are passed on.
func streamFile[T any](path string, d lineDecoder[T], emit func([]T) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return inputError{err}
	}
	defer fh.Close()
	var emitErr error
	err = streamLines(io.Reader(fh), path, d, func(vs []T) error {
		if emitErr = emit(vs); emitErr != nil {
			return emitErr
		}
		return nil
	})
	if err != nil && err == emitErr {
		return err
	}
	if err != nil {
		return inputError{err}
	}
	return nil
}

// say says what reading the files dropped, and how many generations the
// files held.
func (f *fileStream) say(w io.Writer, gens int) {
	sayRead(w, f.droppedGens, f.droppedEvals, len(f.gens), gens)
}

// readLean reads the files as the analysis reads them (lean records): a
// report from JSONL holds what it reads, not the files.
func readLean(stderr io.Writer, gensPaths, evalsPaths string) (Dataset, error) {
	f, err := newFileStream(gensPaths, evalsPaths)
	if err != nil {
		return Dataset{}, err
	}
	f.scoresOnly = true
	d := Dataset{Gens: make([]Generation, 0, estimateLines(f.gens))}
	// The lean decoders keep only what the analysis reads, and the
	// judgements go straight into its rows (never held as Evals too).
	var j judgedBuilder
	j.rows = make([]judgeRow, 0, estimateLines(f.evals))
	var odd rubricOdd
	err = f.each(func(g *Generation) error { d.Gens = append(d.Gens, *g); return nil },
		func(e *Eval) error { j.add(e); odd.add(e.outOfRange); return nil })
	if err != nil {
		return Dataset{}, err
	}
	d.judged = j.done()
	f.say(stderr, len(d.Gens))
	odd.say(stderr)
	return d, nil
}

// judgedBuilder collects judgements as they are read, in the analysis's
// form: their rows in one slice in the order read, with their judges'
// codes, sorted into each judge's run at the end (done).
type judgedBuilder struct {
	rows   []judgeRow
	codes  []uint32
	judges []string
	code   map[string]uint32
}

// add collects one judgement.
func (b *judgedBuilder) add(e *Eval) {
	c, ok := b.code[e.JudgeModel]
	if !ok {
		if b.code == nil {
			b.code = map[string]uint32{}
		}
		c = uint32(len(b.judges))
		b.code[e.JudgeModel] = c
		b.judges = append(b.judges, e.JudgeModel)
	}
	b.rows = append(b.rows, rowOf(e))
	b.codes = append(b.codes, c)
}

// done is the judgements collected: each judge's rows in the order read,
// moved in place into one run per judge (a stable counting sort whose
// permutation is applied cycle by cycle: no second copy of the rows).
func (b *judgedBuilder) done() *judgedRows {
	at := make([]int, len(b.judges)+1)
	for _, c := range b.codes {
		at[c+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	// to[i] is where row i goes; it becomes −1 once the row is there.
	to := make([]int32, len(b.codes))
	next := slices.Clone(at[:len(b.judges)])
	for i, c := range b.codes {
		to[i] = int32(next[c])
		next[c]++
	}
	for i := range b.rows {
		for to[i] >= 0 && int(to[i]) != i {
			d := to[i]
			b.rows[i], b.rows[d] = b.rows[d], b.rows[i]
			to[i], to[d] = to[d], -1
		}
		to[i] = -1
	}
	j := &judgedRows{judges: b.judges, rows: make(map[string][]judgeRow, len(b.judges))}
	for c, name := range b.judges {
		j.rows[name] = b.rows[at[c]:at[c+1]:at[c+1]]
	}
	b.rows, b.codes = nil, nil
	return j
}

// newFileStream is the stream of the comma-separated files and globs.
func newFileStream(gensPaths, evalsPaths string) (*fileStream, error) {
	g, err := expandPaths("generations", gensPaths)
	if err != nil {
		return nil, err
	}
	e, err := expandPaths("evals", evalsPaths)
	if err != nil {
		return nil, err
	}
	if len(g) == 0 {
		return nil, fmt.Errorf("--generations names no file")
	}
	return &fileStream{gens: g, evals: e}, nil
}

// estimateLines is about how many lines the files hold (their size over
// the mean length of their first lines), so that what is read of them is
// allocated once rather than grown: a tenth more, for the estimate's error.
func estimateLines(paths []string) int {
	total := 0
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			continue // the read names the error
		}
		st, err := fh.Stat()
		head := make([]byte, 64<<10)
		n, _ := io.ReadFull(fh, head)
		fh.Close()
		lines := bytes.Count(head[:n], []byte("\n"))
		if err != nil || lines == 0 {
			continue
		}
		total += int(st.Size() / int64(n) * int64(lines) * 11 / 10)
	}
	return total
}
