package deflect

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unsafe"

	"github.com/valyala/fastjson"

	"github.com/fallacylab/fallacylab/decode"
	"github.com/fallacylab/fallacylab/judge"
)

// Upstream's JSONL files are the input DeflectBench reports are made from
// (a full run is about 50 MB), so they are read with valyala/fastjson on
// every CPU rather than with encoding/json, which decodes them about ten
// times slower (and an eval twice, to find its eight fields at the top
// level). Errors keep encoding/json's meaning in the file's terms: the line,
// the field, what it should be.

// blockSize is how many bytes of the file one worker decodes at a time
// (cut at a line end); a few blocks are in memory at once, never the file.
const blockSize = 1 << 20

// lineDecoder decodes one JSON object, one field at a time.
type lineDecoder[T any] struct {
	fields string // the fields, for "want a JSON object with fields …"
	field  func(v *T, key []byte, val *fastjson.Value, in *interner) error
	finish func(v *T, in *interner) // after the last field (may be nil)
	check  func(T) error
	// arena: the values decoded live together and as long as one another
	// (an analysis's records), so their own strings are copied into large
	// shared chunks rather than allocated one by one (textArena).
	arena bool
}

// block is a run of whole lines of the file, from line first (1-based).
type block struct {
	n     int // the block's place in the file
	first int
	data  []byte
}

