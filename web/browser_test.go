package web_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/fallacylab/fallacylab/bench/deflect"
	"github.com/fallacylab/fallacylab/report"
)

// browser starts headless Chromium (Debian's package, installed by .ci/run)
// and reports JavaScript dialogs (an XSS payload firing) through the flag.
func browser(t *testing.T) (context.Context, *atomic.Bool) {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed: .ci/run must apt-get install chromium")
		}
		t.Skip("chromium not installed")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1300, 1000))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	// Never hang CI, but never cut a slow machine short either: the browser
	// is stopped a minute before go test's own -timeout would end the whole
	// package (so the failure names this test), however long that is.
	stop := func() {}
	if deadline, ok := t.Deadline(); ok {
		watchdog := time.AfterFunc(max(time.Until(deadline)-time.Minute, time.Minute), cancelC)
		stop = func() { watchdog.Stop() }
	}
	t.Cleanup(func() { stop(); cancelC(); cancelA() })
	var dialog atomic.Bool
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialog.Store(true)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return ctx, &dialog
}

// watchComplaints records every console error, exception and security
// message (a style or script the Content-Security-Policy refuses) the
// browser's pages cause; since() starts a count and returns what reads it.
func watchComplaints(t *testing.T, bctx context.Context) (since func() func() []string) {
	t.Helper()
	var mu sync.Mutex
	var all []string
	if err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Source == cdplog.EntrySourceSecurity {
				all = append(all, string(e.Entry.Source)+": "+e.Entry.Text+" "+e.Entry.URL)
			}
		case *runtime.EventExceptionThrown:
			all = append(all, "exception: "+e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				all = append(all, "console.error")
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return func() func() []string {
		mu.Lock()
		from := len(all)
		mu.Unlock()
		return func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), all[from:]...)
		}
	}
}

// colorScheme makes the page's prefers-color-scheme light or dark.
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	})
}

func artifact(t *testing.T, name string, png []byte) {
	dir := os.Getenv("FALLACYLAB_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// must unwraps a browser action's value; an error fails the test (by panic,
// which the testing package reports with the failing line).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestBrowserHeatmapClickAndXSS(t *testing.T) {
	st, id1, _ := seed(t, []string{"model-a", "model-b"}, 1)
	srv := httptest.NewServer(viewer(t, st))
	defer srv.Close()
	ctx, dialog := browser(t)
	cell := chromedp.CSS(`g.cell[data-row="model-a"][data-col="4 explicit manipulation"] rect`)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(fmt.Sprintf("%s/runs/%d", srv.URL, id1)),
		chromedp.WaitVisible(cell),
		chromedp.Click(cell),
		chromedp.WaitVisible(chromedp.CSS(`#generations`)),
	); err != nil {
		t.Fatal(err)
	}
	pager := must(chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`div.pager`))))
	rows := must(chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('tr.gen').length`)))
	allMatch := must(chromedp.Run(ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll('tr.gen')].every(r => r.innerText.includes('explicit_manipulation') && r.innerText.includes('model-a') && r.innerText.includes("I can't"))`)))
	artifact(t, "viewer-heatmap-click.jpg", must(chromedp.Run(ctx, chromedp.FullScreenshot(80))))
	if !strings.Contains(pager, "240 rows") || rows != 50 || !allMatch {
		t.Fatalf("clicked cell shows %q, %d rows, all expected: %v", pager, rows, allMatch)
	}
	// Hostile model output renders as text: no dialog, no injected elements.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(fmt.Sprintf("%s/runs/%d/generations?model=model-b", srv.URL, id1)),
		chromedp.WaitVisible(chromedp.CSS(`#generations`)),
		chromedp.Sleep(300*time.Millisecond),
	); err != nil {
		t.Fatal(err)
	}
	injected := must(chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('td.resp script, td.resp img, td.resp b, script').length`)))
	text := must(chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#generations`))))
	if dialog.Load() || injected != 0 || !strings.Contains(text, "<script>alert(1)</script>") || !strings.Contains(text, "<img src=x onerror=alert(2)>") {
		t.Fatalf("dialog %v, injected %d, hostile strings shown as text: %v", dialog.Load(), injected, strings.Contains(text, "<script>"))
	}
}

