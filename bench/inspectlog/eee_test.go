package inspectlog

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
)

// ReadEEE reads another tool's Every Eval Ever results: the aggregate
// names the metric of each evaluation and the model, the instance file
// beside it gives each sample's score; no cluster field, so each sample
// is its own; the instance file alone reads too, its evaluation names
// then the metrics'. A bad line is named with its field.
func TestReadEEE(t *testing.T) {
	agg := `{"schema_version": "0.3.0", "evaluation_id": "gsm8k/acme/x/1", "evaluation_timestamp": "2026-01-02",
	  "model_info": {"name": "X", "id": "acme/x"}, "eval_library": {"name": "lm-eval"},
	  "evaluation_results": [{"evaluation_name": "gsm8k", "metric_config": {"metric_name": "exact match"}, "source_data": {"dataset_name": "GSM8K"}, "score_details": {"score": 0.5}}],
	  "detailed_evaluation_results": {"file_path": "data/gsm8k/acme/x/u1_samples.jsonl", "format": "jsonl"}}`
	inst := `{"sample_id": 7, "evaluation_name": "gsm8k", "model_id": "acme/x", "input": {"raw": "2+2?"}, "output": {"raw": ["4"]}, "evaluation": {"score": 1, "is_correct": true}}
{"sample_id": 8, "evaluation_name": "gsm8k", "model_id": "acme/x", "input": {"raw": "3+3?"}, "output": {"raw": ["5"]}, "evaluation": {"score": 0, "is_correct": false}}
{"sample_id": 9, "evaluation_name": "gsm8k", "model_id": "acme/x", "input": {"raw": "1+1?"}, "output": {"raw": []}, "answer_attribution": [{"extracted_value": "2"}], "evaluation": {"score": 1, "is_correct": true}}
{"sample_id": 10, "evaluation_name": "gsm8k", "model_id": "acme/x", "input": {"raw": "0+1?"}, "output": {"raw": []}, "answer_attribution": [{"extracted_value": "1", "extraction_method": "the benchmark's own parser and scorer (exact match)"}], "evaluation": {"score": 1, "is_correct": true}}
`
	files := map[string]string{"r/u1.json": agg, "r/u1_samples.jsonl": inst}
	open := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: %w", p, os.ErrNotExist)
	}
	h, samples, err := ReadEEE("r/u1.json", []byte(agg), open)
	if err != nil {
		t.Fatal(err)
	}
	// The answer: the output, else the value extracted — but not an
	// outcome fallacylab's export wrote there (a benchmark without a parsed
	// answer).
	if h.Format != "eee" || h.Model != "acme/x" || h.Of != "" || h.ClusterBy != "" || len(samples) != 4 ||
		samples[0].ID != "7" || samples[0].Scores["exact match"] != 1 || samples[1].Answer != "5" || samples[1].Input != "3+3?" ||
		samples[2].Answer != "2" || samples[3].Answer != "" {
		t.Fatalf("%+v\n%+v", h, samples)
	}
	ms := metrics(h, samples)
	if len(ms) != 1 || ms[0].Name != "exact match" || ms[0].Unit != "sample" || ms[0].Items[1].Cluster != "8" || len(ms[0].Items) != 4 {
		t.Fatalf("metrics %+v", ms)
	}
	// The instance file alone: the aggregate beside it is read.
	if h2, _, err := ReadEEE("r/u1_samples.jsonl", []byte(inst), open); err != nil || h2.Model != "acme/x" || h2.Scorers[0] != "exact match" {
		t.Fatalf("%+v %v", h2, err)
	}
	for _, c := range []struct{ name, data, want string }{
		{"r/u1_samples.jsonl", inst + `{"sample_id": 11, "evaluation_name": "gsm8k", "evaluation": {}}` + "\n", "r/u1_samples.jsonl line 5: field evaluation.score: missing"},
		{"r/u1_samples.jsonl", `{"evaluation_name": "gsm8k", "evaluation": {"score": 1}}` + "\n", "line 1: field sample_id: missing"},
		{"r/u1_samples.jsonl", inst + inst, "line 5: sample 7 has a second exact match"},
		{"r/u1_samples.jsonl", `{"sample_id": 1, "evaluation_name": "a", "evaluation": {"score": 1}, "metadata": {"cluster": "p"}}
{"sample_id": 1, "evaluation_name": "b", "evaluation": {"score": 1}, "metadata": {"cluster": "q"}}`, `line 2: field metadata.cluster: "q", where sample 1's other lines say "p"`},
		{"r/other.json", agg, "r/other.json: its instance-level file, which item-by-item figures need"},
	} {
		if c.name == "r/other.json" {
			files["r/other.json"] = strings.Replace(agg, `"detailed_evaluation_results": {"file_path": "data/gsm8k/acme/x/u1_samples.jsonl", "format": "jsonl"}`, `"x": 1`, 1)
			c.data = files["r/other.json"]
		}
		if _, _, err := ReadEEE(c.name, []byte(c.data), open); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.want, err, c.want)
		}
	}
}

// TestReadEEEChecksItsFile: an aggregate's checksum (sha256 or md5) and
// total_rows must be its instance-level file's — a file changed or cut
// short since the export is refused, naming both sums (it was read as it
// was, without a word).
func TestReadEEEChecksItsFile(t *testing.T) {
	inst := `{"sample_id": 1, "evaluation_name": "e", "evaluation": {"score": 1}}
{"sample_id": 2, "evaluation_name": "e", "evaluation": {"score": 0}}
`
	changed := strings.Replace(inst, `"score": 0`, `"score": 1`, 1)
	sha, md := sha256.Sum256([]byte(inst)), md5.Sum([]byte(inst))
	agg := func(detail string) string {
		return `{"evaluation_id": "e/1", "model_info": {"id": "acme/x"}, "evaluation_results": [{"evaluation_name": "e", "metric_config": {"metric_name": "m"}}],
		  "detailed_evaluation_results": {"file_path": "data/e/acme/x/u_samples.jsonl", "format": "jsonl"` + detail + `}}`
	}
	for _, c := range []struct {
		detail, inst, want string
	}{
		{`, "hash_algorithm": "sha256", "checksum": "` + hex.EncodeToString(sha[:]) + `", "total_rows": 2`, inst, ""},
		{`, "hash_algorithm": "md5", "checksum": "` + hex.EncodeToString(md[:]) + `"`, inst, ""},
		{`, "hash_algorithm": "sha256", "checksum": "` + hex.EncodeToString(sha[:]) + `"`, changed, "r/u_samples.jsonl: its sha256 is "},
		{`, "hash_algorithm": "md5", "checksum": "` + hex.EncodeToString(md[:]) + `"`, changed, "where the aggregate says " + hex.EncodeToString(md[:])},
		{`, "total_rows": 3`, inst, "r/u_samples.jsonl: 2 rows, where the aggregate says 3 (total_rows)"},
	} {
		open := func(p string) ([]byte, error) {
			if p == "r/u_samples.jsonl" {
				return []byte(c.inst), nil
			}
			return nil, os.ErrNotExist
		}
		_, samples, err := ReadEEE("r/u.json", []byte(agg(c.detail)), open)
		switch {
		case c.want == "" && (err != nil || len(samples) != 2):
			t.Errorf("%s: %v, %d samples", c.detail, err, len(samples))
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.detail, err, c.want)
		}
	}
}
