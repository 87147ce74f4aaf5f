package mafalda

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/fallacylab/fallacylab/decode"
)

// GoldFile is the gold standard's path in the data folder (the corpus
// states no licence: it is read there, never embedded).
const GoldFile = "mafalda/gold_standard_dataset.jsonl"

// Load reads the gold standard's 200 texts from the data folder.
func Load(data fs.FS) ([]Text, error) {
	if data == nil {
		return nil, fmt.Errorf("MAFALDA's gold standard is not embedded (its licence is not stated): put %s in the data folder (--data-dir)", GoldFile)
	}
	f, err := data.Open(GoldFile)
	if err != nil {
		return nil, fmt.Errorf("MAFALDA's gold standard: %w (put ChadiHelwe/MAFALDA's datasets/gold_standard_dataset.jsonl at %s in the data folder)", err, GoldFile)
	}
	defer f.Close()
	var out []Text
	err = jsonLines(f, func(line int, b []byte) error {
		var t Text
		if err := json.Unmarshal(b, &t); err != nil {
			return decode.Explain(err, t)
		}
		if _, err := GoldSpans(t); err != nil {
			return err
		}
		out = append(out, t)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", GoldFile, err)
	}
	return out, nil
}

// jsonLines calls fn with each non-blank line, naming the line of an error.
func jsonLines(r io.Reader, fn func(line int, b []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<26)
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			b = decode.StripBOM(b)
		}
		if len(b) == 0 {
			continue
		}
		if err := fn(n, b); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}

// Prediction is one text of upstream's results files
// (results/<model>_level_<L>_results.jsonl): the text and each sentence's
// answer, in the order asked.
type Prediction struct {
	Text    string
	Answers []SentenceAnswer
}

// SentenceAnswer is a sentence and the model's raw answer about it.
type SentenceAnswer struct{ Sentence, Output string }

// ReadPredictions reads an upstream results file, keeping each text's
// sentences in their order (a JSON object's, as Python's json keeps it).
func ReadPredictions(r io.Reader) ([]Prediction, error) {
	var out []Prediction
	err := jsonLines(r, func(_ int, b []byte) error {
		var p struct {
			Text       string          `json:"text"`
			Prediction json.RawMessage `json:"prediction"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			return decode.Explain(err, p)
		}
		answers, err := orderedStrings(p.Prediction)
		if err != nil {
			return fmt.Errorf("field prediction: %w", err)
		}
		out = append(out, Prediction{Text: p.Text, Answers: answers})
		return nil
	})
	return out, err
}

// orderedStrings reads a JSON object of strings in its order; a key given
// twice keeps its first place and its last value, as Python's dict.
func orderedStrings(raw json.RawMessage) ([]SentenceAnswer, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("want an object of sentence: answer")
	}
	var out []SentenceAnswer
	at := map[string]int{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v *string
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("sentence %q: %w", kt, err)
		}
		k, _ := kt.(string)
		val := ""
		if v != nil {
			val = *v
		}
		if i, ok := at[k]; ok {
			out[i].Output = val
			continue
		}
		at[k] = len(out)
		out = append(out, SentenceAnswer{k, val})
	}
	return out, nil
}
