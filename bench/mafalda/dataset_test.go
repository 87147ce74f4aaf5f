package mafalda

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A gold file with a bad line is refused naming the file, the line and
// what is wrong; a label MAFALDA does not have names the span.
func TestLoadRefusesBadInput(t *testing.T) {
	good := `{"text": "Some text. More.", "labels": [[0, 10, "ad hominem"]]}`
	for _, c := range []struct{ line, want string }{
		{`{"text": 3, "labels": []}`, `line 2: field text: want a string`},
		{`{"text": "x", "labels": [[0, 1]]}`, `line 2: a span label is [start, end, label]`},
		{`{"text": "x", "labels": [[0, 1, "red herring"]]}`, `line 2: span [0, 1]: label "red herring" is none of MAFALDA's`},
		{`{"text": "x"`, `line 2: not valid JSON`},
	} {
		fs := fstest.MapFS{GoldFile: {Data: []byte("\xEF\xBB\xBF" + good + "\n" + c.line + "\n")}}
		_, err := Load(fs)
		if err == nil || !strings.Contains(err.Error(), GoldFile) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.line, err, c.want)
		}
	}
	if _, err := Load(nil); err == nil || !strings.Contains(err.Error(), "--data-dir") {
		t.Fatalf("no data folder: %v", err)
	}
}