func TestBrowserHTMLReportEscapes(t *testing.T) {
	rep := &report.Report{Title: "xss " + hostile[0]}
	sec := rep.AddSection("s", "")
	tb := sec.Add(&report.Table{ID: "t", Title: hostile[1], Columns: report.Cols("model", "response", "rate"),
		Charts: []report.Chart{{Kind: "bars", Title: hostile[2], Label: []int{1}, Value: 2}}})
	for _, h := range hostile {
		tb.Rows = append(tb.Rows, []report.Cell{report.T("m " + h), report.T(h), report.PCI(0.5, 0.4, 0.6, 10)})
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, rep, report.HTML); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	os.WriteFile(path, buf.Bytes(), 0o644)
	ctx, dialog := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.CSS(`table`)), chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	injected := must(chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('script, img, td b, svg b, svg img').length`)))
	text := must(chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`body`))))
	artifact(t, "report-xss.jpg", must(chromedp.Run(ctx, chromedp.FullScreenshot(80))))
	if dialog.Load() || injected != 0 || !strings.Contains(text, "</textarea><b>bold</b>") {
		t.Fatalf("dialog %v, injected %d", dialog.Load(), injected)
	}
}

// TestBrowserGenerationPages: the list and a generation's page fit the
// window at 1280 and 1920 px even with a 12,000-character unbroken answer,
// and a row where the judges disagree is visibly marked (its computed
// background differs from an ordinary row's).
func TestBrowserGenerationPages(t *testing.T) {
	st, id1, _ := seed(t, []string{"model-a", "model-b"}, 1)
	missci := missciRun(t, st)
	ctx := context.Background()
	d, err := deflect.LoadRecords(ctx, st, id1)
	if err != nil {
		t.Fatal(err)
	}
	long := d.Gens[1].GenID
	d.Gens[1].Response = strings.Repeat("x", 12000)
	d.Gens[1].CallKey = ""
	if err := deflect.SaveGens(ctx, st, id1, d.Gens); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(viewer(t, st))
	defer srv.Close()
	bctx, dialog := browser(t)
	_, list, _ := get(t, viewer(t, st), fmt.Sprintf("/runs/%d/generations?disagree=1", id1))
	i := strings.Index(list, fmt.Sprintf(`href="/runs/%d/generations/`, id1))
	if i < 0 {
		t.Fatal("no disagreeing generation")
	}
	disagreeing := strings.SplitN(list[i+len(`href="`):], `"`, 2)[0]
	for _, width := range []int64{1280, 1920} {
		for name, path := range map[string]string{
			"run":          fmt.Sprintf("/runs/%d", id1),
			"missci":       fmt.Sprintf("/runs/%d", missci),
			"missci-args":  fmt.Sprintf("/runs/%d/arguments", missci),
			"list":         fmt.Sprintf("/runs/%d/generations", id1),
			"long-answer":  fmt.Sprintf("/runs/%d/generations/%s", id1, long),
			"disagreement": disagreeing,
		} {
			if err := chromedp.Do(bctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS(`h1`))); err != nil {
				t.Fatal(err)
			}
			scroll := must(chromedp.Run(bctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)))
			inner := must(chromedp.Run(bctx, chromedp.Evaluate[int64](`window.innerWidth`)))
			artifact(t, fmt.Sprintf("viewer-generation-%s-%d.png", name, width), must(chromedp.Run(bctx, chromedp.FullScreenshot(100)))) // 100: PNG
			if scroll > inner {
				t.Errorf("%s at %d px: the page is %d px wide", name, width, scroll)
			}
			if name == "disagreement" {
				marked := must(chromedp.Run(bctx, chromedp.Evaluate[bool](`(() => {
					const d = document.querySelector('#rubric tr.disagree > th'), n = document.querySelector('#rubric tr:not(.disagree) > th');
					return !!d && !!n && getComputedStyle(d).backgroundColor !== getComputedStyle(n).backgroundColor })()`)))
				if !marked {
					t.Errorf("a disagreeing field is not visibly marked")
				}
			}
		}
	}
	if dialog.Load() {
		t.Fatal("a dialog opened")
	}
}

// TestBrowserHTMLReportFits: the full DeflectBench HTML report (four
// models) opens with a table of contents whose every link has its target,
// and at 1280 px no table widens the page: wide tables scroll in their own
// box.
func TestBrowserHTMLReportFits(t *testing.T) {
	d, _, err := deflect.Synthesize(deflect.SynthOptions{Models: []string{"claude-opus-4-7", "deepseek-v4-pro", "gpt-5.5", "grok-4.3"}, Samples: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := deflect.Analyze(d, deflect.Options{Seed: 1, Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.Render(&buf, rep, report.HTML); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	os.WriteFile(path, buf.Bytes(), 0o644)
	ctx, _ := browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate("file://"+path), chromedp.WaitVisible(chromedp.CSS(`nav.toc`))); err != nil {
		t.Fatal(err)
	}
	scroll := must(chromedp.Run(ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)))
	inner := must(chromedp.Run(ctx, chromedp.Evaluate[int64](`window.innerWidth`)))
	links := must(chromedp.Run(ctx, chromedp.Evaluate[int64](`document.querySelectorAll('nav.toc a').length`)))
	broken := must(chromedp.Run(ctx, chromedp.Evaluate[int64](`[...document.querySelectorAll('nav.toc a')].filter(a => !document.getElementById(a.getAttribute('href').slice(1))).length`)))
	artifact(t, "report-deflect-1280.png", must(chromedp.Run(ctx, chromedp.CaptureScreenshot())))
	if scroll > inner || links < 20 || broken != 0 {
		t.Fatalf("page %d px wide in a %d px window; %d contents links, %d without a target", scroll, inner, links, broken)
	}
}
