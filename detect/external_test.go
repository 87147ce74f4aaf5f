package detect

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHTTPDetectorProtocol(t *testing.T) {
	batches := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Items []Input }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.Method != http.MethodPost {
			http.Error(w, "bad", 400)
			return
		}
		batches++
		var out struct {
			Predictions []map[string]string `json:"predictions"`
		}
		for i := len(req.Items) - 1; i >= 0; i-- { // any order
			l := "none"
			if strings.Contains(req.Items[i].Text, "experts") {
				l = "appeal to authority"
			}
			out.Predictions = append(out.Predictions, map[string]string{"id": req.Items[i].ID, "label": l})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	d := &HTTP{URL: srv.URL, BatchSize: 2}
	in := []Input{{ID: "a", Text: "experts say so"}, {ID: "b", Text: "it rains"}, {ID: "c", Text: "experts again"}}
	p, err := d.Detect(context.Background(), in)
	if err != nil || batches != 2 || p[0].Label != "appeal to authority" || p[1].Label != "none" || p[2].ID != "c" {
		t.Fatalf("%+v %v batches=%d", p, err, batches)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"predictions":[]}`)) }))
	defer bad.Close()
	if _, err := (&HTTP{URL: bad.URL}).Detect(context.Background(), in); err == nil || !strings.Contains(err.Error(), `did not answer id "a"`) {
		t.Fatalf("%v", err)
	}
}

func TestFileDetector(t *testing.T) {
	f, err := LoadFile(strings.NewReader("id,label\nx,none\ny,slippery slope\n"), "p.csv")
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Detect(context.Background(), []Input{{ID: "y"}})
	if err != nil || p[0].Label != "slippery slope" {
		t.Fatalf("%v %v", p, err)
	}
	// Ids the file lacks: how many, the first, and what the file's ids
	// look like (its ids were "x" and "y", the audit's another corpus').
	if _, err := f.Detect(context.Background(), []Input{{ID: "y"}, {ID: "T:a/1"}, {ID: "T:a/2"}}); err == nil ||
		!strings.Contains(err.Error(), `p.csv has no prediction for 2 of the 3 items, the first id "T:a/1" (the file's ids look like "x")`) {
		t.Fatal(err)
	}
	if _, err := LoadFile(strings.NewReader("id,label\nx,none\nx,none\n"), "d.csv"); err == nil || !strings.Contains(err.Error(), `d.csv line 3: field id: "x" appears twice`) {
		t.Fatal(err)
	}
	if _, err := LoadFileSeed(strings.NewReader("id,label\nx,none\n"), "s.csv", "1"); err == nil || !strings.Contains(err.Error(), "seed column") {
		t.Fatal(err)
	}
}
