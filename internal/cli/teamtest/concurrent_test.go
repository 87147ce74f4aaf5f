package teamtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fallacylab/fallacylab/bench/deflect"

	"github.com/fallacylab/fallacylab/backend"
	"github.com/fallacylab/fallacylab/internal/cli/clitest"
	"github.com/fallacylab/fallacylab/llm/llmtest"
	"github.com/fallacylab/fallacylab/store/sqlite"
)

// Two users start the same `deflect run` on one store at the same moment
// (as two runs: the second names its own, so neither is refused as the
// other's command still running): every distinct request is paid for once
// (a call's key is claimed in the store before it is sent; the other
// process waits for the answer), and every stored judgement judged the
// very generation text its run stores.
func TestSameRunTwiceAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the CLI 40 times")
	}
	t.Run("sqlite", func(t *testing.T) {
		for range 20 {
			dir := t.TempDir()
			sameRunTwice(t, dir, filepath.Join(dir, "fallacylab.db"))
		}
	})
	t.Run("postgres", func(t *testing.T) {
		for i := range 20 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				db := pgStore(t)
				sameRunTwice(t, t.TempDir(), db)
			})
		}
	})
}

func sameRunTwice(t *testing.T, dir, db string) {
	t.Helper()
	var n atomic.Int64
	srv := llmtest.New(llmtest.Options{APIKey: "test-key",
		Latency: func(r *rand.Rand) time.Duration { return time.Duration(2+r.IntN(15)) * time.Millisecond },
		Respond: func(c llmtest.Call) llmtest.Reply {
			if strings.HasPrefix(c.System, clitest.JudgeSystemStart) {
				return clitest.Scripted(c)
			}
			// Every paid generation is a new text: an answer paid twice
			// would differ.
			return llmtest.Reply{Text: fmt.Sprintf("Deflection number %d.", n.Add(1))}
		}})
	defer srv.Close()
	if err := clitest.WriteConfig(dir, srv); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "claims.jsonl"), []byte(strings.SplitAfter(clitest.FourClaims, "\n")[0]), 0o644)
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "--db", db, "deflect", "run", "--models", "openai:gen-m", "--judges", "openai:judge-m",
				"--samples", "1", "--claims", "claims.jsonl", "--quiet", "--name", fmt.Sprint("user ", i))
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "FALLACYLAB_BE_CLI=1", "OPENAI_API_KEY=test-key")
			if out, err := cmd.CombinedOutput(); err != nil {
				outs[i] = fmt.Sprintf("%v\n%s", err, out)
			}
		}()
	}
	wg.Wait()
	for _, o := range outs {
		if o != "" {
			t.Fatalf("a run failed: %s", o)
		}
	}
	paid := map[string]int{}
	for _, e := range srv.Ledger() {
		paid[e.Call.Model+"\x00"+e.Call.System+"\x00"+e.Call.Prompt]++
	}
	for k, c := range paid {
		if c > 1 {
			t.Fatalf("paid %d times: %.120q", c, k)
		}
	}
	if len(paid) != 30 {
		t.Fatalf("%d distinct requests for 15 generations and 15 judgements", len(paid))
	}
	ctx := context.Background()
	st, err := backend.Open(ctx, db, backend.Options{Options: sqlite.Options{ReadOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(ctx)
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs (%v)", len(runs), err)
	}
	for _, r := range runs {
		d, err := deflect.LoadRecords(ctx, st, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		text := map[string]string{}
		for _, g := range d.Gens {
			text[g.GenID] = g.Response
		}
		if len(d.Gens) != 15 || len(d.Evals) != 15 {
			t.Fatalf("run %d: %d generations, %d judgements", r.ID, len(d.Gens), len(d.Evals))
		}
		for _, e := range d.Evals {
			c, ok, err := st.GetCall(ctx, e.CallKey)
			if err != nil || !ok {
				t.Fatalf("run %d: the judge call of %s: %v", r.ID, e.GenID, err)
			}
			want, _ := json.Marshal(text[e.GenID])
			if !strings.Contains(string(c.Request), strings.Trim(string(want), `"`)) {
				t.Fatalf("run %d: the judgement of %s judged another text than the stored %s", r.ID, e.GenID, want)
			}
		}
	}
}
