package deflect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// viaEncodingJSON is the reading the fast reader replaced: encoding/json,
// one line at a time (Eval.UnmarshalJSON for the eight fields).
func viaEncodingJSON[T any](t *testing.T, data []byte) []T {
	t.Helper()
	var out []T
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func jsonLines[T any](t *testing.T, items []T) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, it := range items {
		line, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestFastReaderMatchesEncodingJSON: on a synthetic run written by
// encoding/json, and on hand-written lines with every value shape upstream
// files hold (booleans, 0.0, strings and null in rubric fields, escapes,
// missing and unknown fields, blank lines, a BOM), the fast reader returns
// exactly what encoding/json does.
func TestFastReaderMatchesEncodingJSON(t *testing.T) {
	d, _, err := Synthesize(SynthOptions{Models: []string{"m-a", "m/b"}, Samples: 1, Seed: 3, ErrorRate: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	gens := jsonLines(t, d.Gens)
	evals := jsonLines(t, d.Evals)
	evals = append(evals, []byte(`
{"eval_id":"x","gen_id":"g\u00e9\n\"q\"","judge_model":"j","refusal":true,"soft_refusal":false,"WA_present":0.0,"AH_present":"1","RH_present":null,"any_fallacy_present":2,"compliance_clean":1,"extra":{"a":[1,2]},"detected_fallacies":null,"parse_error":0}
{"gen_id":"g2","judge_model":"j","detected_fallacies":[],"reasoning":"tab\there \ud83d\ude00"}
`)...)
	gotG, err := ReadGenerations(append([]byte("\ufeff"), gens...), "g.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if want := viaEncodingJSON[Generation](t, gens); !reflect.DeepEqual(gotG, want) {
		t.Fatalf("generations differ (%d vs %d)", len(gotG), len(want))
	}
	gotE, err := ReadEvals(evals, "e.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := viaEncodingJSON[Eval](t, evals)
	if len(gotE) != len(want) {
		t.Fatalf("%d evals, want %d", len(gotE), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(gotE[i], want[i]) {
			t.Fatalf("eval %d:\n got %+v\nwant %+v", i, gotE[i], want[i])
		}
	}
	if len(evals) < 2*blockSize {
		t.Fatalf("only %d bytes: the test must span several blocks", len(evals))
	}
}

// TestFastReaderErrors: each error names the file, the line and the field.
func TestFastReaderErrors(t *testing.T) {
	ok := `{"gen_id":"a","claim_id":"c","prompt_id":"p","model":"m"}`
	for _, c := range []struct{ body, want string }{
		{ok + "\n" + `{"gen_id":"b","claim_id":"c","prompt_id":"p","model":"m","prompt_num":"3"}`, "g.jsonl line 2: field prompt_num: want a number, got a string"},
		{ok + "\n\n" + `{"gen_id":"b","claim_id":"c","prompt_id":"p","model":"m","run":1.5}`, "g.jsonl line 3: field run: want a whole number, got 1.5"},
		{`{"gen_id":"b","claim_id":"c","prompt_id":"p","model":7}`, "line 1: field model: want a string, got a number"},
		{`[1,2]`, "line 1: want a JSON object with fields claim_id, claim_text,"},
		{`{"gen_id":"b",`, "line 1: not valid JSON"},
		{`{"claim_id":"c","prompt_id":"p","model":"m"}`, "line 1: field gen_id: required"},
	} {
		_, err := ReadGenerations([]byte(c.body), "g.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.body, err, c.want)
		}
	}
	// Both the full and the analysis's (scores only) decoders check the
	// fallacies detected, though the analysis keeps none of them.
	for _, lean := range []bool{false, true} {
		for _, c := range []struct{ body, want string }{
			{`{"gen_id":"g","judge_model":"j","detected_fallacies":"WA"}`, "e.jsonl line 1: field detected_fallacies: want a list, got a string"},
			{`{"gen_id":"g","judge_model":"j","detected_fallacies":["WA",3]}`, "e.jsonl line 1: field detected_fallacies: want a string, got a number"},
		} {
			_, err := ReadEvalsFrom(strings.NewReader(c.body), "e.jsonl", lean)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("scores only %v: %s: got %v, want %q", lean, c.body, err, c.want)
			}
		}
	}
	// The first bad line of the file is the one reported, whichever worker
	// reached it first.
	// Lines of 1,000 bytes: blocks hold about a thousand each.
	long := `{"gen_id":"a","claim_id":"c","prompt_id":"p","model":"m","response":"` + strings.Repeat("x", 1000-len(ok)-14) + `"}`
	var b strings.Builder
	lines := 3 * blockSize / len(long)
	for i := range lines {
		if i == lines/2 || i == lines-3 {
			b.WriteString("{bad\n")
			continue
		}
		b.WriteString(long + "\n")
	}
	want := fmt.Sprintf("g.jsonl line %d:", lines/2+1)
	if _, err := ReadGenerations([]byte(b.String()), "g.jsonl"); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%v, want %q", err, want)
	}
	got, err := ReadGenerations([]byte(strings.ReplaceAll(b.String(), "{bad\n", "\n")), "g.jsonl")
	if err != nil || len(got) != lines-2 {
		t.Fatalf("%d generations, %v; want %d", len(got), err, lines-2)
	}
	// A line longer than several blocks (a 3 MB answer) is one line.
	huge := `{"gen_id":"h","claim_id":"c","prompt_id":"p","model":"m","response":"` + strings.Repeat("y", 3*blockSize) + `"}`
	got, err = ReadGenerations([]byte(ok+"\n"+huge+"\n"+ok+"\n"), "g.jsonl")
	if err != nil || len(got) != 3 || len(got[1].Response) != 3*blockSize {
		t.Fatalf("a 3 MB line: %d generations, %v", len(got), err)
	}
}

// TestResponseStartIsEnough: the start of a response analyses as the whole
// one — the report's quote and the API-error test agree — on responses of
// every length, with runs of whitespace of every kind, multi-byte runes and
// leading whitespace; and it is short.
func TestResponseStartIsEnough(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "word", "é", "日本", " ", "  ", "\n", "\t \n", "\u00a0", "\u2003", "ERROR:", "x"}
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(400) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if rng.IntN(4) == 0 {
			s = "ERROR:" + s
		}
		start := ResponseStart(s)
		if !strings.HasPrefix(s, start) {
			t.Fatalf("%q is not a start of %q", start, s)
		}
		if got, want := trunc(start, exampleRunes), trunc(s, exampleRunes); got != want {
			t.Fatalf("quote %q, want %q (of %q)", got, want, s)
		}
		g, h := Generation{Response: s}, Generation{Response: start}
		if g.Valid() != h.Valid() {
			t.Fatalf("valid %v, want %v (%q)", h.Valid(), g.Valid(), s)
		}
		// At most the quote, a space and the rune after it.
		if utf8.RuneCountInString(strings.Join(strings.Fields(start), " ")) > exampleRunes+2 {
			t.Fatalf("%q is longer than needed", start)
		}
	}
}

// TestLeanResponseStartUnescapesOnlyTheStart: the analysis's reading of a
// response, which unescapes only as much of the line's string as its start
// needs, keeps the start the whole string's unescaping has — with escapes,
// surrogate pairs, lone and invalid escapes at and around every place a
// prefix may be cut (1 KB, 4 KB, 16 KB), and with kilobytes of escaped
// whitespace before the first word.
func TestLeanResponseStartUnescapesOnlyTheStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"a", "word ", `\n`, `\t`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\uzzzz`, `\q`, "é", " ", `\u0020`, `\u2003`}
	in := &interner{m: map[string]string{}, raw: map[string]string{}}
	// A surrogate pair whose first half ends the first 1 KB, where the
	// start reaches its 240th rune: cut between its halves, the start
	// would end in the first half's escape, as text.
	pair := strings.Repeat(`\n`, 391) + strings.Repeat("a", 236) + `\ud83d\ude00 and more words`
	var p fastjson.Parser
	if v, err := p.Parse(`"` + pair + `"`); err != nil || responseStart([]byte(pair), in) != ResponseStart(string(v.GetStringBytes())) {
		t.Fatalf("a surrogate pair at the first cut: %q, want %q (%v)", responseStart([]byte(pair), in), ResponseStart(string(v.GetStringBytes())), err)
	}
	for i := range 4000 {
		var b strings.Builder
		if i%5 == 0 { // escaped whitespace past the first cut, and the second
			for range 300 + rng.IntN(3000) {
				b.WriteString([]string{`\n`, " ", `\t`, `\u2003`}[rng.IntN(4)])
			}
		}
		for b.Len() < 900+rng.IntN(300) || (i%3 == 0 && b.Len() < 4200) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		raw := b.String()
		v, err := p.Parse(`"` + raw + `"`)
		if err != nil {
			t.Fatal(err)
		}
		want := ResponseStart(string(v.GetStringBytes()))
		if got := responseStart([]byte(raw), in); got != want {
			t.Fatalf("start %q, want %q (of %q)", got, want, raw)
		}
	}
}
