package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/fallacylab/fallacylab/store"
)

// TestBrowserEveryPageType opens one page of every type the viewer has —
// the run list, each benchmark's run page, every list, every record page,
// the compare views — at 1280 and 1920 px in Chromium. On each: a
// screenshot lands in $FALLACYLAB_ARTIFACTS; the page is no wider than the
// window; every highlighted element (a disagreement, a flag, a hit, a
// miss) has a computed background that differs from an ordinary cell's;
// every link on it answers 200; and it causes no console error and no
// Content-Security-Policy violation.
func TestBrowserEveryPageType(t *testing.T) {
	st, d, f1 := seed(t, []string{"model-a", "model-b"}, 1)
	f2 := secondAudit(t, st, f1)
	m1, m2 := missciRun(t, st), missciRun(t, st)
	mp, mr := missciplusRuns(t, st)
	c := seedCalls(t, st)
	live, err := st.StartRun(context.Background(), store.Run{Name: "still running", Benchmark: "deflect", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutPhases(context.Background(), live, []store.PhaseCount{{Seq: 1, Phase: "generation", Model: "openai:m", Jobs: 200, Answered: 90, Cached: 10, Unusable: 3, Failed: 10}}); err != nil {
		t.Fatal(err)
	}
	h := viewer(t, st)
	srv := httptest.NewServer(h)
	defer srv.Close()

	first := func(path, prefix string) string { // the first link on a page under prefix
		_, body, _ := get(t, h, path)
		i := strings.Index(body, `href="`+prefix)
		if i < 0 {
			t.Fatalf("%s links to nothing under %s", path, prefix)
		}
		return strings.ReplaceAll(strings.SplitN(body[i+len(`href="`):], `"`, 2)[0], "&amp;", "&")
	}
	pages := []struct{ name, path string }{
		{"runs", "/"},
		{"runs-deflect", "/?bench=deflect"},
		{"deflect-run", fmt.Sprintf("/runs/%d", d)},
		{"deflect-generations", fmt.Sprintf("/runs/%d/generations?sort=model", d)},
		{"deflect-disagreements", fmt.Sprintf("/runs/%d/generations?disagree=1", d)},
		{"deflect-generation", first(fmt.Sprintf("/runs/%d/generations?disagree=1", d), fmt.Sprintf("/runs/%d/generations/", d))},
		{"deflect-across-models", first(fmt.Sprintf("/runs/%d/generations", d), fmt.Sprintf("/runs/%d/compare?", d))},
		{"deflect-compare-runs", fmt.Sprintf("/compare?a=%d&b=%d&all=1", d, secondDeflect(t, st, d))},
		{"deflect-grid", fmt.Sprintf("/runs/%d/grid", d)},
		{"deflect-diff", first(first(fmt.Sprintf("/runs/%d/generations", d), fmt.Sprintf("/runs/%d/compare?", d)), fmt.Sprintf("/runs/%d/diff?", d))},
		{"foils-run", fmt.Sprintf("/runs/%d", f1)},
		{"foils-items", fmt.Sprintf("/runs/%d/items", f1)},
		{"foils-item", first(fmt.Sprintf("/runs/%d/items?cond=matched", f1), fmt.Sprintf("/runs/%d/items/", f1))},
		{"foils-compare-runs", fmt.Sprintf("/compare?a=%d&b=%d&all=1", f1, f2)},
		{"missci-run", fmt.Sprintf("/runs/%d", m1)},
		{"missci-arguments", fmt.Sprintf("/runs/%d/arguments", m1)},
		{"missci-argument", first(fmt.Sprintf("/runs/%d/arguments", m1), fmt.Sprintf("/runs/%d/arguments/", m1))},
		{"missci-compare-runs", fmt.Sprintf("/compare?a=%d&b=%d&all=1", m1, m2)},
		{"missciplus-run", fmt.Sprintf("/runs/%d", mp)},
		{"missciplus-arguments", fmt.Sprintf("/runs/%d/arguments?sort=rank", mp)},
		{"missciplus-argument", first(fmt.Sprintf("/runs/%d/arguments", mp), fmt.Sprintf("/runs/%d/arguments/", mp))},
		{"missciplus-reconstruction", fmt.Sprintf("/runs/%d", mr)},
		{"missciplus-reconstruction-argument", first(fmt.Sprintf("/runs/%d/arguments", mr), fmt.Sprintf("/runs/%d/arguments/", mr))},
		{"run-calls", fmt.Sprintf("/runs/%d/calls?sort=latency&desc=1", c)},
		{"call", fmt.Sprintf("/calls/k-slow?run=%d", c)},
		{"live-run", fmt.Sprintf("/runs/%d", live)},
	}
	// Pages that must show highlights: disagreements, hits and misses.
	wantMarks := map[string]bool{"deflect-disagreements": true, "deflect-generation": true, "deflect-across-models": true, "foils-item": true,
		"foils-compare-runs": true, "deflect-grid": true, "missci-arguments": true, "missci-argument": true, "missci-compare-runs": true,
		"missciplus-arguments": true, "missciplus-argument": true, "missciplus-reconstruction-argument": true}
	bctx, dialog := browser(t)
	complaintsSince := watchComplaints(t, bctx)
	links := map[string]string{} // link → a page that has it
	for _, p := range pages {
		for _, v := range []struct {
			width  int64
			scheme string
		}{{1280, "light"}, {1920, "light"}, {1280, "dark"}, {1920, "dark"}} {
			width := v.width
			complaints := complaintsSince()
			if err := chromedp.Do(bctx, colorScheme(v.scheme), chromedp.EmulateViewport(width, 900), chromedp.Navigate(srv.URL+p.path), chromedp.WaitVisible(chromedp.CSS(`h1`))); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			if c := complaints(); len(c) > 0 {
				t.Errorf("%s at %d px (%s): %d console errors or CSP violations, first: %s", p.name, width, v.scheme, len(c), c[0])
			}
			name := fmt.Sprintf("page-%s-%d.png", p.name, width)
			if v.scheme == "dark" {
				name = fmt.Sprintf("page-%s-%d-dark.png", p.name, width)
			}
			artifact(t, name, must(chromedp.Run(bctx, chromedp.FullScreenshot(100))))
			scroll := must(chromedp.Run(bctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)))
			if scroll > width {
				t.Errorf("%s at %d px: the page is %d px wide", p.name, width, scroll)
			}
			// Highlights must show: a background unlike an ordinary cell's.
			marks := must(chromedp.Run(bctx, chromedp.Evaluate[int64](`document.querySelectorAll('tr.disagree > td, tr.disagree > th, td.disagree, span.flag, td.flag, .hit, .miss').length`)))
			if wantMarks[p.name] && marks == 0 {
				t.Errorf("%s has nothing highlighted", p.name)
			}
			unmarked := must(chromedp.Run(bctx, chromedp.Evaluate[[]string](`(() => {
				const plain = document.createElement('td'); document.body.appendChild(plain);
				const base = getComputedStyle(plain).backgroundColor; plain.remove();
				const bad = [];
				for (const el of document.querySelectorAll('tr.disagree > td, tr.disagree > th, td.disagree, span.flag, td.flag, .hit, .miss')) {
					const bg = getComputedStyle(el).backgroundColor;
					if (bg === base || bg === 'rgba(0, 0, 0, 0)') bad.push(el.tagName + '.' + el.className + ' in ' + (el.parentElement.className || el.parentElement.tagName));
				}
				return bad.slice(0, 5) })()`)))
			if len(unmarked) > 0 {
				t.Errorf("%s: highlighted elements without a visible style: %v", p.name, unmarked)
			}
			// An outcome cell keeps its outcome's colour wherever it is (a row
			// where the models differ once painted all its cells the refusal
			// colour): the same background as the legend's swatch.
			recoloured := must(chromedp.Run(bctx, chromedp.Evaluate[[]string](`(() => {
				const bad = [];
				for (const el of document.querySelectorAll('td.o')) {
					const o = [...el.classList].find(c => c.startsWith('o-'));
					const swatch = document.createElement('span'); swatch.className = 'o ' + o; document.body.appendChild(swatch);
					const want = getComputedStyle(swatch).backgroundColor; swatch.remove();
					if (getComputedStyle(el).backgroundColor !== want) bad.push(o + ' in ' + (el.parentElement.className || 'a row'));
				}
				return bad.slice(0, 5) })()`)))
			if len(recoloured) > 0 {
				t.Errorf("%s (%s): outcome cells not in their outcome's colour: %v", p.name, v.scheme, recoloured)
			}
		}
		hrefs := must(chromedp.Run(bctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))`)))
		for _, l := range hrefs {
			if strings.HasPrefix(l, "#") {
				continue
			}
			u, err := url.Parse(l)
			if err != nil {
				t.Errorf("%s: link %q: %v", p.name, l, err)
				continue
			}
			u.Fragment = ""
			if _, seen := links[u.String()]; !seen {
				links[u.String()] = p.name
			}
		}
	}
	if dialog.Load() {
		t.Fatal("a dialog opened")
	}
	// Every link on every page type answers 200 (loopback Host, as a browser sends).
	var keys []string
	for l := range links {
		keys = append(keys, l)
	}
	slices.Sort(keys)
	broken := 0
	for _, l := range keys {
		if u, _ := url.Parse(l); u.IsAbs() {
			t.Errorf("%s links off the viewer: %s", links[l], l)
			continue
		}
		resp, err := http.Get(srv.URL + l)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 && broken < 10 {
			broken++
			t.Errorf("%s links to %s: %d", links[l], l, resp.StatusCode)
		}
	}
	t.Logf("%d page types, %d distinct links checked", len(pages), len(keys))
}
