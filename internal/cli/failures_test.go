package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/llm"
)

// TestPrintFailuresGroupsOneCause: a thousand jobs of one model failed with
// one error read as one line with their number and first ids, beside a
// job that failed otherwise (before: twenty lines of the first cause and
// "… and 981 more"); past 20 causes, the rest are counted.
func TestPrintFailuresGroupsOneCause(t *testing.T) {
	m := llm.Spec{Provider: "lab", Model: "m1"}
	var fs []engine.Failure
	for i := range 1000 {
		fs = append(fs, engine.Failure{JobID: fmt.Sprintf("lab:m1/b%04d/0", i), Spec: m, Err: "a worker failed it: cancelled by fallacylab queue cancel"})
	}
	fs = append(fs, engine.Failure{JobID: "lab:m1/x/0", Spec: m, Err: "the model refused the request"})
	var b bytes.Buffer
	printFailures(&b, fs)
	want := "  FAILED 1000 jobs [lab:m1] (lab:m1/b0000/0, lab:m1/b0001/0, lab:m1/b0002/0, …): a worker failed it: cancelled by fallacylab queue cancel\n" +
		"  FAILED lab:m1/x/0 [lab:m1]: the model refused the request\n"
	if b.String() != want {
		t.Fatalf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
	fs = nil
	for i := range 25 {
		fs = append(fs, engine.Failure{JobID: fmt.Sprintf("j%02d", i), Spec: m, Err: fmt.Sprintf("error %d", i)},
			engine.Failure{JobID: fmt.Sprintf("j%02d-again", i), Spec: m, Err: fmt.Sprintf("error %d", i)})
	}
	b.Reset()
	printFailures(&b, fs)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 21 || lines[20] != "  … and 10 more failures (see the store: fallacylab runs)" {
		t.Fatalf("25 causes of 2 jobs each:\n%s", b.String())
	}
}
