package inspectlog

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// rawLog is what the import reads of an inspect EvalLog.
type rawLog struct {
	Status string `json:"status"`
	Eval   struct {
		Task    string `json:"task"`
		Model   string `json:"model"`
		Created string `json:"created"`
		Scorers []struct {
			Name string `json:"name"`
		} `json:"scorers"`
		// Metadata is what fallacylab's export says of the run (none in
		// other tools' logs).
		Metadata struct {
			Design string   `json:"fallacylab_design"`
			Judges []string `json:"judges"`
		} `json:"metadata"`
	} `json:"eval"`
	Results struct {
		Scores []struct {
			Name string `json:"name"`
			// Metadata.Rate is whether fallacylab's export called the
			// score a rate (absent in other tools' logs).
			Metadata struct {
				Rate *bool `json:"rate"`
			} `json:"metadata"`
			Metrics map[string]struct {
				Name   string                     `json:"name"`
				Params map[string]json.RawMessage `json:"params"`
			} `json:"metrics"`
		} `json:"scores"`
	} `json:"results"`
	Samples []rawSample `json:"samples"`
}

// clusterField is the sample metadata field a log clusters its samples
// by: the one its stderr metric names (inspect's stderr(cluster=…)), else
// "cluster" where every sample's metadata has it (fallacylab's export
// writes the claim, text or argument there); "" where the log names none.
func clusterField(log rawLog) string {
	for _, sc := range log.Results.Scores {
		for _, m := range sc.Metrics {
			if m.Name != "stderr" {
				continue
			}
			if f := scalar(m.Params["cluster"]); f != "" && f != "null" {
				return f
			}
		}
	}
	for _, s := range log.Samples {
		if _, ok := s.Metadata["cluster"]; !ok {
			return ""
		}
	}
	return "cluster"
}

