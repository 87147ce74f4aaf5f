package export

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/fallacylab/fallacylab/llm"
)

// InspectVersion is the inspect_ai log format version the logs follow
// (EvalLog.version; UKGovernmentBEIS/inspect_ai at 499e615,
// src/inspect_ai/_view/inspect-openapi.json).
const InspectVersion = 2

// Inspect writes each arm of the run as an inspect_ai eval log in its JSON
// form (<benchmark>_<model>_<run>.json), as inspect writes one model's run
// of a task: the benchmark and its options as the task and its args; each
// item as a sample with the messages sent and the answer, a score per
// headline metric and a model event per call; each metric's mean and
// bootstrap standard error in the results, with its interval in the
// score's metadata, and the stderr's params naming the sample metadata
// field that holds each item's cluster ("claim": its claim), as
// inspect's stderr(cluster="claim") does; the run's status, timings and token
// usage.
func Inspect(r Run) ([]File, error) {
	var out []File
	for _, a := range r.Arms {
		log := inspectLog(r, a)
		body, err := json.MarshalIndent(log, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("run %d, %s: %w", r.ID, a.Model, err)
		}
		name := fmt.Sprintf("%s_%s_run%d.json", slug(r.Benchmark), slug(a.Model), r.ID)
		out = append(out, File{Path: path.Clean(name), Data: append(body, '\n')})
	}
	return out, nil
}

type obj = map[string]any

// inspectModel names a model as inspect does: provider/model.
func inspectModel(name string) string {
	if p, m := modelParts(name); p != "" {
		return p + "/" + m
	}
	return name
}

