package inspectlog

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/fallacylab/fallacylab/bench"
	"github.com/fallacylab/fallacylab/runner"
)

// EEEName is the name of runs imported from Every Eval Ever results.
const EEEName = "eee-log"

// EEEDefinition registers imported Every Eval Ever results.
var EEEDefinition = &bench.Benchmark{
	Name:    EEEName,
	Title:   "Every Eval Ever results (imported)",
	Summary: "an Every Eval Ever evaluation (its aggregate and its instance-level file) imported as a run: each sample's scores",
	Phases:  []bench.Phase{{Name: "import"}},
}

// EEETask is the Task of runs imported from Every Eval Ever results
// (evaleval/every_eval_ever, the aggregate JSON and the instance-level
// JSONL beside it): the same records, listing, report and comparisons as
// an imported inspect log, read from another format.
type EEETask struct{ Task }

// Definition implements bench.Task.
func (EEETask) Definition() *bench.Benchmark { return EEEDefinition }

// ImportFormat implements bench.Imports.
func (EEETask) ImportFormat() string { return "eee" }

// Import implements bench.Imports: the aggregate file (or the instance
// file) and the other beside it become the run's records.
func (EEETask) Import(_ context.Context, env bench.Env, file string) (runner.Spec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return runner.Spec{}, err
	}
	h, samples, err := ReadEEE(file, data, os.ReadFile)
	if err != nil {
		return runner.Spec{}, err
	}
	return importSpec(env, file, data, h, samples), nil
}

var (
	_ bench.Imports    = EEETask{}
	_ bench.ComparesAs = EEETask{}
	_                  = bench.RegisterTask(EEETask{})
)

// eeeAggregate is what the import reads of an EEE aggregate file.
type eeeAggregate struct {
	EvaluationID string `json:"evaluation_id"`
	Timestamp    string `json:"evaluation_timestamp"`
	ModelInfo    struct {
		Name string `json:"name"`
		ID   string `json:"id"`
	} `json:"model_info"`
	Library struct {
		Name string `json:"name"`
	} `json:"eval_library"`
	Results []struct {
		Name         string `json:"evaluation_name"`
		MetricConfig struct {
			MetricName string `json:"metric_name"`
			// MetricKind is fallacylab's export's "proportion" or "mean".
			MetricKind string `json:"metric_kind"`
		} `json:"metric_config"`
		SourceData struct {
			DatasetName string            `json:"dataset_name"`
			Details     map[string]string `json:"additional_details"`
		} `json:"source_data"`
		ScoreDetails struct {
			Details map[string]string `json:"details"`
		} `json:"score_details"`
	} `json:"evaluation_results"`
	Detailed *eeeDetailed `json:"detailed_evaluation_results"`
}

// eeeDetailed is the aggregate's reference to its instance-level file:
// where it is, and what it must hold (its checksum, its rows).
type eeeDetailed struct {
	FilePath  string `json:"file_path"`
	Hash      string `json:"hash_algorithm"`
	Checksum  string `json:"checksum"`
	TotalRows *int   `json:"total_rows"`
}

// check is an error where the instance-level file inst (named name) is not
// the one the aggregate describes: another checksum (of the hash it
// names, sha256 or md5), or another number of rows.
func (d *eeeDetailed) check(name string, inst []byte) error {
	if d == nil {
		return nil
	}
	var sum string
	switch strings.ToLower(d.Hash) {
	case "sha256":
		b := sha256.Sum256(inst)
		sum = hex.EncodeToString(b[:])
	case "md5":
		b := md5.Sum(inst)
		sum = hex.EncodeToString(b[:])
	}
	if d.Checksum != "" && sum != "" && !strings.EqualFold(sum, d.Checksum) {
		return fmt.Errorf("%s: its %s is %s, where the aggregate says %s: it is not the file the aggregate was written with (changed or cut short since)", name, strings.ToLower(d.Hash), sum, d.Checksum)
	}
	if d.TotalRows != nil {
		rows := bytes.Count(inst, []byte{'\n'})
		if len(inst) > 0 && inst[len(inst)-1] != '\n' {
			rows++
		}
		if rows != *d.TotalRows {
			return fmt.Errorf("%s: %d rows, where the aggregate says %d (total_rows): it is not the file the aggregate was written with", name, rows, *d.TotalRows)
		}
	}
	return nil
}

// outcomeMethod begins the extraction method fallacylab's export writes
// where its extracted value is the item's outcome, not a parsed answer
// (export.instance).
const outcomeMethod = "the benchmark's own parser and scorer"

// eeeInstance is what the import reads of one instance-level line.
type eeeInstance struct {
	SampleID       json.RawMessage `json:"sample_id"`
	EvaluationName string          `json:"evaluation_name"`
	ModelID        string          `json:"model_id"`
	Input          struct {
		Raw json.RawMessage `json:"raw"`
	} `json:"input"`
	Output struct {
		Raw json.RawMessage `json:"raw"`
	} `json:"output"`
	Attribution []struct {
		Extracted string `json:"extracted_value"`
		Method    string `json:"extraction_method"`
	} `json:"answer_attribution"`
	Evaluation *struct {
		Score *float64 `json:"score"`
	} `json:"evaluation"`
	Metadata map[string]json.RawMessage `json:"metadata"`
}