// rawSample is what the import reads of an inspect EvalSample.
type rawSample struct {
	ID     json.RawMessage `json:"id"`
	Epoch  int             `json:"epoch"`
	Input  json.RawMessage `json:"input"`
	Target json.RawMessage `json:"target"`
	Output struct {
		Completion string `json:"completion"`
		Choices    []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	} `json:"output"`
	Scores map[string]struct {
		Value json.RawMessage `json:"value"`
	} `json:"scores"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Events   []json.RawMessage          `json:"events"`
	Metadata map[string]json.RawMessage `json:"metadata"`
}

// Read reads an inspect log, in its JSON form or its .eval container
// (name says which, and names the file in errors).
func Read(name string, data []byte) (Header, []Sample, error) {
	var log rawLog
	var err error
	if strings.HasSuffix(name, ".eval") {
		log, err = readEval(name, data)
	} else if err = json.Unmarshal(data, &log); err != nil {
		err = fmt.Errorf("%s: not an inspect log in its JSON form: %w", name, err)
	}
	if err != nil {
		return Header{}, nil, err
	}
	if log.Eval.Task == "" && log.Eval.Model == "" {
		return Header{}, nil, fmt.Errorf("%s: no eval.task or eval.model: not an inspect log", name)
	}
	h := Header{File: path.Base(name), Task: log.Eval.Task, Model: log.Eval.Model, Status: log.Status, Created: log.Eval.Created,
		Design: log.Eval.Metadata.Design, Judges: log.Eval.Metadata.Judges}
	h.Of, _ = strings.CutPrefix(log.Eval.Task, "fallacylab/")
	for _, s := range log.Eval.Scorers {
		h.Scorers = append(h.Scorers, s.Name)
	}
	for _, sc := range log.Results.Scores {
		if sc.Metadata.Rate != nil && !*sc.Metadata.Rate {
			h.NotRates = append(h.NotRates, sc.Name)
		}
	}
	var out []Sample
	events := 0
	dropped := map[string]bool{}
	h.ClusterBy = clusterField(log)
	h.Unit = h.ClusterBy // fallacylab's export names the field after the unit
	for i, r := range log.Samples {
		s, err := sampleOf(r, dropped)
		if err != nil {
			return Header{}, nil, fmt.Errorf("%s: samples[%d]: %w", name, i, err)
		}
		if h.ClusterBy != "" {
			if s.Cluster = scalar(r.Metadata[h.ClusterBy]); s.Cluster == "" || s.Cluster == "null" {
				return Header{}, nil, fmt.Errorf("%s: samples[%d] (id %s): metadata.%s: missing, where the log's stderr clusters by it", name, i, s.ID, h.ClusterBy)
			}
		}
		events += len(r.Events)
		out = append(out, s)
	}
	if len(out) == 0 {
		return Header{}, nil, fmt.Errorf("%s: the log has no samples: nothing to import", name)
	}
	for k := range dropped {
		h.Dropped = append(h.Dropped, k)
	}
	if events > 0 {
		h.Dropped = append(h.Dropped, fmt.Sprintf("%d events (model calls and the transcript)", events))
	}
	slices.Sort(h.Dropped)
	h.Samples = len(out)
	return h, out, nil
}

// readEval reads the .eval container: its header and its samples, in
// the order of its summaries.
func readEval(name string, data []byte) (rawLog, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return rawLog{}, fmt.Errorf("%s: not an inspect .eval container: %w", name, err)
	}
	member := func(n string, v any) (bool, error) {
		f, err := zr.Open(n)
		if err != nil {
			return false, nil
		}
		defer f.Close()
		if err := json.NewDecoder(f).Decode(v); err != nil {
			return true, fmt.Errorf("%s: %s: %w", name, n, err)
		}
		return true, nil
	}
	var log rawLog
	ok, err := member("header.json", &log)
	if err == nil && !ok {
		ok, err = member("_journal/start.json", &log) // a log still being written
	}
	if err != nil {
		return rawLog{}, err
	}
	if !ok {
		return rawLog{}, fmt.Errorf("%s: no header.json: not an inspect .eval container", name)
	}
	var names []string
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "samples/") && strings.HasSuffix(f.Name, ".json") {
			names = append(names, f.Name)
		}
	}
	var sums []struct {
		ID    json.RawMessage `json:"id"`
		Epoch int             `json:"epoch"`
	}
	if ok, err := member("summaries.json", &sums); err != nil {
		return rawLog{}, err
	} else if ok {
		order := map[string]int{}
		for i, s := range sums {
			order[fmt.Sprintf("samples/%s_epoch_%d.json", scalar(s.ID), s.Epoch)] = i
		}
		slices.SortStableFunc(names, func(a, b string) int { return order[a] - order[b] })
	}
	for _, n := range names {
		var s rawSample
		if _, err := member(n, &s); err != nil {
			return rawLog{}, err
		}
		log.Samples = append(log.Samples, s)
	}
	return log, nil
}

// sampleOf is one sample as the run keeps it; what it cannot keep is
// named in dropped.
func sampleOf(r rawSample, dropped map[string]bool) (Sample, error) {
	s := Sample{ID: scalar(r.ID), Epoch: max(r.Epoch, 1), Answer: r.Output.Completion, Scores: map[string]float64{}}
	if s.Answer == "" && len(r.Output.Choices) > 0 && len(r.Output.Choices[0].Message.Content) > 0 {
		// inspect computes completion from the first choice and writes it
		// to no log it makes itself (our own export writes both)
		s.Answer = contentText(r.Output.Choices[0].Message.Content)
	}
	if s.ID == "" {
		return s, fmt.Errorf("id: missing")
	}
	s.Input = textOf(r.Input)
	s.Target = textOf(r.Target)
	if r.Error != nil {
		s.Error = r.Error.Message
	}
	for name, sc := range r.Scores {
		var parts map[string]json.RawMessage
		if json.Unmarshal(sc.Value, &parts) != nil {
			s.addScore(name, sc.Value, dropped)
			continue
		}
		// A scorer of several values (inspect's dict-valued Score): a
		// score each, named scorer/key.
		for key, v := range parts {
			s.addScore(name+"/"+key, v, dropped)
		}
	}
	return s, nil
}

// addScore adds score name of value v to the sample, or names in dropped
// a value that is not a score.
func (s *Sample) addScore(name string, v json.RawMessage, dropped map[string]bool) {
	x, raw, ok := scoreValue(v)
	if !ok {
		dropped[fmt.Sprintf("score %s: values that are not a number, a boolean or C/I/P/N (%s)", name, raw)] = true
		return
	}
	s.Scores[name] = x
	if raw != strconv.FormatFloat(x, 'g', -1, 64) {
		if s.Raw == nil {
			s.Raw = map[string]string{}
		}
		s.Raw[name] = raw
	}
}

// scoreValue reads a score's value as a number: inspect's CORRECT,
// INCORRECT, PARTIAL and NOANSWER (C, I, P, N) as 1, 0, 0.5 and 0, a
// boolean as 1 or 0.
func scoreValue(v json.RawMessage) (float64, string, bool) {
	raw := strings.TrimSpace(string(v))
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return 0, raw, false
	}
	switch t := x.(type) {
	case float64:
		return t, raw, true
	case bool:
		if t {
			return 1, raw, true
		}
		return 0, raw, true
	case string:
		switch t {
		case "C":
			return 1, t, true
		case "I", "N":
			return 0, t, true
		case "P":
			return 0.5, t, true
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return f, t, true
		}
	}
	return 0, raw, false
}

// scalar is a JSON string or number as text.
func scalar(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(v))
}

// textOf is an input or target as text: a string as is, chat messages as
// their contents (role: content), a list of strings joined by " | ".
func textOf(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(v, &list) == nil {
		return strings.Join(list, " | ")
	}
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(v, &msgs) == nil {
		var parts []string
		for _, m := range msgs {
			parts = append(parts, m.Role+": "+contentText(m.Content))
		}
		return strings.Join(parts, "\n\n")
	}
	return string(v)
}

// contentText is a message's content as text: a string, or its text parts.
func contentText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(v, &parts) == nil {
		var out []string
		for _, p := range parts {
			if p.Type == "text" {
				out = append(out, p.Text)
			}
		}
		return strings.Join(out, "\n")
	}
	return string(v)
}

func itoa(n int) string { return strconv.Itoa(n) }
