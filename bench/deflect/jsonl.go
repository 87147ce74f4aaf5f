package deflect

import (
	"bytes"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/valyala/fastjson"

	"github.com/fallacylab/fallacylab/internal/decode"
	"github.com/fallacylab/fallacylab/judge"
)

// Upstream's JSONL files are the input DeflectBench reports are made from
// (a full run is about 50 MB), so they are read with valyala/fastjson on
// every CPU rather than with encoding/json, which decodes them about ten
// times slower (and an eval twice, to find its eight fields at the top
// level). Errors keep encoding/json's meaning in the file's terms: the line,
// the field, what it should be.

// chunkLines is how many lines one worker decodes at a time.
const chunkLines = 2048

// lineDecoder decodes one JSON object, one field at a time.
type lineDecoder[T any] struct {
	fields string // the fields, for "want a JSON object with fields …"
	field  func(v *T, key []byte, val *fastjson.Value, in *interner) error
	check  func(T) error
}

// readLines decodes every non-blank line of data with d, on every CPU, in
// file order. An error names the file, line and field.
func readLines[T any](data []byte, name string, d lineDecoder[T]) ([]T, error) {
	data = decode.StripBOM(data)
	var starts []int // byte offset of each line
	for off := 0; off < len(data); {
		starts = append(starts, off)
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	line := func(n int) []byte {
		end := len(data)
		if n+1 < len(starts) {
			end = starts[n+1]
		}
		return bytes.TrimSpace(data[starts[n]:end])
	}
	out := make([]T, len(starts))
	keep := make([]bool, len(starts))
	chunks := (len(starts) + chunkLines - 1) / chunkLines
	errs := make([]error, chunks)
	next := make(chan int, chunks)
	for c := range chunks {
		next <- c
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(chunks, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p fastjson.Parser
			in := &interner{m: map[string]string{}}
			for c := range next {
				for n := c * chunkLines; n < min(len(starts), (c+1)*chunkLines); n++ {
					b := line(n)
					if len(b) == 0 {
						continue
					}
					v, err := d.decode(&p, b, in)
					if err != nil {
						errs[c] = fmt.Errorf("%s line %d: %w", name, n+1, err)
						break
					}
					out[n], keep[n] = v, true
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs { // the first bad line in the file
		if err != nil {
			return nil, err
		}
	}
	kept := out[:0]
	for n := range out {
		if keep[n] {
			kept = append(kept, out[n])
		}
	}
	return kept[:len(kept):len(kept)], nil
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
	obj.Visit(func(key []byte, x *fastjson.Value) {
		if err == nil {
			err = d.field(&v, key, x, in)
		}
	})
	if err != nil {
		return v, err
	}
	return v, d.check(v)
}

// interner shares the bytes of repeated values (model, claim, prompt text)
// between records: a full run repeats each prompt text twenty times.
type interner struct{ m map[string]string }

func (in *interner) str(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	in.m[s] = s
	return s
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

// str reads a string field (null leaves ""), interning it when shared.
func str(dst *string, key []byte, v *fastjson.Value, in *interner, shared bool) error {
	switch v.Type() {
	case fastjson.TypeNull:
		return nil
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		if shared {
			*dst = in.str(b)
		} else {
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

// evalLine decodes an eval record; the eight rubric fields are collected
// in a fixed array while decoding and become Scores at the end.
type evalLine struct {
	Eval
	scores [8]int
	seen   [8]bool
}

var evalDecoder = lineDecoder[evalLine]{
	fields: strings.Join(sortedStrings(append(decode.Fields(Eval{}, "json"), Fields...)), ", "),
	field: func(e *evalLine, key []byte, v *fastjson.Value, in *interner) error {
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
		if i, ok := fieldIndex[string(key)]; ok && !e.seen[i] {
			e.scores[i], e.seen[i] = binaryOf(v), true
		}
		return nil
	},
	check: func(e evalLine) error {
		if e.GenID == "" || e.JudgeModel == "" {
			return fmt.Errorf("fields gen_id and judge_model are required")
		}
		return nil
	},
}

// evalScoresDecoder is evalDecoder without the judge's reasoning and raw
// answer (for analysis: Analyze never reads them).
var evalScoresDecoder = func() lineDecoder[evalLine] {
	d := evalDecoder
	full := d.field
	d.field = func(e *evalLine, key []byte, v *fastjson.Value, in *interner) error {
		switch string(key) {
		case "reasoning", "raw_judge_response":
			var skip string
			if v.Type() != fastjson.TypeString && v.Type() != fastjson.TypeNull {
				return str(&skip, key, v, in, false)
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

func (e evalLine) eval() Eval {
	out := e.Eval
	out.Scores = make(map[string]int, len(Fields))
	for i, f := range Fields {
		if e.seen[i] {
			out.Scores[f] = e.scores[i]
		} else {
			out.Scores[f] = judge.Missing
		}
	}
	return out
}

func sortedStrings(s []string) []string {
	sort.Strings(s)
	return s
}
