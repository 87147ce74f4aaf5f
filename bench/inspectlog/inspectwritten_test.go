package inspectlog

import (
	"strings"
	"testing"
)

// A log as inspect itself writes it (its shape follows inspect_ai's own
// test logs): no output.completion — inspect computes it from the first
// choice and does not write it — a message content that is a string or a
// list of parts (reasoning, then text), scores as C/I with an answer. The
// answer imported is the model's text; a dict-valued score is a score per
// key (one that is not a number is left out, and said).
func TestReadsALogInspectWrote(t *testing.T) {
	log := `{"version": 2, "status": "success",
	"eval": {"task": "popularity", "model": "ollama/gemma3", "scorers": [{"name": "match", "options": {}, "metrics": [{"name": "inspect_ai/accuracy", "options": {}}, {"name": "inspect_ai/stderr", "options": {}}]}]},
	"results": {"total_samples": 2, "scores": [{"name": "match", "scorer": "match", "params": {}, "metrics": {"accuracy": {"name": "accuracy", "value": 0.5, "params": {}}, "stderr": {"name": "stderr", "value": 0.5, "params": {}}}}]},
	"samples": [
		{"id": 1, "epoch": 1, "input": "Would you say it?", "target": " Yes",
		 "output": {"model": "gemma3", "choices": [{"message": {"id": "a", "content": "Yes\n", "source": "generate", "role": "assistant"}, "stop_reason": "stop"}], "usage": {"input_tokens": 66, "output_tokens": 3}},
		 "scores": {"match": {"value": "C", "answer": "Yes", "explanation": "Yes\n"}}, "metadata": {"label_confidence": 0.88}},
		{"id": 2, "epoch": 1, "input": [{"role": "user", "content": "And this?"}], "target": " No",
		 "output": {"model": "gemma3", "choices": [{"message": {"content": [{"type": "reasoning", "reasoning": "hm"}, {"type": "text", "text": "Yes"}], "role": "assistant"}, "stop_reason": "stop"}]},
		 "scores": {"match": {"value": "I", "answer": "Yes"}, "rubric": {"value": {"clarity": 0.5, "correct": "C", "notes": [1, 2]}}}}]}`
	h, samples, err := Read("popularity.json", []byte(log))
	if err != nil {
		t.Fatal(err)
	}
	if h.Model != "ollama/gemma3" || h.ClusterBy != "" || len(samples) != 2 {
		t.Fatalf("header %+v, %d samples", h, len(samples))
	}
	if r := samples[1].Scores; r["rubric/clarity"] != 0.5 || r["rubric/correct"] != 1 || len(r) != 3 {
		t.Errorf("a dict-valued score: %+v", r)
	}
	if len(h.Dropped) != 1 || !strings.Contains(h.Dropped[0], "score rubric/notes") {
		t.Errorf("dropped %q", h.Dropped)
	}
	for i, want := range []struct {
		answer, input string
		score         float64
	}{{"Yes\n", "Would you say it?", 1}, {"Yes", "user: And this?", 0}} {
		s := samples[i]
		if s.Answer != want.answer || s.Input != want.input || s.Scores["match"] != want.score {
			t.Errorf("sample %d: %+v, want %+v", i+1, s, want)
		}
	}
}
