package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestInspectViewerOpensExports (#45 item 1): inspect_ai's own log viewer
// (the pinned npm package, bundled by .ci/run into
// $FALLACYLAB_INSPECT_VIEWER) opens the logs a classify, a DeflectBench
// and a MissciPlus run export (DeflectBench's in the .eval form, which the
// viewer reads by HTTP range requests): its sample list counts every sample, the
// scorers show, and a sample opened shows its messages. Screenshots land
// in $FALLACYLAB_ARTIFACTS.
func TestInspectViewerOpensExports(t *testing.T) {
	bundle := os.Getenv("FALLACYLAB_INSPECT_VIEWER")
	chromium, err := exec.LookPath("chromium")
	if bundle == "" || err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("the inspect viewer bundle or chromium is missing: .ci/run builds it (export/testdata/inspect/viewer/build.sh) and sets FALLACYLAB_INSPECT_VIEWER")
		}
		t.Skip("no inspect viewer bundle (export/testdata/inspect/viewer/build.sh DIR; FALLACYLAB_INSPECT_VIEWER=DIR)")
	}
	dir, _ := exportRuns(t)
	www := t.TempDir()
	for _, f := range []string{"index.html", "entry.js", "entry.css"} {
		b, err := os.ReadFile(filepath.Join(bundle, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(www, f), b, 0o644)
	}
	// DeflectBench's logs in the .eval form (read by range requests),
	// the others in the JSON form; every log's JSON form says what to see.
	logs, expect := filepath.Join(www, "logs"), t.TempDir()
	for _, id := range []string{"1", "2", "3"} {
		form := map[bool]string{true: "eval", false: "json"}[id == "2"]
		for _, x := range [][]string{{logs, form}, {expect, "json"}} {
			if _, stderr, err := runCLI(t, dir, "runs", "export", id, "--format", "inspect", "--log-format", x[1], "--out-dir", x[0], "--resamples", "50"); err != nil {
				t.Fatalf("export %s: %v\n%s", id, err, stderr)
			}
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(www))) // honours Range, as the viewer's .eval reader needs
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1300, 1000))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	// The browser and its tab belong to bctx (the first Do's context), not
	// to one log's deadline.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(logs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(expect, strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".eval"), ".json")+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var log struct {
			Samples []struct {
				ID       string
				Messages []struct{ Role, Content string }
				Scores   map[string]any
			}
		}
		if err := json.Unmarshal(raw, &log); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
		want := fmt.Sprintf("%d Samples", len(log.Samples))
		err = chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/index.html?log_file=logs/"+e.Name()))
		if err == nil {
			_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.body.innerText.includes(%q)`, want), chromedp.WithPollingInterval(200*time.Millisecond)))
		}
		if err != nil {
			text, _ := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`body`)))
			cancel()
			t.Fatalf("%s: the viewer never said %q: %v\n%s", e.Name(), want, err, text)
		}
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`body`)))
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		for name := range log.Samples[0].Scores {
			if !strings.Contains(strings.ToLower(text), strings.ToLower(name)) {
				cancel()
				t.Fatalf("%s: scorer %q not shown:\n%s", e.Name(), name, text)
			}
		}
		if shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			saveArtifact(t, "inspect-"+e.Name()+".png", shot)
		}
		// Open the first sample: its messages show.
		first := log.Samples[0]
		if len(first.Messages) > 0 {
			click := fmt.Sprintf(`(() => { const el = [...document.querySelectorAll('div, span, a')].find(x => x.children.length === 0 && x.innerText === %q); if (el) { el.click(); return true } return false })()`, first.ID)
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](click))
			if err != nil || !ok {
				cancel()
				t.Fatalf("%s: no sample row %q to open (%v)", e.Name(), first.ID, err)
			}
			snippet := strings.Fields(first.Messages[0].Content)
			words := strings.Join(snippet[:min(6, len(snippet))], " ")
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.body.innerText.replace(/\s+/g, ' ').includes(%q)`, words), chromedp.WithPollingInterval(200*time.Millisecond))); err != nil {
				text, _ := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`body`)))
				cancel()
				t.Fatalf("%s: sample %s opened, but its message %q does not show: %v\n%.3000s", e.Name(), first.ID, words, err, text)
			}
			if shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
				saveArtifact(t, "inspect-"+e.Name()+"-sample.png", shot)
			}
		}
		cancel()
	}
	if len(entries) != 4 {
		t.Fatalf("%d logs, want 4 (classify, two DeflectBench models, MissciPlus)", len(entries))
	}
}

// saveArtifact keeps a screenshot in $FALLACYLAB_ARTIFACTS (none: not kept).
func saveArtifact(t *testing.T, name string, b []byte) {
	dir := os.Getenv("FALLACYLAB_ARTIFACTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
}
