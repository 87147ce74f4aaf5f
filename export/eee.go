package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"

	"strconv"
	"time"

	"github.com/fallacylab/fallacylab/compare"
)

// EEESchemaVersion is the Every Eval Ever schema the files follow
// (evaleval/every_eval_ever at 9bce413, schemas/*.schema.json).
const EEESchemaVersion = "0.3.0"

// File is one file an export writes: its path under the output folder and
// its bytes.
type File struct {
	Path string
	Data []byte
}

// EEEOptions are what Every Eval Ever asks that a run does not know.
type EEEOptions struct {
	// Organization is who ran the evaluation (source_organization_name;
	// default "unknown").
	Organization string
	// Retrieved is when the files are made (default: the run's end).
	Retrieved time.Time
}

// EEE writes each arm of the run as Every Eval Ever's aggregate results
// (data/<benchmark>/<developer>/<model>/<uuid>.json) and its per-instance
// lines beside it (<uuid>_samples.jsonl): one line per item and metric,
// with the messages of its calls, its outcome and its tokens. The
// aggregate gives each metric's mean with its cluster bootstrap interval
// and standard error, and the judge panel of judged metrics.
func EEE(r Run, o EEEOptions) ([]File, error) {
	if o.Organization == "" {
		o.Organization = "unknown"
	}
	if o.Retrieved.IsZero() {
		o.Retrieved = r.Ended
	}
	var out []File
	for _, a := range r.Arms {
		files, err := eeeArm(r, a, o)
		if err != nil {
			return nil, fmt.Errorf("run %d, %s: %w", r.ID, a.Model, err)
		}
		out = append(out, files...)
	}
	return out, nil
}

func eeeArm(r Run, a Arm, o EEEOptions) ([]File, error) {
	provider, model := modelParts(a.Model)
	developer := provider
	if developer == "" {
		developer = "fallacylab"
	}
	id := uuid4("eee", strconv.FormatInt(r.ID, 10), r.Benchmark, a.Model)
	dir := path.Join("data", slug(r.Benchmark), slug(developer), slug(model))
	evalID := fmt.Sprintf("%s/%s/%d", r.Benchmark, a.Model, o.Retrieved.Unix())
	samples, rows, err := eeeInstances(r, a, evalID)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(samples)
	agg := map[string]any{
		"schema_version":       EEESchemaVersion,
		"evaluation_id":        evalID,
		"evaluation_timestamp": r.Started.UTC().Format(time.RFC3339),
		"retrieved_timestamp":  strconv.FormatInt(o.Retrieved.Unix(), 10),
		"source_metadata": map[string]any{
			"source_name":              fmt.Sprintf("fallacylab run %d (%s)", r.ID, r.Name),
			"source_type":              "evaluation_run",
			"source_organization_name": o.Organization,
			"evaluator_relationship":   "third_party",
			"additional_details":       map[string]string{"run": strconv.FormatInt(r.ID, 10), "status": r.Status, "command": joinArgs(r.Command)},
		},
		"eval_library": map[string]any{"name": "fallacylab", "version": orUnknown(r.Version),
			"additional_details": map[string]string{"exported_by": orUnknown(r.Exporter)}},
		"model_info":         modelInfo(a.Model),
		"evaluation_results": eeeResults(r, a),
		"detailed_evaluation_results": map[string]any{
			"format": "jsonl", "file_path": path.Join(dir, id+"_samples.jsonl"),
			"hash_algorithm": "sha256", "checksum": hex.EncodeToString(sum[:]), "total_rows": rows,
		},
	}
	body, err := json.MarshalIndent(agg, "", "  ")
	if err != nil {
		return nil, err
	}
	return []File{{Path: path.Join(dir, id+".json"), Data: append(body, '\n')}, {Path: path.Join(dir, id+"_samples.jsonl"), Data: samples}}, nil
}

// modelInfo is a model as Every Eval Ever names one.
func modelInfo(name string) map[string]any {
	provider, model := modelParts(name)
	info := map[string]any{"name": model, "id": name,
		"additional_details": map[string]string{"deployment_type": "unknown", "model_availability": "unknown"}}
	if provider != "" {
		info["id"] = provider + "/" + model
		info["developer"], info["inference_platform"] = provider, provider
	}
	return info
}

// evalName is a metric's evaluation name: the benchmark, the arm's design
// where it has one ("missciplus subtask 1 P@1"; subtask 2's P@1 is
// another evaluation), and the metric.
func evalName(r Run, a Arm, metric string) string {
	if a.Design != "" {
		return r.Benchmark + " " + a.Design + " " + metric
	}
	return r.Benchmark + " " + metric
}

