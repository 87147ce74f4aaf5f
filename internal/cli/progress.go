package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/fallacylab/fallacylab/engine"
	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/store"
)

// startProgress reports an engine's progress until the returned stop is
// called: a redrawn bar on a terminal, a plain line every 10 s otherwise.
// Hand-written because the bar shows engine-specific counters (hits,
// failures, tokens, spend) that general progress-bar libraries do not model.
func startProgress(g *Global, eng *engine.Engine) (stop func()) {
	if g.Quiet {
		return func() {}
	}
	every := 10 * time.Second
	if g.TTY {
		every = 200 * time.Millisecond
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		var r rateMeter
		for {
			select {
			case <-done:
				if g.TTY {
					p := eng.Progress()
					fmt.Fprintf(g.Stderr, "\r%s\x1b[K\n", progressLine(p, r.rate(p), true))
				}
				return
			case <-t.C:
				p := eng.Progress()
				if g.TTY {
					fmt.Fprintf(g.Stderr, "\r%s\x1b[K", g.fit(progressLine(p, r.rate(p), true)))
				} else if p.Done > 0 {
					fmt.Fprintf(g.Stderr, "%s progress %s\n", time.Now().Format("15:04:05"), progressLine(p, r.rate(p), false))
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// fit cuts a line redrawn in place to the terminal's width, its end
// replaced by "…": a line that wraps cannot be redrawn (\r returns to its
// last row), and the terminal fills with its pieces.
func (g *Global) fit(line string) string {
	if g.termWidth == nil {
		return line
	}
	return fitWidth(line, g.termWidth())
}

// fitWidth is line cut to width runes (0: as it is), its end "…".
func fitWidth(line string, width int) string {
	r := []rune(line)
	if width <= 0 || len(r) < width {
		return line
	}
	return string(r[:width-2]) + "…" // the last column left free: a full row wraps in some terminals
}

// rateMeter turns the engine's count of requests sent into requests per
// second over the last few seconds.
type rateMeter struct {
	at   []time.Time
	sent []int
}

func (m *rateMeter) rate(p engine.Progress) float64 {
	now := time.Now()
	m.at, m.sent = append(m.at, now), append(m.sent, p.Requests)
	for len(m.at) > 2 && now.Sub(m.at[0]) > 5*time.Second {
		m.at, m.sent = m.at[1:], m.sent[1:]
	}
	if len(m.at) < 2 {
		if el := now.Sub(p.Started).Seconds(); el > 0 {
			return float64(p.Requests) / el
		}
		return 0
	}
	return float64(m.sent[len(m.sent)-1]-m.sent[0]) / now.Sub(m.at[0]).Seconds()
}

// progressLine says where a run stands and, when calls are being made, how
// fast and why not faster: requests/s, calls in flight against the present
// concurrency limit (which adapts to the provider), retries and 429s.
func progressLine(p engine.Progress, rps float64, bar bool) string {
	var b strings.Builder
	if bar && p.Total > 0 {
		const width = 24
		fill := width * p.Done / p.Total
		b.WriteString("[" + strings.Repeat("=", fill) + strings.Repeat(" ", width-fill) + "] ")
	}
	total := "?"
	if p.Total > 0 {
		total = fmt.Sprint(p.Total)
	}
	fmt.Fprintf(&b, "%d/%s done, %d cached, %d failed, %s tokens, %s", p.Done, total, p.Cached, p.Failed,
		humanCount(p.Usage.Total()), money(p.Cost, p.Unpriced))
	if p.Requests > 0 {
		fmt.Fprintf(&b, ", %.1f req/s, %d in flight (limit %d)", rps, p.InFlight, p.Concurrency)
	}
	if p.Retries > 0 {
		fmt.Fprintf(&b, ", %d retries (%d rate-limited)", p.Retries, p.RateLimited)
	}
	if eta := etaOf(p); eta > 0 {
		fmt.Fprintf(&b, ", ETA %s", eta.Round(time.Second))
	}
	return b.String()
}

func etaOf(p engine.Progress) time.Duration {
	live := p.Done - p.Cached
	left := p.Total - p.Done
	if live <= 0 || left <= 0 {
		return 0
	}
	per := time.Since(p.Started) / time.Duration(live)
	return per * time.Duration(left)
}

func humanCount(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// money prints a spend; unknown prices are shown as unknown, never as $0.
func money(cost float64, unpriced int) string {
	s := fmt.Sprintf("$%.4f", cost)
	if cost > 0 && cost < 0.01 {
		s = fmt.Sprintf("$%.6f", cost)
	}
	if unpriced > 0 {
		if cost == 0 {
			return "spend unknown"
		}
		s += fmt.Sprintf(" + unknown (%d unpriced calls)", unpriced)
	}
	return s
}

func printSummary(g *Global, s engine.Summary) {
	w := g.Stderr
	fmt.Fprintf(w, "%s: %d answered, %d from cache, %d failed", plural(s.Done, "job", "jobs"), s.Done-s.Cached-s.Failed-s.Skipped, s.Cached, s.Failed)
	if s.Skipped > 0 {
		fmt.Fprintf(w, ", %d skipped (budget)", s.Skipped)
	}
	fmt.Fprintf(w, "; %s in + %s out tokens; %s; %s", humanCount(s.Usage.InputTokens), humanCount(s.Usage.OutputTokens),
		money(s.Cost, s.Unpriced), s.Elapsed.Round(time.Millisecond))
	if s.Retries > 0 {
		fmt.Fprintf(w, "; %d retries (%d rate-limited)", s.Retries, s.RateLimited)
	}
	fmt.Fprintln(w)
	printFailures(w, s.Failures)
	if s.StoreErr != nil {
		fmt.Fprintf(w, "the store could not be written (%v): nothing more was sent\n", s.StoreErr)
		if s.Rewritten > 0 {
			fmt.Fprintf(w, "  %d paid answers it refused were written at the end after all\n", s.Rewritten)
		}
		switch {
		case s.Unwritten > 0 && s.SpilledTo != "":
			fmt.Fprintf(w, "  %d paid answers it still refuses ($%.4f) are kept in %s: the next command on this store takes them in, and a re-run does not pay for them\n", s.Unwritten, s.UnwrittenCost, s.SpilledTo)
		case s.Unwritten > 0:
			fmt.Fprintf(w, "  %d paid answers ($%.4f) are lost: %v\n", s.Unwritten, s.UnwrittenCost, s.SpillErr)
		}
	}
}

// printPhaseCounts adds one line per model when the phase had several
// models or any unusable answer.
func printPhaseCounts(g *Global, counts []store.PhaseCount) {
	unusable, _ := lifecycle.Unusable(counts)
	if len(counts) < 2 && unusable == 0 {
		return
	}
	for _, c := range counts {
		fmt.Fprintf(g.Stderr, "  %s: %d answered (%d from cache), %d unusable, %d failed", c.Model, c.Answered, c.Cached, c.Unusable, c.Failed)
		if c.Skipped > 0 {
			fmt.Fprintf(g.Stderr, ", %d skipped", c.Skipped)
		}
		fmt.Fprintln(g.Stderr)
	}
}

// printFailures lists the failed jobs, those of one model that failed
// with the same error as one line with their number and first ids (a
// thousand jobs cancelled, or refused for one bad key, read as one cause,
// not as twenty lines and "… and 980 more"), in the order of each cause's
// first job; at most 20 lines.
func printFailures(w io.Writer, fs []engine.Failure) {
	const show, ids = 20, 3
	type cause struct{ spec, err string }
	var order []cause
	jobs := map[cause][]string{}
	for _, f := range fs {
		c := cause{f.Spec.String(), f.Err}
		if _, ok := jobs[c]; !ok {
			order = append(order, c)
		}
		jobs[c] = append(jobs[c], f.JobID)
	}
	for i, c := range order {
		if i == show {
			rest := 0
			for _, c := range order[show:] {
				rest += len(jobs[c])
			}
			fmt.Fprintf(w, "  … and %d more failures (see the store: fallacylab runs)\n", rest)
			break
		}
		js := jobs[c]
		if len(js) == 1 {
			fmt.Fprintf(w, "  FAILED %s [%s]: %s\n", js[0], c.spec, c.err)
			continue
		}
		list := strings.Join(js[:min(ids, len(js))], ", ")
		if len(js) > ids {
			list += ", …"
		}
		fmt.Fprintf(w, "  FAILED %s [%s] (%s): %s\n", plural(len(js), "job", "jobs"), c.spec, list, c.err)
	}
}

func printEstimate(w io.Writer, e engine.Estimate) {
	fmt.Fprintf(w, "dry run: %s, %d cached, %d to call\n", plural(e.Jobs, "job", "jobs"), e.Cached, e.Jobs-e.Cached)
	for _, m := range e.Models {
		price := fmt.Sprintf("$%.4f", m.Cost)
		if !m.PriceKnown {
			price = "price unknown"
		}
		basis := ""
		if m.Jobs > m.Cached {
			basis = "  (out: max_tokens or 512 each)"
			if m.Schema {
				basis = "  (out: from the answer schema's shape)"
			}
			if m.Learned > 0 {
				basis = fmt.Sprintf("  (out: mean of %d stored answers)", m.Learned)
			}
		}
		jobs := "jobs"
		if m.Jobs == 1 {
			jobs = "job " // the column keeps its width
		}
		fmt.Fprintf(w, "  %-40s %6d %s %6d cached  ~%s in + ~%s out tokens  %s%s\n", m.Spec, m.Jobs, jobs, m.Cached,
			humanCount(m.InputTokens), humanCount(m.OutputTokens), price, basis)
	}
	batch := ""
	if e.Discount > 0 {
		batch = fmt.Sprintf(" at the batch price (%.0f %% of the live one)", 100*e.Discount)
	}
	if e.CostKnown {
		fmt.Fprintf(w, "estimated cost: $%.4f%s\n", e.Cost, batch)
	} else {
		fmt.Fprintf(w, "estimated cost: $%.4f + unknown (set prices: in the config)%s\n", e.Cost, batch)
	}
}
