package study

import (
	"cmp"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
	"time"
)

// An export writes a study's answers for the tools researchers take them
// to: a long table for their own analysis, Label Studio's task import
// and Argilla's records. Unlike a coding sheet, an export is the
// analyst's: it names each item's key, whether it is a decoy, and what
// the annotators were not shown.

// LongColumns are the columns of the long export, before one column per
// hidden field ("hidden:NAME", sorted).
var LongColumns = []string{"study", "annotator", "item", "item_key", "decoy", "question", "answer", "known", "skipped", "comment", "saved_at"}

// Long is the long export: a row per annotator, item and question
// answered (a skipped item: one row, question and answer empty), in the
// study's order of annotators and each annotator's queue, then the
// adjudicated gold answers (annotator "#adjudicator", by item), then the
// hidden fields' columns; the header first.
func Long(s Study, anns []Annotation) [][]string {
	hidden := hiddenNames(s)
	header := append([]string(nil), LongColumns...)
	for _, h := range hidden {
		header = append(header, "hidden:"+h)
	}
	rows := [][]string{header}
	got := latest(anns)
	num := map[string]int{}
	for i, it := range s.Items {
		num[it.Key] = i + 1
	}
	for _, a := range s.Annotators {
		for _, k := range a.Order {
			x, ok := got[[2]string{a.Name, k}]
			if !ok {
				continue
			}
			it, _ := s.Item(k)
			base := func(q, v string) []string {
				row := []string{fmt.Sprint(s.ID), a.Name, fmt.Sprint(num[k]), k, fmt.Sprint(it.Decoy), q, v, it.Known[q], fmt.Sprint(x.Skipped), x.Comment, x.At.UTC().Format(time.RFC3339Nano)}
				for _, h := range hidden {
					row = append(row, it.Hidden[h])
				}
				return row
			}
			if x.Skipped {
				rows = append(rows, base("", ""))
				continue
			}
			for _, q := range s.Questions {
				if v := x.Answers[q.ID]; v != "" {
					rows = append(rows, base(q.ID, v))
				}
			}
		}
	}
	gold := index(anns)
	for _, it := range s.Items {
		g := gold[it.Key][Adjudicator]
		for _, q := range s.Questions {
			if v := g[q.ID]; v != "" {
				row := []string{fmt.Sprint(s.ID), Adjudicator, fmt.Sprint(num[it.Key]), it.Key, fmt.Sprint(it.Decoy), q.ID, v, it.Known[q.ID], "false", "", ""}
				for _, h := range hidden {
					row = append(row, it.Hidden[h])
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

// latest is each annotator's latest answer to each item (adjudications
// left out: they are no annotator's).
func latest(anns []Annotation) map[[2]string]Annotation {
	got := map[[2]string]Annotation{}
	for _, a := range anns {
		k := [2]string{a.Annotator, a.Item}
		if a.Annotator == Adjudicator {
			continue
		}
		if p, ok := got[k]; !ok || !a.At.Before(p.At) {
			got[k] = a
		}
	}
	return got
}

func hiddenNames(s Study) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range s.Items {
		for h := range it.Hidden {
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	sort.Strings(out)
	return out
}

// labelStudioTask is one task of Label Studio's JSON import: the item's
// data and each annotator's answers as an annotation.
type labelStudioTask struct {
	ID          int                     `json:"id"`
	Data        map[string]string       `json:"data"`
	Annotations []labelStudioAnnotation `json:"annotations"`
	Meta        map[string]string       `json:"meta,omitempty"`
}

type labelStudioAnnotation struct {
	CompletedBy string              `json:"completed_by"`
	CreatedAt   string              `json:"created_at"`
	WasCanceled bool                `json:"was_cancelled"`
	Result      []labelStudioResult `json:"result"`
}

type labelStudioResult struct {
	FromName string              `json:"from_name"`
	ToName   string              `json:"to_name"`
	Type     string              `json:"type"`
	Value    map[string][]string `json:"value"`
}

// LabelStudio is the study as Label Studio's task import (a JSON list of
// tasks, each with its data — text, context — and an annotation per
// annotator whose result picks the choice of each question by its key, as
// the study stores it; a skipped
// item is a cancelled annotation), and the labelling config the project
// needs for it (LabelStudioConfig).
func LabelStudio(s Study, anns []Annotation) ([]byte, error) {
	got := latest(anns)
	var tasks []labelStudioTask
	for i, it := range s.Items {
		// The item's key names what the annotators must not see (its
		// model, frame, fallacy): it goes in the task's meta, which Label
		// Studio keeps and never shows, not in its data, whose every
		// field its task list shows to the annotators.
		t := labelStudioTask{ID: i + 1, Data: map[string]string{"text": it.Text, "context": it.Context},
			Annotations: []labelStudioAnnotation{}, Meta: map[string]string{"item_key": it.Key, "decoy": fmt.Sprint(it.Decoy)}}
		for h, v := range it.Hidden {
			t.Meta["hidden:"+h] = v
		}
		for _, a := range s.Annotators {
			x, ok := got[[2]string{a.Name, it.Key}]
			if !ok {
				continue
			}
			ann := labelStudioAnnotation{CompletedBy: a.Name, CreatedAt: x.At.UTC().Format(time.RFC3339), WasCanceled: x.Skipped, Result: []labelStudioResult{}}
			for _, q := range s.Questions {
				switch v := x.Answers[q.ID]; {
				case v == "" || x.Skipped:
				case q.Type == FreeText:
					ann.Result = append(ann.Result, labelStudioResult{FromName: q.ID, ToName: "text", Type: "textarea", Value: map[string][]string{"text": {v}}})
				case q.Type == Multi:
					ann.Result = append(ann.Result, labelStudioResult{FromName: q.ID, ToName: "text", Type: "choices", Value: map[string][]string{"choices": q.Picks(v)}})
				default:
					ann.Result = append(ann.Result, labelStudioResult{FromName: q.ID, ToName: "text", Type: "choices", Value: map[string][]string{"choices": {v}}})
				}
			}
			t.Annotations = append(t.Annotations, ann)
		}
		tasks = append(tasks, t)
	}
	return json.MarshalIndent(tasks, "", " ")
}

// LabelStudioConfig is the labelling config of a Label Studio project
// that takes LabelStudio's tasks: the context and text, then a choice per
// question, each choice shown by its label with its key as the alias the
// results store (Label Studio's Choice alias), as the study stores it.
func LabelStudioConfig(s Study) (string, error) {
	type choice struct {
		Value string `xml:"value,attr"`
		Alias string `xml:"alias,attr,omitempty"`
	}
	type choices struct {
		Name    string   `xml:"name,attr"`
		ToName  string   `xml:"toName,attr"`
		Choice  string   `xml:"choice,attr"`
		Header  string   `xml:"-"`
		Choices []choice `xml:"Choice"`
	}
	type header struct {
		Value string `xml:"value,attr"`
	}
	type text struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	type view struct {
		XMLName xml.Name `xml:"View"`
		Items   []any
	}
	v := view{Items: []any{struct {
		XMLName xml.Name `xml:"Text"`
		text
	}{text: text{Name: "context", Value: "$context"}}, struct {
		XMLName xml.Name `xml:"Text"`
		text
	}{text: text{Name: "text", Value: "$text"}}}}
	type textArea struct {
		XMLName xml.Name `xml:"TextArea"`
		Name    string   `xml:"name,attr"`
		ToName  string   `xml:"toName,attr"`
	}
	for _, q := range s.Questions {
		if q.Type == FreeText {
			v.Items = append(v.Items, struct {
				XMLName xml.Name `xml:"Header"`
				header
			}{header: header{Value: headerOf(q)}}, textArea{Name: q.ID, ToName: "text"})
			continue
		}
		c := choices{Name: q.ID, ToName: "text", Choice: "single"}
		if q.Type == Multi {
			c.Choice = "multiple"
		}
		for _, ch := range q.Choices {
			c.Choices = append(c.Choices, choice{Value: cmp.Or(ch.Label, ch.Key), Alias: ch.Key})
		}
		v.Items = append(v.Items, struct {
			XMLName xml.Name `xml:"Header"`
			header
		}{header: header{Value: headerOf(q)}}, struct {
			XMLName xml.Name `xml:"Choices"`
			choices
		}{choices: c})
	}
	b, err := xml.MarshalIndent(v, "", "  ")
	return string(b) + "\n", err
}

// argillaRecord is one record as Argilla 2 writes and reads them
// (Record.to_dict): fields, metadata and, per question, the responses.
type argillaRecord struct {
	ID        string                       `json:"id"`
	Fields    map[string]string            `json:"fields"`
	Metadata  map[string]string            `json:"metadata"`
	Responses map[string][]argillaResponse `json:"responses"`
	Status    string                       `json:"status"`
}

type argillaResponse struct {
	Value  any    `json:"value"` // a string; a multi question's: its picks (Argilla's MultiLabelQuestion)
	UserID string `json:"user_id"`
	Status string `json:"status"`
}

// Argilla is the study as Argilla 2 records, one JSON object per line:
// the item's text and context as fields, its key, decoy mark and hidden
// fields as metadata, and each annotator's answer to each question as a
// submitted response (a skipped item: a discarded one, without value).
func Argilla(s Study, anns []Annotation) ([]byte, error) {
	got := latest(anns)
	var b strings.Builder
	for i, it := range s.Items {
		r := argillaRecord{ID: fmt.Sprint(i + 1), Fields: map[string]string{"text": it.Text, "context": it.Context},
			Metadata: map[string]string{"item_key": it.Key, "decoy": fmt.Sprint(it.Decoy)}, Responses: map[string][]argillaResponse{}, Status: "pending"}
		for h, v := range it.Hidden {
			r.Metadata["hidden:"+h] = v
		}
		for _, a := range s.Annotators {
			x, ok := got[[2]string{a.Name, it.Key}]
			if !ok {
				continue
			}
			r.Status = "completed"
			for _, q := range s.Questions {
				switch v := x.Answers[q.ID]; {
				case x.Skipped:
					r.Responses[q.ID] = append(r.Responses[q.ID], argillaResponse{UserID: a.Name, Status: "discarded"})
				case v != "" && q.Type == Multi:
					r.Responses[q.ID] = append(r.Responses[q.ID], argillaResponse{Value: q.Picks(v), UserID: a.Name, Status: "submitted"})
				case v != "":
					r.Responses[q.ID] = append(r.Responses[q.ID], argillaResponse{Value: v, UserID: a.Name, Status: "submitted"})
				}
			}
		}
		line, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String()), nil
}

// headerOf is a question as a Label Studio header: its text, or its id.
func headerOf(q Question) string {
	if q.Text != "" {
		return q.Text
	}
	return q.ID
}
