// Package engine runs a plan of model calls: it streams jobs, answers from the
// cache, and sends the rest through per-provider concurrency limits, request
// and token rate limits, and retries with backoff; or submits them as provider
// batches. Every answer is committed to the store as soon as it arrives, so a
// re-run never pays twice for a call.
package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"iter"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

// Job is one model call in a plan.
type Job struct {
	// ID is the plan's own readable identifier (e.g. "claim-12/tpl-3/s2"); it
	// is stored with the run but does not enter the cache key.
	ID string
	// Namespace separates otherwise identical calls made for different
	// purposes (e.g. "deflect/gen" vs "deflect/judge").
	Namespace string
	Spec      llm.Spec
	Request   llm.Request
	// Sample distinguishes repeated samples of the same request, so five
	// samples at temperature 1 are five calls, never one cached answer reused.
	Sample int
	// Meta is the plan's own data, handed back with the result (e.g. the
	// item a job came from). It does not enter the cache key.
	Meta any
	// Endpoint identifies the server of a provider that is not at its
	// built-in address (its normalised base URL): the same model elsewhere
	// is another call. The engine sets it (Options.Endpoint); plans leave it.
	Endpoint string
	// Shape is the JSON schema of the answer the prompt asks for when the
	// request does not enforce one (a judge told to answer in JSON): it
	// shapes the output estimate before any answer is stored, and does
	// not enter the cache key.
	Shape map[string]any
	// Budget names a budget held in the store (Options.SharedBudget) that
	// the job's cost counts against — the run that queued it, when a
	// worker makes it; "" is the engine's own Options.Budget. It does not
	// enter the cache key.
	Budget string
	// Refresh makes the call again even when the cache holds its answer,
	// and the new answer replaces the stored one: a job of a run made with
	// --cache refresh, when a worker makes it (the worker's own cache mode
	// is "use"). It does not enter the cache key.
	Refresh bool
	// Run is the run a worker makes the job for, whose spend the call's
	// sending counts in (MarkSent) until its answer is stored; 0: the
	// engine's Options.RunID. It does not enter the cache key.
	Run int64
	// RefreshAfter, for a Refresh job, is when the refresh was asked for:
	// an answer stored before it is the one to replace, never this job's
	// (zero: the engine run's start, as for --cache refresh). A worker
	// running since before the refreshing run sets it.
	RefreshAfter time.Time
}

// keyDoc is the canonical document hashed into a cache key. Changing its
// shape changes every key: bump the version when that is intended.
type keyDoc struct {
	V         int         `json:"v"`
	Namespace string      `json:"namespace"`
	Provider  string      `json:"provider"`
	Model     string      `json:"model"`
	Request   llm.Request `json:"request"`
	Sample    int         `json:"sample"`
	Endpoint  string      `json:"endpoint,omitempty"` // absent for built-in endpoints: their keys are unchanged
}

// Canonical returns the canonical JSON of everything that changes the answer.
// encoding/json writes struct fields in declaration order and map keys sorted,
// so equal jobs always give equal bytes.
func (j Job) Canonical() []byte {
	b, err := json.Marshal(keyDoc{V: 1, Namespace: j.Namespace, Provider: j.Spec.Provider, Model: j.Spec.Model, Request: j.Request, Sample: j.Sample, Endpoint: j.Endpoint})
	if err != nil {
		// Request holds only strings, numbers and a JSON-decoded schema map.
		panic("engine: job not encodable: " + err.Error())
	}
	return b
}

// Key is the SHA-256 (hex) of Canonical: the job's cache key.
func (j Job) Key() string {
	sum := sha256.Sum256(j.Canonical())
	return hex.EncodeToString(sum[:])
}

// Plan is a stream of jobs. Len is the number of jobs, when known (for
// progress); Jobs may be iterated more than once.
type Plan struct {
	Name string
	Len  int
	Jobs iter.Seq[Job]
}

// SlicePlan makes a plan from a slice.
func SlicePlan(name string, jobs []Job) Plan {
	return Plan{Name: name, Len: len(jobs), Jobs: func(yield func(Job) bool) {
		for _, j := range jobs {
			if !yield(j) {
				return
			}
		}
	}}
}

// Digest is the SHA-256 (hex) of the plan's job ids and keys in order: two
// plans with equal digests make the same calls for the same jobs.
func Digest(p Plan) string {
	h := sha256.New()
	for j := range p.Jobs {
		h.Write([]byte(j.ID))
		h.Write([]byte{0})
		h.Write([]byte(j.Key()))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