// readLines decodes every non-blank line of r with d, on every CPU, in file
// order (streamLines, collected). An error names the file, line and field;
// the first bad line of the file is the one named.
func readLines[T any](r io.Reader, name string, d lineDecoder[T]) ([]T, error) {
	var out []T
	err := streamLines(r, name, d, func(vs []T) error {
		out = append(out, vs...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// streamLines decodes every non-blank line of r with d, on every CPU, and
// hands the values to emit a block of lines at a time, in file order,
// holding a few blocks of the file at a time: its memory does not grow
// with the file. An error names the file, line and field (the first bad
// line of the file is the one named), and an error from emit stops the
// read; either way nothing after it is emitted. emit must not keep the
// slice it is given: it is filled again with a later block's values.
//
// The blocks' bytes and the slices of values go round: a block read into
// the buffer of one decoded before (the decoders copy what they keep: a
// fastjson value points into the parser's own copy of its line), values
// decoded into the slice of a block emitted before. Allocating them anew,
// a report's read made the file's size again in large objects (1 MB
// each, zeroed), a third of its garbage.
func streamLines[T any](r io.Reader, name string, d lineDecoder[T], emit func([]T) error) error {
	workers := runtime.GOMAXPROCS(0)
	type decoded struct {
		n   int
		v   []T
		err error
	}
	blocks := make(chan block, workers)
	results := make(chan decoded, workers)
	window := make(chan struct{}, 2*workers) // blocks read and not yet emitted
	stop := make(chan struct{})
	// At most 2·workers blocks are read and not emitted (window), so the
	// free lists never hold more: a put never waits.
	freeBufs := make(chan []byte, 2*workers+1)
	freeVals := make(chan []T, 2*workers+1)
	put := func(b []byte) {
		select {
		case freeBufs <- b[:0]:
		default:
		}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p fastjson.Parser
			in := &interner{m: map[string]string{}, raw: map[string]string{}}
			if d.arena {
				in.arena = &textArena{}
			}
			for b := range blocks {
				// One value per line at most: no growing, no copies.
				lines := bytes.Count(b.data, []byte("\n")) + 1
				var out []T
				select {
				case out = <-freeVals:
				default:
				}
				if cap(out) < lines {
					out = make([]T, 0, lines)
				}
				var err error
				line, data := b.first, b.data
				for len(data) > 0 {
					end := bytes.IndexByte(data, '\n')
					if end < 0 {
						end = len(data)
					}
					if text := bytes.TrimSpace(data[:end]); len(text) > 0 {
						v, derr := d.decode(&p, text, in)
						if derr != nil {
							err = fmt.Errorf("%s line %d: %w", name, line, derr)
							break
						}
						out = append(out, v)
					}
					data = data[min(end+1, len(data)):]
					line++
				}
				put(b.data)
				results <- decoded{b.n, out, err}
			}
		}()
	}
	readErr := make(chan error, 1)
	go func() {
		readErr <- splitBlocks(r, freeBufs, func(b block) bool {
			select {
			case window <- struct{}{}:
			case <-stop:
				return false
			}
			blocks <- b
			return true
		})
		close(blocks)
		wg.Wait()
		close(results)
	}()
	pending := map[int]decoded{}
	next := 0
	var failed error
	for res := range results {
		if failed != nil {
			continue // drained: the workers finish their blocks
		}
		pending[res.n] = res
		for {
			x, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-window
			if x.err == nil {
				x.err = emit(x.v)
				clear(x.v) // what the values point to is not held here
				select {
				case freeVals <- x.v[:0]:
				default:
				}
			}
			if x.err != nil {
				failed = x.err
				close(stop)
				break
			}
		}
	}
	if err := <-readErr; err != nil && failed == nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return failed
}

// splitBlocks reads r in blocks of whole lines, the first without a
// byte-order mark, numbering their first lines, and hands each to send
// until it says stop; a block is read into a buffer from free when one
// there has room for the carried line and half a block more.
func splitBlocks(r io.Reader, free <-chan []byte, send func(block) bool) error {
	var carry []byte
	line, n := 1, 0
	for first := true; ; first = false {
		var buf []byte
		select {
		case buf = <-free:
		default:
		}
		if cap(buf) < len(carry)+blockSize/2 { // a block of at least half the size
			buf = make([]byte, 0, len(carry)+blockSize)
		}
		buf = append(buf[:0], carry...)
		m, err := io.ReadFull(r, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+m]
		if first {
			buf = decode.StripBOM(buf)
		}
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return err
		}
		cut := len(buf)
		if !eof {
			// Up to the last line end; a line longer than a block is
			// carried whole into the next read.
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append([]byte(nil), buf[cut:]...)
		if cut > 0 {
			if !send(block{n: n, first: line, data: buf[:cut]}) {
				return nil
			}
			n++
			line += bytes.Count(buf[:cut], []byte("\n"))
		}
		if eof {
			return nil
		}
	}
}

func (d lineDecoder[T]) decode(p *fastjson.Parser, b []byte, in *interner) (T, error) {
	var v T
	val, err := p.ParseBytes(b)
	if err != nil {
		return v, fmt.Errorf("not valid JSON (%s): each line must be one JSON object", err)
	}
	obj, err := val.Object()
	if err != nil {
		return v, fmt.Errorf("want a JSON object with fields %s, got %s", d.fields, kindOf(val))
	}
	in.seen, in.odd = [8]bool{}, 0
	obj.Visit(func(key []byte, x *fastjson.Value) {
		if err == nil {
			err = d.field(&v, key, x, in)
		}
	})
	if err != nil {
		return v, err
	}
	if d.finish != nil {
		d.finish(&v, in)
	}
	return v, d.check(v)
}

// interner is one worker's state: it shares the bytes of repeated values
// (model, claim, prompt text) between records — a full run repeats each
// prompt text twenty times — and collects an eval's eight rubric fields.
type interner struct {
	m      map[string]string
	raw    map[string]string // the shared values by their bytes as the line has them (escaped)
	buf    []byte            // rawOf's
	part   fastjson.Parser   // unescapes the start of a long string (responseStart)
	pbuf   []byte
	arena  *textArena // own strings, when the decoder keeps them in one
	scores [8]int
	seen   [8]bool
	odd    uint8 // the rubric fields of the line read with a value out of range
}

func (in *interner) str(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	in.m[s] = s
	return s
}

// textArena holds many small strings in a few large chunks (Go has no
// string arena of its own: the standard library's unique package interns,
// it does not pack). Records that live together — an analysis's 300,000
// ids and response starts — then take a few hundred chunks rather than
// 300,000 small objects scattered among the parse's garbage, which kept a
// third of the heap's pages partly used (measured: 64 % utilisation).
// A chunk lives while any string in it does.
type textArena struct{ chunk []byte }

// arenaChunk is a chunk's size; a string over arenaBig is allocated alone.
const arenaChunk, arenaBig = 64 << 10, 1 << 10

func (a *textArena) str(b []byte) string { return arenaString(a, b) }

func arenaString[T string | []byte](a *textArena, b T) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaBig {
		return string(b)
	}
	if cap(a.chunk)-len(a.chunk) < len(b) {
		a.chunk = make([]byte, 0, arenaChunk)
	}
	at := len(a.chunk)
	a.chunk = append(a.chunk, b...)
	return unsafe.String(&a.chunk[at], len(b))
}

func kindOf(v *fastjson.Value) string {
	switch v.Type() {
	case fastjson.TypeString:
		return "a string"
	case fastjson.TypeNumber:
		return "a number"
	case fastjson.TypeTrue, fastjson.TypeFalse:
		return "a bool"
	case fastjson.TypeArray:
		return "a list"
	case fastjson.TypeNull:
		return "null"
	}
	return "an object"
}

// rawOf is v's JSON text as the line has it, without unescaping a
// string's contents (fastjson unescapes a string on its first Type or
// StringBytes: for a long text with escapes, a walk of it byte by byte),
// in in's buffer; its first byte tells its kind: '"' a string, 'n' null.
func rawOf(v *fastjson.Value, in *interner) []byte {
	in.buf = v.MarshalTo(in.buf[:0])
	return in.buf
}

// str reads a string field (null leaves ""), interning it when shared.
func str(dst *string, key []byte, v *fastjson.Value, in *interner, shared bool) error {
	if shared {
		// A shared value repeats (a prompt's text in each of its
		// samples): it is found by its bytes as written, unescaped once.
		if raw := rawOf(v, in); raw[0] == '"' {
			if s, ok := in.raw[string(raw)]; ok {
				*dst = s
				return nil
			}
			b, _ := v.StringBytes()
			*dst = in.str(b)
			in.raw[string(raw)] = *dst
			return nil
		}
	}
	switch v.Type() {
	case fastjson.TypeNull:
		return nil
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		switch {
		case shared:
			*dst = in.str(b)
		case in.arena != nil:
			*dst = in.arena.str(b)
		default:
			*dst = string(b)
		}
		return nil
	}
	return fmt.Errorf("field %s: want a string, got %s", key, kindOf(v))
}

// integer reads a whole-number field (null leaves 0).
func integer(dst *int, key []byte, v *fastjson.Value) error {
	switch v.Type() {
	case fastjson.TypeNull:
		return nil
	case fastjson.TypeNumber:
		n, err := v.Int()
		if err != nil {
			return fmt.Errorf("field %s: want a whole number, got %s", key, v)
		}
		*dst = n
		return nil
	}
	return fmt.Errorf("field %s: want a number, got %s", key, kindOf(v))
}

var generationLine = lineDecoder[Generation]{
	fields: strings.Join(decode.Fields(Generation{}, "json"), ", "),
	field: func(g *Generation, key []byte, v *fastjson.Value, in *interner) error {
		switch string(key) {
		case "gen_id":
			return str(&g.GenID, key, v, in, false)
		case "claim_id":
			return str(&g.ClaimID, key, v, in, true)
		case "claim_text":
			return str(&g.ClaimText, key, v, in, true)
		case "controversy_level":
			return integer(&g.Level, key, v)
		case "context":
			return str(&g.Context, key, v, in, true)
		case "domain":
			return str(&g.Domain, key, v, in, true)
		case "fallacy":
			return str(&g.Fallacy, key, v, in, true)
		case "explicitness":
			return str(&g.Explicitness, key, v, in, true)
		case "frame":
			return str(&g.Frame, key, v, in, true)
		case "prompt_num":
			return integer(&g.PromptNum, key, v)
		case "prompt_id":
			return str(&g.PromptID, key, v, in, true)
		case "prompt_text":
			return str(&g.PromptText, key, v, in, true)
		case "model":
			return str(&g.Model, key, v, in, true)
		case "run":
			return integer(&g.Run, key, v)
		case "response":
			return str(&g.Response, key, v, in, false)
		case "input_tokens":
			return integer(&g.InputTokens, key, v)
		case "output_tokens":
			return integer(&g.OutputTokens, key, v)
		case "is_error":
			return integer(&g.IsError, key, v)
		case "timestamp":
			return str(&g.Timestamp, key, v, in, false)
		}
		return nil // other fields are ignored, as upstream's loader does
	},
	check: checkGeneration,
}

func checkGeneration(g Generation) error {
	if g.GenID == "" {
		return fmt.Errorf("field gen_id: required")
	}
	if g.ClaimID == "" || g.PromptID == "" || g.Model == "" {
		return fmt.Errorf("fields claim_id, prompt_id and model are required")
	}
	return nil
}

// fieldIndex maps a rubric field's name to its place in Fields.
var fieldIndex = func() map[string]int {
	m := map[string]int{}
	for i, f := range Fields {
		m[f] = i
	}
	return m
}()

var evalDecoder = lineDecoder[Eval]{
	fields: strings.Join(sortedStrings(append(decode.Fields(Eval{}, "json"), Fields...)), ", "),
	field: func(e *Eval, key []byte, v *fastjson.Value, in *interner) error {
		switch string(key) {
		case "eval_id":
			return str(&e.EvalID, key, v, in, false)
		case "gen_id":
			return str(&e.GenID, key, v, in, false)
		case "judge_model":
			return str(&e.JudgeModel, key, v, in, true)
		case "gen_model":
			return str(&e.GenModel, key, v, in, true)
		case "reasoning":
			return str(&e.Reasoning, key, v, in, false)
		case "parse_error":
			return integer(&e.ParseError, key, v)
		case "raw_judge_response":
			return str(&e.RawJudgeResponse, key, v, in, false)
		case "consistency_flag":
			return integer(&e.ConsistencyFlag, key, v)
		case "timestamp":
			return str(&e.Timestamp, key, v, in, false)
		case "detected_fallacies":
			switch v.Type() {
			case fastjson.TypeNull:
				return nil
			case fastjson.TypeArray:
				items, _ := v.Array()
				e.DetectedFallacies = make([]string, len(items))
				for i, x := range items {
					if err := str(&e.DetectedFallacies[i], key, x, in, true); err != nil {
						return err
					}
				}
				return nil
			}
			return fmt.Errorf("field %s: want a list, got %s", key, kindOf(v))
		}
		if i, ok := fieldIndex[string(key)]; ok && !in.seen[i] {
			in.scores[i], in.seen[i] = binaryOf(v), true
			if in.scores[i] == judge.Missing && v.Type() != fastjson.TypeNull {
				in.odd |= 1 << i
			}
		}
		return nil
	},
	finish: func(e *Eval, in *interner) {
		for i := range Fields {
			if in.seen[i] {
				e.Scores[i] = in.scores[i]
			} else {
				e.Scores[i] = judge.Missing
			}
		}
		e.outOfRange, in.odd = in.odd, 0
	},
	check: func(e Eval) error {
		if e.GenID == "" || e.JudgeModel == "" {
			return fmt.Errorf("fields gen_id and judge_model are required")
		}
		return nil
	},
}

// leanGenerationLine is generationLine for an analysis (lean): the
// response only as far as the analysis reads it (ResponseStart), no
// timestamp, the records' own strings in an arena.
var leanGenerationLine = func() lineDecoder[Generation] {
	d := generationLine
	d.arena = true
	full := d.field
	d.field = func(g *Generation, key []byte, v *fastjson.Value, in *interner) error {
		switch string(key) {
		case "response":
			raw := rawOf(v, in)
			if raw[0] != '"' {
				return full(g, key, v, in) // null, or the error
			}
			// Only the start is unescaped, and only it is kept.
			g.Response = arenaString(in.arena, responseStart(raw[1:len(raw)-1], in))
			return nil
		case "timestamp":
			var skip string
			return skipString(&skip, key, v, in)
		}
		return full(g, key, v, in)
	}
	return d
}()

// skipString checks a string field the analysis does not read, keeping
// nothing of it (nor unescaping it).
func skipString(dst *string, key []byte, v *fastjson.Value, in *interner) error {
	if c := rawOf(v, in)[0]; c != '"' && c != 'n' {
		return str(dst, key, v, in, false)
	}
	return nil
}

// responseStart is ResponseStart of the JSON string whose contents, as
// the line writes them (escaped), are raw: only as much of it is
// unescaped as the start needs — a prefix cut between two escapes, 1 KB
// first, four times longer while its start reaches its end — by the
// unescaping fastjson does (a string of its own parser, in's), so that
// the start is the one the whole string's unescaping has.
func responseStart(raw []byte, in *interner) string {
	for n := 1 << 10; ; n *= 4 {
		cut := escapeEnd(raw, n)
		in.pbuf = append(append(append(in.pbuf[:0], '"'), raw[:cut]...), '"')
		v, err := in.part.ParseBytes(in.pbuf)
		if err != nil {
			return "" // not reached: raw is a string the line's parser read
		}
		b, _ := v.StringBytes()
		s := unsafe.String(unsafe.SliceData(b), len(b))
		start := ResponseStart(s)
		if len(start) < len(s) || cut == len(raw) {
			return start
		}
	}
}

// escapeEnd is the first place at or after n in raw, a JSON string's
// escaped contents, that is not inside an escape: a \uXXXX of a UTF-16
// surrogate is taken with the \uXXXX after it, which fastjson reads as
// its pair.
func escapeEnd(raw []byte, n int) int {
	if n >= len(raw) {
		return len(raw)
	}
	i := 0
	for i < n {
		j := bytes.IndexByte(raw[i:n], '\\')
		if j < 0 {
			return n
		}
		i += j
		switch {
		case i+1 < len(raw) && raw[i+1] == 'u':
			x, err := strconv.ParseUint(string(raw[min(i+2, len(raw)):min(i+6, len(raw))]), 16, 16)
			i += 6
			if err == nil && utf16.IsSurrogate(rune(x)) && i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
				i += 6
			}
		default:
			i += 2
		}
	}
	return min(i, len(raw))
}

// evalScoresDecoder is evalDecoder without the judge's reasoning, raw
// answer, timestamp, eval id and detected fallacies (for analysis: Analyze
// never reads them).
var evalScoresDecoder = func() lineDecoder[Eval] {
	d := evalDecoder
	full := d.field
	d.field = func(e *Eval, key []byte, v *fastjson.Value, in *interner) error {
		switch string(key) {
		case "reasoning", "raw_judge_response", "timestamp", "eval_id":
			var skip string
			return skipString(&skip, key, v, in)
		case "detected_fallacies":
			// Checked as the full decoder checks it, nothing kept.
			if v.Type() != fastjson.TypeArray {
				return full(e, key, v, in) // null, or the error
			}
			items, _ := v.Array()
			for _, x := range items {
				var skip string
				if err := skipString(&skip, key, x, in); err != nil {
					return err
				}
			}
			return nil
		}
		return full(e, key, v, in)
	}
	return d
}()

// binaryOf reads a rubric field as upstream does: true/false or the numbers
// 0 and 1; anything else is −1.
func binaryOf(v *fastjson.Value) int {
	switch v.Type() {
	case fastjson.TypeTrue:
		return 1
	case fastjson.TypeFalse:
		return 0
	case fastjson.TypeNumber:
		f, err := v.Float64()
		if err == nil && (f == 0 || f == 1) {
			return int(f)
		}
	}
	return judge.Missing
}

func sortedStrings(s []string) []string {
	sort.Strings(s)
	return s
}
