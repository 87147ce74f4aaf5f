package cli_test

import (
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStudyExportsForOtherTools (#27 item 22): a study's answers exported
// in long format (a row per answer, with the item's key and hidden
// fields), as Label Studio tasks with their labelling config, and as
// Argilla records hold every answer the annotators gave — each under its
// annotator, item and question — and a skipped item as skipped.
func TestStudyExportsForOtherTools(t *testing.T) {
	dir := rubricStudy(t, "--fields", "refusal,WA_present", "--n", "3", "--annotators", "ana,ben")
	// ana answers her queue (the first item skipped), ben nothing, through a sheet.
	_, recs := exportSheet(t, dir, "1")
	want := map[string]string{} // item number|question → answer
	skipped := ""
	for i, r := range recs[1:] {
		if r[0] != "ana" {
			continue
		}
		if skipped == "" {
			skipped, r[8] = r[1], "skipped"
		} else {
			r[5], r[6], r[8] = []string{"1", "0"}[i%2], "0", "answered"
			want[r[1]+"|refusal"], want[r[1]+"|WA_present"] = r[5], r[6]
		}
		recs[i+1] = r
	}
	if out, stderr, err := importRows(t, dir, "ana.csv", recs); err != nil {
		t.Fatalf("%v %s\n%s", err, out, stderr)
	}

	long, _, err := runCLI(t, dir, "study", "export", "1", "--format", "long")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(long)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	for _, c := range []string{"annotator", "item", "item_key", "question", "answer", "skipped", "hidden:model"} {
		if _, ok := col[c]; !ok {
			t.Fatalf("the long export lacks the column %s: %v", c, rows[0])
		}
	}
	got := map[string]string{}
	for _, r := range rows[1:] {
		if r[col["annotator"]] != "ana" || r[col["hidden:model"]] != "m-one" || r[col["item_key"]] == "" {
			t.Fatalf("row %v", r)
		}
		if r[col["skipped"]] == "true" {
			if r[col["item"]] != skipped {
				t.Fatalf("item %s exported as skipped, want %s", r[col["item"]], skipped)
			}
			continue
		}
		got[r[col["item"]]+"|"+r[col["question"]]] = r[col["answer"]]
	}
	if len(got) != len(want) {
		t.Fatalf("long export: %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("long export %s = %q, want %q", k, got[k], v)
		}
	}

	ls := filepath.Join(dir, "ls")
	if _, stderr, err := runCLI(t, dir, "study", "export", "1", "--format", "label-studio", "--out-dir", ls); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var tasks []struct {
		ID          int               `json:"id"`
		Data        map[string]string `json:"data"`
		Meta        map[string]string `json:"meta"`
		Annotations []struct {
			CompletedBy string `json:"completed_by"`
			Cancelled   bool   `json:"was_cancelled"`
			Result      []struct {
				FromName string              `json:"from_name"`
				ToName   string              `json:"to_name"`
				Type     string              `json:"type"`
				Value    map[string][]string `json:"value"`
			} `json:"result"`
		} `json:"annotations"`
	}
	b, _ := os.ReadFile(filepath.Join(ls, "study-1-label-studio.json"))
	if err := json.Unmarshal(b, &tasks); err != nil {
		t.Fatal(err)
	}
	lsGot := map[string]string{}
	for _, task := range tasks {
		if task.Data["text"] == "" {
			t.Fatalf("task %d has no text", task.ID)
		}
		// #41 item 14: the key names the model and frame: never in the
		// data Label Studio shows the annotators.
		if _, shown := task.Data["item_key"]; shown || task.Meta["item_key"] == "" {
			t.Fatalf("task %d: the item key is shown (data %v) or lost (meta %v)", task.ID, task.Data, task.Meta)
		}
		for _, a := range task.Annotations {
			if a.CompletedBy != "ana" {
				t.Fatalf("an annotation by %q", a.CompletedBy)
			}
			if a.Cancelled != (strconv.Itoa(task.ID) == skipped) {
				t.Fatalf("task %d: cancelled %v", task.ID, a.Cancelled)
			}
			for _, r := range a.Result {
				if r.ToName != "text" || r.Type != "choices" {
					t.Fatalf("task %d: a result %+v", task.ID, r)
				}
				lsGot[strconv.Itoa(task.ID)+"|"+r.FromName] = r.Value["choices"][0]
			}
		}
	}
	if len(lsGot) != len(want) {
		t.Fatalf("Label Studio: %v, want %v", lsGot, want)
	}
	for k, v := range want {
		if lsGot[k] != v {
			t.Fatalf("Label Studio %s = %q, want %q", k, lsGot[k], v)
		}
	}
	var view struct {
		Choices []struct {
			Name   string `xml:"name,attr"`
			ToName string `xml:"toName,attr"`
			Choice []struct {
				Value string `xml:"value,attr"`
				Alias string `xml:"alias,attr"`
			}
		}
	}
	cfg, _ := os.ReadFile(filepath.Join(ls, "study-1-label-config.xml"))
	if err := xml.Unmarshal(cfg, &view); err != nil || len(view.Choices) != 2 || view.Choices[0].Name != "refusal" || len(view.Choices[0].Choice) != 2 {
		t.Fatalf("labelling config %v:\n%s", err, cfg)
	}
	// Each choice shows its label, and stores its key (the results above).
	for _, c := range view.Choices[0].Choice {
		if c.Alias == "" || c.Value == c.Alias {
			t.Fatalf("a choice shown as its key %q rather than its label:\n%s", c.Alias, cfg)
		}
	}

	arg, _, err := runCLI(t, dir, "study", "export", "1", "--format", "argilla")
	if err != nil {
		t.Fatal(err)
	}
	argGot := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(arg), "\n") {
		var r struct {
			ID        string
			Fields    map[string]string
			Responses map[string][]struct {
				Value  string `json:"value"`
				UserID string `json:"user_id"`
				Status string `json:"status"`
			} `json:"responses"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		for q, rs := range r.Responses {
			for _, x := range rs {
				if x.Status == "discarded" {
					if r.ID != skipped {
						t.Fatalf("record %s discarded", r.ID)
					}
					continue
				}
				if x.UserID != "ana" || x.Status != "submitted" {
					t.Fatalf("record %s: a response %+v", r.ID, x)
				}
				argGot[r.ID+"|"+q] = x.Value
			}
		}
	}
	if len(argGot) != len(want) {
		t.Fatalf("Argilla: %v, want %v", argGot, want)
	}
	for k, v := range want {
		if argGot[k] != v {
			t.Fatalf("Argilla %s = %q, want %q", k, argGot[k], v)
		}
	}
}