// ReadEEE reads Every Eval Ever results: name is the aggregate JSON (its
// instance-level file read through open, beside it) or the instance-level
// JSONL itself (the aggregate beside it read when there, for the metrics'
// names and what the evaluation is of). A sample's scores are its lines'
// evaluation.score by metric; its cluster is metadata.cluster where every
// line has one.
func ReadEEE(name string, data []byte, open func(string) ([]byte, error)) (Header, []Sample, error) {
	var agg *eeeAggregate
	instName, inst := name, data
	if strings.HasSuffix(name, ".jsonl") {
		if b, err := open(strings.TrimSuffix(name, "_samples.jsonl") + ".json"); err == nil {
			agg = &eeeAggregate{}
			if err := json.Unmarshal(b, agg); err != nil {
				return Header{}, nil, fmt.Errorf("%s: the aggregate beside it: %w", name, err)
			}
		}
	} else {
		agg = &eeeAggregate{}
		if err := json.Unmarshal(data, agg); err != nil {
			return Header{}, nil, fmt.Errorf("%s: not Every Eval Ever results (an aggregate JSON): %w", name, err)
		}
		if len(agg.Results) == 0 {
			return Header{}, nil, fmt.Errorf("%s: no evaluation_results: not Every Eval Ever results", name)
		}
		instName = strings.TrimSuffix(name, ".json") + "_samples.jsonl"
		if agg.Detailed != nil && agg.Detailed.FilePath != "" {
			instName = filepath.Join(filepath.Dir(name), path.Base(agg.Detailed.FilePath))
		}
		var err error
		if inst, err = open(instName); err != nil {
			return Header{}, nil, fmt.Errorf("%s: its instance-level file, which item-by-item figures need: %w", name, err)
		}
	}
	if agg != nil {
		if err := agg.Detailed.check(instName, inst); err != nil {
			return Header{}, nil, err
		}
	}
	h := Header{File: filepath.Base(name), Format: "eee", Status: "success"}
	metricOf := map[string]string{}
	if agg != nil {
		h.Model, h.Created, h.Task = cmp.Or(agg.ModelInfo.ID, agg.ModelInfo.Name), agg.Timestamp, agg.EvaluationID
		for _, r := range agg.Results {
			m := cmp.Or(r.MetricConfig.MetricName, r.Name)
			metricOf[r.Name] = m
			h.Scorers = append(h.Scorers, m)
			if r.MetricConfig.MetricKind == "mean" {
				h.NotRates = append(h.NotRates, m)
			}
			if b := r.SourceData.Details["benchmark"]; b != "" && agg.Library.Name == "fallacylab" {
				h.Of, h.Task = b, "fallacylab/"+b
				// "missciplus subtask 1 P@1": the benchmark, the design, the metric
				h.Design = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(r.Name, b+" "), m))
			}
			h.Unit = cmp.Or(h.Unit, r.ScoreDetails.Details["unit"])
		}
	}
	samples, err := eeeSamples(instName, inst, metricOf, &h)
	if err != nil {
		return Header{}, nil, err
	}
	h.Samples = len(samples)
	return h, samples, nil
}

// eeeSamples reads the instance-level lines into samples, in the order
// their ids first appear; an error names the file, the line and the field.
func eeeSamples(name string, data []byte, metricOf map[string]string, h *Header) ([]Sample, error) {
	var out []Sample
	at := map[string]int{}
	clustered := true
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var x eeeInstance
		if err := json.Unmarshal(line, &x); err != nil {
			return nil, fmt.Errorf("%s line %d: not valid JSON: %w", name, n, err)
		}
		id := scalar(x.SampleID)
		switch {
		case id == "" || id == "null":
			return nil, fmt.Errorf("%s line %d: field sample_id: missing", name, n)
		case x.EvaluationName == "":
			return nil, fmt.Errorf("%s line %d: field evaluation_name: missing", name, n)
		case x.Evaluation == nil || x.Evaluation.Score == nil:
			return nil, fmt.Errorf("%s line %d: field evaluation.score: missing", name, n)
		}
		h.Model = cmp.Or(h.Model, x.ModelID)
		i, seen := at[id]
		if !seen {
			i, at[id] = len(out), len(out)
			s := Sample{ID: id, Epoch: 1, Input: rawText(x.Input.Raw), Answer: rawText(x.Output.Raw), Scores: map[string]float64{}}
			// Else the answer extracted from it — unless fallacylab's export
			// says the value is the scorer's outcome (a benchmark that
			// parses no answer: DeflectBench's judges).
			if a := x.Attribution; s.Answer == "" && len(a) > 0 && !strings.HasPrefix(a[0].Method, outcomeMethod) {
				s.Answer = a[0].Extracted
			}
			out = append(out, s)
		}
		metric := cmp.Or(metricOf[x.EvaluationName], x.EvaluationName)
		if _, dup := out[i].Scores[metric]; dup {
			return nil, fmt.Errorf("%s line %d: sample %s has a second %s", name, n, id, metric)
		}
		out[i].Scores[metric] = *x.Evaluation.Score
		cluster := scalar(x.Metadata["cluster"])
		switch {
		case cluster == "" || cluster == "null":
			clustered = false
		case out[i].Cluster != "" && out[i].Cluster != cluster:
			return nil, fmt.Errorf("%s line %d: field metadata.cluster: %q, where sample %s's other lines say %q", name, n, cluster, id, out[i].Cluster)
		default:
			out[i].Cluster = cluster
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no instance: nothing to import", name)
	}
	if clustered {
		h.ClusterBy = "cluster"
	} else {
		for i := range out {
			out[i].Cluster = ""
		}
		h.Unit = ""
	}
	return out, nil
}

// rawText is an input's or output's raw value as text: a string, or a
// list of strings joined by newlines.
func rawText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(v, &list) == nil {
		return strings.Join(list, "\n")
	}
	return ""
}
