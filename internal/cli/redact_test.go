package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fallacylab/fallacylab/llm/llmtest"
)

// A base URL with credentials (user:password@, or a key in the query) is
// used for the calls, and its secrets never reach the store, the run's
// config, runs show, runs export or models endpoints.
func TestBaseURLCredentialsNeverStored(t *testing.T) {
	srv := llmtest.New(llmtest.Options{Respond: func(c llmtest.Call) llmtest.Reply { return llmtest.Reply{Text: "fine"} }})
	defer srv.Close()
	dir := t.TempDir()
	const pass, qkey = "Hunter2-p%23ss%2Fword", "qk-1234567890"
	host := strings.TrimPrefix(srv.URL, "http://")
	cfg := "endpoints:\n  lab:\n    type: openai\n    base_url: 'http://lab:" + pass + "@" + host + "/v1?api_key=" + qkey + "'\n    api_key_env: LAB_KEY\n    key_optional: true\n"
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte(cfg), 0o644)
	// A key as well would take the Authorization header the password needs.
	t.Setenv("LAB_KEY", "test-key")
	if _, _, err := runCLI(t, dir, "ask", "lab:m", "hello"); err == nil || !strings.Contains(err.Error(), "keep one") || strings.Contains(err.Error(), "Hunter2") {
		t.Fatalf("user:password and a key on one endpoint: %v", err)
	}
	t.Setenv("LAB_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "http://u:envpass-123456@"+host+"/v1")
	if _, stderr, err := runCLI(t, dir, "ask", "lab:m", "hello"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if len(srv.Ledger()) != 1 {
		t.Fatalf("%d calls", len(srv.Ledger()))
	}
	var seen strings.Builder
	for _, args := range [][]string{{"runs", "show", "1", "--json"}, {"runs", "show", "1"}, {"runs", "export", "1"}, {"models", "endpoints", "--json"}, {"models", "endpoints"}} {
		out, stderr, err := runCLI(t, dir, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		seen.WriteString(out + stderr)
	}
	for _, f := range []string{"f.db", "f.db-wal"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		seen.Write(b)
	}
	all := seen.String()
	for _, secret := range []string{"Hunter2", qkey, "envpass-123456"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q reached the store or the output", secret)
		}
	}
	if !strings.Contains(all, "http://lab:xxxxx@"+host+"/v1?api_key=xxxxx") {
		t.Errorf("the masked base URL is not shown:\n%s", all[:min(len(all), 3000)])
	}
	// A password that breaks the URL is refused when the config is read,
	// and the message does not print it in part.
	os.WriteFile(filepath.Join(dir, "fallacylab.yaml"), []byte("endpoints:\n  lab:\n    base_url: 'http://lab:Hunter2#x@"+host+"/v1'\n"), 0o644)
	_, _, err := runCLI(t, dir, "ask", "lab:m", "hello")
	if err == nil || !strings.Contains(err.Error(), "endpoints.lab.base_url") || strings.Contains(err.Error(), "Hunter2") {
		t.Fatalf("an unparsable base URL: %v", err)
	}
}