func inspectLog(r Run, a Arm) obj {
	model := inspectModel(a.Model)
	samples, usage := inspectSamples(a, model)
	var scorers, scores []obj
	for _, e := range a.Estimates {
		scorers = append(scorers, obj{"name": e.Metric})
		scores = append(scores, obj{"name": e.Metric, "scorer": e.Metric, "params": obj{}, "scored_samples": e.N,
			"metrics": obj{
				"mean":   obj{"name": "mean", "value": e.Mean, "params": obj{}},
				"stderr": obj{"name": "stderr", "value": e.SE, "params": obj{"cluster": clusterField(a), "method": "cluster bootstrap over " + e.Unit + "s"}},
			},
			// rate: whether each sample's value is an outcome of 0 or 1
			// (a refusal) or a score that may happen to be (a text's F1).
			"metadata": obj{"rate": e.Binary, "interval": []float64{e.Lo, e.Hi}, "level": e.Level, "method": e.Interval,
				"resamples": e.Resamples, "seed": e.Seed, "clusters": e.Clusters}})
	}
	var options any = obj{}
	var cfg struct {
		Options json.RawMessage `json:"options"`
	}
	if json.Unmarshal(r.Options, &cfg) == nil && len(cfg.Options) > 0 {
		var o map[string]any
		if json.Unmarshal(cfg.Options, &o) == nil {
			options = o
		}
	}
	status := map[string]string{"done": "success", "running": "started", "failed": "error"}[r.Status]
	if status == "" {
		status = "cancelled"
	}
	log := obj{
		"version": InspectVersion,
		"status":  status,
		"eval": obj{
			"eval_id": uuid4("inspect-eval", strconv.FormatInt(r.ID, 10), a.Model), "run_id": uuid4("inspect-run", strconv.FormatInt(r.ID, 10)),
			"created": r.Started.UTC().Format(time.RFC3339), "task": "fallacylab/" + r.Benchmark, "task_display_name": r.Title,
			"task_id": uuid4("inspect-task", r.Benchmark), "task_version": 0, "task_attribs": obj{},
			"task_args": options, "task_args_passed": options,
			"dataset":               obj{"name": r.Title, "samples": len(samples)},
			"model":                 model,
			"model_generate_config": obj{},
			"model_args":            obj{},
			"config":                obj{},
			"packages":              obj{"fallacylab": orUnknown(r.Version)},
			"scorers":               scorers,
			"metadata":              evalMetadata(r, a),
		},
		"plan":        obj{"name": "plan", "steps": []obj{{"solver": "generate", "params": obj{}, "params_passed": obj{}}}, "config": obj{}},
		"results":     obj{"total_samples": len(samples), "completed_samples": len(samples), "scores": scores},
		"stats":       obj{"started_at": stamp(r.Started), "completed_at": stamp(r.Ended), "model_usage": usage, "role_usage": obj{}, "connection_limit_history": []obj{}},
		"invalidated": false,
		"tags":        []string{"fallacylab"},
		"metadata":    obj{"exported_by": "fallacylab " + orUnknown(r.Exporter)},
		"samples":     samples,
	}
	if status == "error" || status == "cancelled" {
		log["error"] = obj{"message": fmt.Sprintf("run %d %s: %s", r.ID, r.Status, r.Reason), "traceback": "", "traceback_ansi": ""}
	}
	return log
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// evalMetadata is what the log says of the fallacylab run it is: the run,
// its command, its judges, and its design where it has one (what an
// import needs to compare the log with that benchmark's runs).
func evalMetadata(r Run, a Arm) obj {
	m := obj{"fallacylab_run": r.ID, "fallacylab_run_name": r.Name, "command": r.Command, "judges": a.Judges}
	if a.Design != "" {
		m["fallacylab_design"] = a.Design
	}
	return m
}

// clusterField is the sample metadata field that holds an item's cluster:
// the arm's unit ("claim", "text", "argument"), as its stderr names it.
func clusterField(a Arm) string {
	if len(a.Metrics) > 0 && a.Metrics[0].Unit != "" {
		return a.Metrics[0].Unit
	}
	return "cluster"
}

// inspectSamples are the arm's items as samples, in the order the metrics
// first name them, and the arm's token usage by model.
func inspectSamples(a Arm, model string) ([]obj, obj) {
	var order []string
	scores := map[string]obj{}
	cluster := map[string]string{}
	for _, m := range a.Metrics {
		for _, it := range m.Items {
			if scores[it.ID] == nil {
				scores[it.ID] = obj{}
				order = append(order, it.ID)
				cluster[it.ID] = it.Cluster
			}
			sc := obj{"value": it.Value, "history": []obj{}}
			if ans, ok := a.Answers[it.ID]; ok {
				sc["answer"] = ans
			}
			scores[it.ID][m.Name] = sc
		}
	}
	for _, id := range order {
		for name, v := range a.Extra[id] {
			scores[id][name] = obj{"value": v, "history": []obj{}}
		}
	}
	total := map[string]*[3]int64{}
	var samples []obj
	for _, id := range order {
		calls := a.Calls[id]
		s := obj{"id": id, "epoch": 1, "input": "", "target": "", "scores": scores[id], "metadata": obj{clusterField(a): cluster[id]},
			"store": obj{}, "model_usage": obj{}, "role_usage": obj{}, "attachments": obj{}}
		var msgs, events []obj
		answer := ""
		var u [3]int64
		for i, c := range calls {
			in := inspectMessages(c.Request)
			if i == 0 {
				s["input"] = in
				msgs = append(msgs, in...)
			} else {
				msgs = append(msgs, in[len(in)-1:]...)
			}
			msgs = append(msgs, obj{"role": "assistant", "content": c.Answer, "model": inspectModel(c.Provider + ":" + c.Model), "source": "generate"})
			out := inspectOutput(c)
			events = append(events, obj{"event": "model", "timestamp": stamp(c.Made), "working_start": 0, "model": inspectModel(c.Provider + ":" + c.Model),
				"input": in, "tools": []obj{}, "tool_choice": "none", "config": generateConfig(c.Request), "output": out,
				"working_time": c.Latency.Seconds()})
			if c.Error != "" {
				events[len(events)-1]["error"] = c.Error
			}
			answer = c.Answer
			u[0], u[1], u[2] = u[0]+c.Usage.InputTokens, u[1]+c.Usage.OutputTokens, u[2]+c.Usage.ReasoningTokens
			k := inspectModel(c.Provider + ":" + c.Model)
			if total[k] == nil {
				total[k] = &[3]int64{}
			}
			total[k][0], total[k][1], total[k][2] = total[k][0]+c.Usage.InputTokens, total[k][1]+c.Usage.OutputTokens, total[k][2]+c.Usage.ReasoningTokens
		}
		if len(calls) == 0 {
			s["metadata"].(obj)["calls"] = "none: the item's outcome came from no model call"
		} else {
			s["model_usage"] = obj{model: usageObj(u)}
		}
		if msgs == nil {
			msgs = []obj{}
		}
		if events == nil {
			events = []obj{}
		}
		s["messages"], s["events"] = msgs, events
		s["output"] = obj{"model": model, "choices": []obj{{"message": obj{"role": "assistant", "content": answer}, "stop_reason": "stop"}}, "completion": answer}
		samples = append(samples, s)
	}
	usage := obj{}
	keys := make([]string, 0, len(total))
	for k := range total {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		usage[k] = usageObj(*total[k])
	}
	return samples, usage
}

func usageObj(u [3]int64) obj {
	o := obj{"input_tokens": u[0], "output_tokens": u[1], "total_tokens": u[0] + u[1]}
	if u[2] > 0 {
		o["reasoning_tokens"] = u[2]
	}
	return o
}

// inspectMessages are a request's messages as inspect's chat messages.
func inspectMessages(r llm.Request) []obj {
	var out []obj
	if r.System != "" {
		out = append(out, obj{"role": "system", "content": r.System, "source": "input"})
	}
	for _, m := range r.Messages {
		out = append(out, obj{"role": m.Role, "content": m.Content, "source": "input"})
	}
	return out
}

// inspectOutput is a call's answer as inspect's ModelOutput.
func inspectOutput(c Call) obj {
	stop := "stop"
	if c.Error != "" {
		stop = "unknown"
	}
	o := obj{"model": c.Model, "completion": c.Answer, "time": c.Latency.Seconds(),
		"choices": []obj{{"message": obj{"role": "assistant", "content": c.Answer, "source": "generate"}, "stop_reason": stop}},
		"usage":   usageObj([3]int64{c.Usage.InputTokens, c.Usage.OutputTokens, c.Usage.ReasoningTokens})}
	if c.Error != "" {
		o["error"] = c.Error
	}
	return o
}

// generateConfig is what a request set of inspect's GenerateConfig.
func generateConfig(r llm.Request) obj {
	o := obj{}
	if r.Temperature != nil {
		o["temperature"] = *r.Temperature
	}
	if r.MaxTokens > 0 {
		o["max_tokens"] = r.MaxTokens
	}
	if r.Seed != nil {
		o["seed"] = *r.Seed
	}
	if len(r.Stop) > 0 {
		o["stop_seqs"] = r.Stop
	}
	return o
}

// InspectEval writes each arm of the run as an inspect_ai log in its .eval
// form (<benchmark>_<model>_<run>.eval), the ZIP container inspect writes
// and its viewer reads by HTTP range requests: _journal/start.json (the
// log's version, eval and plan), samples/<id>_epoch_<n>.json one per
// sample, summaries.json (each sample's summary) and header.json (the
// log without its samples).
func InspectEval(r Run) ([]File, error) {
	var out []File
	for _, a := range r.Arms {
		log := inspectLog(r, a)
		data, err := evalZip(log)
		if err != nil {
			return nil, fmt.Errorf("run %d, %s: %w", r.ID, a.Model, err)
		}
		name := fmt.Sprintf("%s_%s_run%d.eval", slug(r.Benchmark), slug(a.Model), r.ID)
		out = append(out, File{Path: name, Data: data})
	}
	return out, nil
}

// evalZip is the .eval container of a log.
func evalZip(log obj) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	// Each member is deflated here and written raw, its sizes and CRC in
	// its local header: the viewer reads a member from its local header
	// (by range requests), and a streamed member's header says 0 bytes.
	put := func(name string, v any) error {
		body, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var z bytes.Buffer
		fw, err := flate.NewWriter(&z, flate.DefaultCompression)
		if err != nil {
			return err
		}
		if _, err := fw.Write(body); err != nil {
			return err
		}
		if err := fw.Close(); err != nil {
			return err
		}
		fh := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Unix(0, 0).UTC(),
			CRC32: crc32.ChecksumIEEE(body), CompressedSize64: uint64(z.Len()), UncompressedSize64: uint64(len(body))}
		w, err := zw.CreateRaw(fh)
		if err != nil {
			return err
		}
		_, err = w.Write(z.Bytes())
		return err
	}
	samples, _ := log["samples"].([]obj)
	header := obj{}
	for k, v := range log {
		if k != "samples" {
			header[k] = v
		}
	}
	start := obj{"version": log["version"], "eval": log["eval"], "plan": log["plan"]}
	if err := put("_journal/start.json", start); err != nil {
		return nil, err
	}
	var summaries []obj
	for _, s := range samples {
		if err := put(fmt.Sprintf("samples/%s_epoch_%d.json", s["id"], s["epoch"]), s); err != nil {
			return nil, err
		}
		sum := obj{"id": s["id"], "epoch": s["epoch"], "input": s["input"], "target": s["target"], "metadata": s["metadata"],
			"model_usage": s["model_usage"], "role_usage": s["role_usage"], "scores": s["scores"], "completed": true,
			"message_count": len(s["messages"].([]obj))}
		summaries = append(summaries, sum)
	}
	if summaries == nil {
		summaries = []obj{}
	}
	if err := put("summaries.json", summaries); err != nil {
		return nil, err
	}
	if err := put("header.json", header); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
