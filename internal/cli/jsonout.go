package cli

import (
	"encoding/json"
	"time"

	"github.com/fallacylab/fallacylab/lifecycle"
	"github.com/fallacylab/fallacylab/store"
)

// The --json shapes of the listing commands (docs/cli-json.md). They are a
// contract: fields are added, never renamed or removed.

type runJSON struct {
	ID        int64      `json:"id"`
	Name      string     `json:"name"`
	Benchmark string     `json:"benchmark"`
	Status    string     `json:"status"` // effective: a running run whose process is gone is "interrupted"
	Reason    string     `json:"reason,omitempty"`
	Version   string     `json:"version"`
	Started   time.Time  `json:"started"`
	Ended     *time.Time `json:"ended,omitempty"`
	Calls     int        `json:"calls"`
	Cached    int        `json:"cached"`
}

func runOf(r store.Run, now time.Time) runJSON {
	out := runJSON{ID: r.ID, Name: r.Name, Benchmark: r.Benchmark, Status: lifecycle.State(r, now), Reason: r.Reason, Version: r.Version,
		Started: r.Started.UTC(), Calls: r.Calls, Cached: r.Cached}
	if !r.Ended.IsZero() {
		e := r.Ended.UTC()
		out.Ended = &e
	}
	return out
}

type modelJSON struct {
	Provider      string  `json:"provider"`
	Model         string  `json:"model"`
	Calls         int     `json:"calls"`
	Errors        int     `json:"errors"`
	Hits          int     `json:"hits"`
	InputTokens   int64   `json:"input_tokens"`
	OutputTokens  int64   `json:"output_tokens"`
	CostUSD       float64 `json:"cost_usd"`
	UnpricedCalls int     `json:"unpriced_calls"`
}

func modelsOf(stats []store.ModelStats) []modelJSON {
	out := make([]modelJSON, 0, len(stats))
	for _, m := range stats {
		out = append(out, modelJSON{m.Provider, m.Model, m.Calls, m.Errors, m.Hits, m.InputTokens, m.OutputTokens, m.Cost, m.UnpricedCalls})
	}
	return out
}

type phaseJSON struct {
	Phase    string `json:"phase"`
	Model    string `json:"model"`
	Jobs     int    `json:"jobs"`
	Answered int    `json:"answered"`
	Cached   int    `json:"cached"`
	Unusable int    `json:"unusable"`
	Failed   int    `json:"failed"`
	Skipped  int    `json:"skipped"`
	Example  string `json:"unusable_example,omitempty"`
}

func phasesOf(ps []store.PhaseCount) []phaseJSON {
	out := make([]phaseJSON, 0, len(ps))
	for _, p := range ps {
		out = append(out, phaseJSON{p.Phase, p.Model, p.Jobs, p.Answered, p.Cached, p.Unusable, p.Failed, p.Skipped, p.Example})
	}
	return out
}

// printJSON writes v as indented JSON to stdout.
func printJSON(g *Global, v any) error {
	enc := json.NewEncoder(g.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
