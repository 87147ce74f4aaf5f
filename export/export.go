// Package export turns a stored run into the files other evaluation tools
// read: Every Eval Ever's aggregate results and per-instance lines, and
// inspect_ai's eval log. It is pure: the caller gathers the run, its arms
// (bench.Compares) and the calls their items were made from, and writes
// what it returns.
package export

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/fallacylab/fallacylab/compare"
	"github.com/fallacylab/fallacylab/llm"
)

// Run is a stored run as an export reads it.
type Run struct {
	ID int64
	// Benchmark is the Task's name ("deflect"), Title its title.
	Benchmark, Title string
	// Name is the run's name ("foils audit reddit"); Status its store
	// status ("done", "failed", …) and Reason why it ended so.
	Name, Status, Reason string
	Started, Ended       time.Time
	// Command is the command line that made it; Options its options as
	// stored (JSON, secrets excluded).
	Command []string
	Options []byte
	// Version is the fallacylab build that made the run; Exporter the one
	// that exports it.
	Version, Exporter string
	Arms              []Arm
}

// Arm is one model of the run (or the run's one arm) with its headline
// metrics item by item, their estimates, and the calls behind its items.
type Arm struct {
	// Model is "provider:model" (or a detector's or ranker's name).
	Model string
	// Design is what the arm's figures measure where the benchmark's runs
	// measure several things under one metric's name (bench.Arm's:
	// "subtask 1"); it joins the evaluation's name.
	Design    string
	Metrics   []compare.Metric
	Estimates []compare.Estimate
	// Judges are the models whose verdicts make the outcomes.
	Judges []string
	// Calls are each item's calls, in the order they were made.
	Calls map[string][]Call
	// Answers are each item's parsed answer; Extra its further scores
	// by name (bench.Arm's).
	Answers map[string]string
	Extra   map[string]map[string]float64
}

// Call is one stored model call behind an item.
type Call struct {
	Key      string
	Provider string
	Model    string
	Request  llm.Request
	// Sample is the call's sample index (a prompt asked several times).
	Sample int
	// Answer is the response's text ("" when the call failed: Error).
	Answer  string
	Error   string
	Usage   llm.Usage
	Latency time.Duration
	Made    time.Time
}

// modelParts splits "provider:model" into its provider and model ("" and
// the whole name when it names no provider).
func modelParts(name string) (provider, model string) {
	if p, m, ok := strings.Cut(name, ":"); ok && m != "" && !strings.ContainsAny(p, " /") {
		return p, m
	}
	return "", name
}

// uuid4 is a version-4-shaped UUID derived from parts: the same run and
// model export to the same file names every time.
func uuid4(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	b := h[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return fmt.Sprintf("%s-%s-%s-%s-%s", x[:8], x[8:12], x[12:16], x[16:20], x[20:])
}

// slug makes a name safe as one path segment.
func slug(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// userText is what the user said in a request (its user messages, joined).
func userText(r llm.Request) string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "user" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n\n")
}
