package detect

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// File is a detector whose predictions were made elsewhere: a CSV with
// columns id and label (header required; other columns ignored), and
// optionally seed, for detectors trained with several seeds.
type File struct {
	Path  string
	Seed  string // "" for a file without seeds
	preds map[string]string
}

// LoadFile reads a predictions CSV. With seed != "" only that seed's rows are
// kept (the file must have a seed column).
func LoadFile(r io.Reader, path string) (*File, error) { return LoadFileSeed(r, path, "") }

// LoadFileSeed reads the rows of one seed from a predictions CSV.
func LoadFileSeed(r io.Reader, path, seed string) (*File, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	hdr, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	idCol, labelCol, seedCol := -1, -1, -1
	for i, h := range hdr {
		switch strings.TrimSpace(strings.ToLower(h)) {
		case "id":
			idCol = i
		case "label", "prediction", "pred":
			labelCol = i
		case "seed":
			seedCol = i
		}
	}
	if idCol < 0 || labelCol < 0 {
		return nil, fmt.Errorf("%s: header needs columns id and label, got %v", path, hdr)
	}
	if seed != "" && seedCol < 0 {
		return nil, fmt.Errorf("%s: --seeds needs a seed column, header is %v", path, hdr)
	}
	f := &File{Path: path, Seed: seed, preds: map[string]string{}}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if len(rec) <= max(idCol, labelCol) {
			return nil, fmt.Errorf("%s line %d: %d fields, need columns id and label", path, line, len(rec))
		}
		if seed != "" && (seedCol >= len(rec) || strings.TrimSpace(rec[seedCol]) != seed) {
			continue
		}
		id := rec[idCol]
		if _, dup := f.preds[id]; dup {
			return nil, fmt.Errorf("%s line %d: field id: %q appears twice", path, line, id)
		}
		f.preds[id] = rec[labelCol]
	}
	return f, nil
}

// Name implements Detector.
func (f *File) Name() string {
	if f.Seed != "" {
		return "file:" + f.Path + " seed " + f.Seed
	}
	return "file:" + f.Path
}

// Detect implements Detector; missing ids are an error that names the
// first, counts them, and shows an id of the file beside one it needs (a
// file of other ids — another corpus, other id columns — is told apart
// from one missing a few).
func (f *File) Detect(_ context.Context, in []Input) ([]Prediction, error) {
	out := make([]Prediction, len(in))
	missing, first := 0, ""
	for i, x := range in {
		l, ok := f.preds[x.ID]
		if !ok {
			if missing++; first == "" {
				first = x.ID
			}
			continue
		}
		out[i] = Prediction{ID: x.ID, Label: l, Parsed: true}
	}
	if missing == 0 {
		return out, nil
	}
	theirs := ""
	for id := range f.preds {
		if theirs == "" || id < theirs { // one of its ids, the same every time
			theirs = id
		}
	}
	return nil, fmt.Errorf("%s has no prediction for %d of the %d items, the first id %q (the file's ids look like %q)", f.Path, missing, len(in), first, theirs)
}

// HTTP is a detector behind the user's own endpoint. Protocol: POST a JSON
// body {"items": [{"id", "text", "context"}…]} (up to BatchSize items) and
// receive {"predictions": [{"id", "label"}…]}, any order, every id answered.
type HTTP struct {
	URL       string
	Client    *http.Client
	BatchSize int
}

// Name implements Detector.
func (h *HTTP) Name() string { return h.URL }

// Detect implements Detector.
func (h *HTTP) Detect(ctx context.Context, in []Input) ([]Prediction, error) {
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	bs := h.BatchSize
	if bs <= 0 {
		bs = 64
	}
	got := map[string]string{}
	for start := 0; start < len(in); start += bs {
		batch := in[start:min(len(in), start+bs)]
		body, _ := json.Marshal(map[string]any{"items": batch})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("detector %s: %w", h.URL, err)
		}
		var out struct {
			Predictions []struct{ ID, Label string } `json:"predictions"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("detector %s: HTTP %d", h.URL, resp.StatusCode)
		}
		if err != nil {
			return nil, fmt.Errorf("detector %s: response is not {\"predictions\": [...]}: %w", h.URL, err)
		}
		for _, p := range out.Predictions {
			got[p.ID] = p.Label
		}
	}
	preds := make([]Prediction, len(in))
	for i, x := range in {
		l, ok := got[x.ID]
		if !ok {
			return nil, fmt.Errorf("detector %s did not answer id %q", h.URL, x.ID)
		}
		preds[i] = Prediction{ID: x.ID, Label: l, Parsed: true}
	}
	return preds, nil
}
