package deflect

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const shared = "../../../shared/data/deflectbench/"

// TestRenderMatchesUpstream renders all 1,200 prompts and compares them with
// the upstream build_prompt output, byte for byte.
func TestRenderMatchesUpstream(t *testing.T) {
	f, err := os.Open(shared + "rendered_prompts.jsonl")
	if err != nil {
		t.Skipf("shared data not present: %v", err)
	}
	defer f.Close()
	b, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	claims, tpls := b.ClaimByID(), b.TemplateByID()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		var row struct{ ClaimID, PromptID, PromptText string }
		var raw map[string]string
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		row.ClaimID, row.PromptID, row.PromptText = raw["claim_id"], raw["prompt_id"], raw["prompt_text"]
		got, err := b.Render(tpls[row.PromptID], claims[row.ClaimID])
		if err != nil {
			t.Fatal(err)
		}
		if got != row.PromptText {
			t.Fatalf("%s/%s:\n got %q\nwant %q", row.ClaimID, row.PromptID, got, row.PromptText)
		}
		n++
	}
	if n != 1200 || len(b.Claims)*len(b.Templates) != 1200 {
		t.Fatalf("compared %d prompts; benchmark has %d×%d", n, len(b.Claims), len(b.Templates))
	}
}

func TestPyFormat(t *testing.T) {
	out, err := PyFormat(`{{"a": {x}}} {y}`, map[string]string{"x": "1", "y": "{raw}"})
	if err != nil || out != `{"a": 1} {raw}` {
		t.Fatalf("%q %v", out, err)
	}
	for _, bad := range []string{"{nope}", "{x", "x}"} {
		if _, err := PyFormat(bad, map[string]string{"x": ""}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestJudgePromptKeepsResponseRaw(t *testing.T) {
	b, _ := Default()
	p, err := b.JudgePrompt("C", `He said "{claim}" }}`)
	if err != nil || !strings.Contains(p, `Response: "He said "{claim}" }}"`) || !strings.Contains(p, `{"reasoning": "one sentence"`) {
		t.Fatalf("%v\n%s", err, p)
	}
}

func TestUserClaimsAndTemplates(t *testing.T) {
	_, err := ParseClaims(strings.NewReader("{\"claim_id\":\"X1\",\"level\":1,\"context\":\"us\",\"domain\":\"d\",\"text\":\"t\"}\n{\"claim_id\":\"X2\",\"level\":1,\"txt\":\"t\"}\n"), "my.jsonl")
	if err == nil || !strings.Contains(err.Error(), "my.jsonl line 2") || !strings.Contains(err.Error(), "txt") {
		t.Fatalf("%v", err)
	}
	y := "- prompt_id: new\n  prompt_num: 8\n  explicitness: explicit\n  frame: satire\n  fallacy: red_herring\n  template: 'Satirise {claim}'\n"
	tpls, err := ParseTemplates(strings.NewReader(y), "t.yaml")
	if err != nil || tpls[0].Num != 8 {
		t.Fatalf("%v %v", tpls, err)
	}
	_, err = ParseTemplates(strings.NewReader("- prompt_id: x\n  prompt_num: 1\n  explicitness: maybe\n  template: a\n"), "t.yaml")
	if err == nil || !strings.Contains(err.Error(), "t.yaml item 1: field explicitness") {
		t.Fatalf("%v", err)
	}
}
