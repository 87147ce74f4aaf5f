package inspectlog

import (
	"errors"
	"testing"
)

// FuzzRead: whatever a file holds, reading it as an inspect log or as
// Every Eval Ever results returns samples or an error, never a panic.
func FuzzRead(f *testing.F) {
	f.Add([]byte(logWith(`{"cluster": "claim"}`, `{"claim": "b"}`)), false)
	f.Add([]byte(`{"sample_id": 1, "evaluation_name": "a", "evaluation": {"score": 1}, "metadata": {"cluster": "p"}}`), true)
	f.Add([]byte(`{"evaluation_results": [{"evaluation_name": "x"}], "detailed_evaluation_results": {"file_path": "a/b"}}`), true)
	f.Fuzz(func(t *testing.T, data []byte, eee bool) {
		if eee {
			open := func(string) ([]byte, error) { return data, errors.New("none") }
			ReadEEE("r.jsonl", data, open)
			ReadEEE("r.json", data, func(string) ([]byte, error) { return data, nil })
			return
		}
		Read("log.json", data)
		Read("log.eval", data) // the .eval ZIP container
	})
}