// eeeResults are the arm's metrics: mean, interval, standard error.
func eeeResults(r Run, a Arm) []map[string]any {
	var out []map[string]any
	for i, e := range a.Estimates {
		cfg := map[string]any{
			"evaluation_description": fmt.Sprintf("%s: %s, the mean over %ss of their outcomes", r.Title, e.Metric, e.Unit),
			"metric_id":              slug(e.Metric),
			"metric_name":            e.Metric,
			"metric_kind":            map[bool]string{true: "proportion", false: "mean"}[e.Binary],
			"lower_is_better":        a.Metrics[i].LowerIsBetter,
			"score_type":             "continuous",
			"min_score":              0,
			"max_score":              1,
		}
		if len(a.Judges) > 0 {
			var judges []map[string]any
			for _, j := range a.Judges {
				judges = append(judges, map[string]any{"model_info": modelInfo(j)})
			}
			cfg["llm_scoring"] = map[string]any{"judges": judges, "input_prompt": "the benchmark's judge prompt, as each judge call's messages hold it (per-instance lines of the judged run)",
				"additional_details": map[string]string{"consensus": "any judge marks the field"}}
		}
		out = append(out, map[string]any{
			"evaluation_result_id": slug(e.Metric),
			"evaluation_name":      evalName(r, a, e.Metric),
			"source_data":          map[string]any{"dataset_name": r.Title, "source_type": "other", "additional_details": map[string]string{"benchmark": r.Benchmark}},
			"metric_config":        cfg,
			"score_details": map[string]any{
				"score":   e.Mean,
				"details": map[string]string{"unit": e.Unit, "clusters": strconv.Itoa(e.Clusters), "seed": strconv.FormatUint(e.Seed, 10)},
				"uncertainty": map[string]any{
					"standard_error":        map[string]any{"value": e.SE, "method": "cluster bootstrap (standard deviation of the replicates)"},
					"confidence_interval":   map[string]any{"lower": e.Lo, "upper": e.Hi, "confidence_level": e.Level, "method": e.Interval},
					"num_samples":           e.N,
					"num_bootstrap_samples": e.Resamples,
				},
			},
		})
	}
	return out
}

// eeeInstances are the arm's per-instance lines: an item's outcome on
// each metric, with its calls' messages and tokens.
func eeeInstances(r Run, a Arm, evalID string) ([]byte, int, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	rows := 0
	for _, m := range a.Metrics {
		for _, it := range m.Items {
			line := instance(a, m, it.ID, it.Cluster, it.Value)
			line["schema_version"], line["evaluation_id"], line["model_id"] = EEESchemaVersion, evalID, a.Model
			line["evaluation_name"], line["evaluation_result_id"] = evalName(r, a, m.Name), slug(m.Name)
			if err := enc.Encode(line); err != nil {
				return nil, 0, err
			}
			rows++
		}
	}
	return buf.Bytes(), rows, nil
}

// instance is one item's line but for its evaluation's names.
// is_correct is the item's best outcome: 0 for a lower-is-better metric (a
// false positive avoided), else 1 (a rate's event, a perfect score).
func instance(a Arm, m compare.Metric, id, cluster string, v float64) map[string]any {
	calls := a.Calls[id]
	value := strconv.FormatFloat(v, 'g', -1, 64)
	// Without a parsed answer the value extracted is the outcome; an
	// import knows it by this method's words (inspectlog's outcomeMethod).
	extracted, method := value, "the benchmark's own parser and scorer ("+m.Name+")"
	if ans, ok := a.Answers[id]; ok {
		extracted, method = ans, "the benchmark's own parser (its score: "+m.Name+" = "+value+")"
	}
	best := 1.0
	if m.LowerIsBetter {
		best = 0
	}
	line := map[string]any{
		"sample_id": id,
		"answer_attribution": []map[string]any{{"turn_idx": 0, "source": "fallacylab scorer", "extracted_value": extracted,
			"extraction_method": method, "is_terminal": true}},
		"evaluation": map[string]any{"score": v, "is_correct": v == best},
		"metadata": map[string]string{"cluster": cluster, "is_correct": fmt.Sprintf("the outcome is %g, the metric's best", best),
			"outcome": map[bool]string{true: "1 when the item shows the event, else 0", false: "the item's score"}[m.Binary]},
	}
	for name, x := range a.Extra[id] {
		line["metadata"].(map[string]string)[name] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	var usage [3]int64
	var latency time.Duration
	var errs []string
	for _, c := range calls {
		usage[0] += c.Usage.InputTokens
		usage[1] += c.Usage.OutputTokens
		usage[2] += c.Usage.ReasoningTokens
		latency += c.Latency
		if c.Error != "" {
			errs = append(errs, c.Error)
		}
	}
	switch {
	case len(calls) > 1:
		line["interaction_type"] = "multi_turn"
		var msgs []map[string]any
		for _, c := range calls {
			msgs = append(msgs, map[string]any{"turn_idx": len(msgs), "role": "user", "content": userText(c.Request)})
			msgs = append(msgs, map[string]any{"turn_idx": len(msgs), "role": "assistant", "content": c.Answer})
		}
		line["messages"] = msgs
		line["input"] = map[string]any{"raw": userText(calls[0].Request), "reference": []string{}}
		line["evaluation"].(map[string]any)["num_turns"] = len(calls)
	case len(calls) == 1:
		line["interaction_type"] = "single_turn"
		c := calls[0]
		in := map[string]any{"raw": userText(c.Request), "reference": []string{}}
		if c.Request.System != "" {
			in["formatted"] = c.Request.System + "\n\n" + userText(c.Request)
		}
		line["input"] = in
		line["output"] = map[string]any{"raw": []string{c.Answer}}
	default:
		// No model call (a detector that calls none): the outcome alone.
		line["interaction_type"] = "single_turn"
		line["input"] = map[string]any{"raw": "", "reference": []string{}}
		line["output"] = map[string]any{"raw": []string{}}
		line["metadata"].(map[string]string)["calls"] = "none: the item's outcome came from no model call"
	}
	if len(calls) > 0 {
		line["token_usage"] = map[string]any{"input_tokens": usage[0], "output_tokens": usage[1], "total_tokens": usage[0] + usage[1], "reasoning_tokens": usage[2]}
		line["performance"] = map[string]any{"latency_ms": float64(latency.Microseconds()) / 1000}
	}
	if len(errs) > 0 {
		line["error"] = errs[0]
	}
	return line
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// joinArgs is a command line as one string.
func joinArgs(args []string) string {
	b, _ := json.Marshal(args)
	return string(b)
}
