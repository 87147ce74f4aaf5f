package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

type openaiRequest struct {
	Model               string `json:"model"`
	MaxTokens           int    `json:"max_tokens"`
	MaxCompletionTokens int    `json:"max_completion_tokens"`
	Messages            []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// openaiText reads message content, which is either a string or an array of parts.
func openaiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func decodeOpenAI(body []byte) (Call, error) {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return Call{}, err
	}
	c := Call{Protocol: "openai", Model: req.Model, Body: body, MaxTokens: max(req.MaxTokens, req.MaxCompletionTokens)}
	var user []string
	for _, m := range req.Messages {
		switch m.Role {
		case "system", "developer":
			c.System = openaiText(m.Content)
		case "user":
			user = append(user, openaiText(m.Content))
		}
	}
	c.Prompt = strings.Join(user, "\n")
	return c, nil
}

func openaiError(status int, msg string) any {
	typ := map[int]string{429: "rate_limit_exceeded", 401: "invalid_request_error", 400: "invalid_request_error"}[status]
	if typ == "" {
		typ = "server_error"
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": typ, "param": nil}}
}

func openaiCompletion(id string, c Call, r Reply) map[string]any {
	finish := r.FinishReason
	if finish == "refusal" {
		finish = "stop"
	}
	msg := map[string]any{"role": "assistant", "content": r.Text, "refusal": nil}
	if r.FinishReason == "refusal" {
		msg["content"], msg["refusal"] = nil, r.Text
	}
	return map[string]any{
		"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": c.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage": map[string]any{
			"prompt_tokens": r.InputTokens, "completion_tokens": r.OutputTokens,
			"total_tokens":              r.InputTokens + r.OutputTokens,
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
			"prompt_tokens_details":     map[string]any{"cached_tokens": r.CachedInputTokens},
		},
	}
}

func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c, err := decodeOpenAI(body)
	if err != nil {
		writeJSON(w, 400, openaiError(400, "bad json: "+err.Error()))
		return
	}
	c.APIKey = bearer(r)
	id := s.nextID("chatcmpl")
	w.Header().Set("x-request-id", "req_"+id)
	s.serve(w, r, c, openaiError, func(rep Reply) any { return openaiCompletion(id, c, rep) })
}

func (s *Server) openaiModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{"object": "list", "data": []any{}})
}

func (s *Server) openaiUpload(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		writeJSON(w, 400, openaiError(400, "multipart: "+err.Error()))
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		writeJSON(w, 400, openaiError(400, "file: "+err.Error()))
		return
	}
	data, _ := io.ReadAll(f)
	id := s.nextID("file")
	s.mu.Lock()
	s.files[id] = data
	s.mu.Unlock()
	writeJSON(w, 200, map[string]any{"id": id, "object": "file", "bytes": len(data), "created_at": time.Now().Unix(),
		"filename": hdr.Filename, "purpose": r.FormValue("purpose"), "status": "processed"})
}

func (s *Server) openaiFileContent(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.files[r.PathValue("id")]
	s.mu.Unlock()
	if !ok {
		writeJSON(w, 404, openaiError(404, "no such file"))
		return
	}
	w.Header().Set("Content-Type", "application/jsonl")
	w.Write(data)
}

// batch is a submitted batch in either protocol.
type batch struct {
	id, protocol string
	seq          int    // creation order
	token        string // OpenAI metadata fallacylab_token; Gemini display name
	created      int64
	polls        int
	output       string // OpenAI output file id; Gemini model
	results      []byte
	total        int
}

func (s *Server) openaiBatchCreate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID string            `json:"input_file_id"`
		Endpoint    string            `json:"endpoint"`
		Metadata    map[string]string `json:"metadata"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	s.mu.Lock()
	input, ok := s.files[req.InputFileID]
	s.mu.Unlock()
	if !ok {
		writeJSON(w, 404, openaiError(404, "no input file"))
		return
	}
	var out bytes.Buffer
	b := &batch{id: s.nextID("batch"), protocol: "openai", created: time.Now().Unix(), token: req.Metadata["fallacylab_token"]}
	b.seq = s.seqNow()
	model := ""
	for i, line := range bytes.Split(input, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var item struct {
			CustomID string          `json:"custom_id"`
			Body     json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(line, &item); err != nil {
			writeJSON(w, 400, openaiError(400, fmt.Sprintf("line %d: %v", i+1, err)))
			return
		}
		c, err := decodeOpenAI(item.Body)
		if err != nil {
			writeJSON(w, 400, openaiError(400, fmt.Sprintf("line %d body: %v", i+1, err)))
			return
		}
		// As the real API: one input file holds requests for one model.
		if model == "" {
			model = c.Model
		} else if c.Model != model {
			writeJSON(w, 400, openaiError(400, fmt.Sprintf("line %d: model %s differs from %s; a batch holds one model", i+1, c.Model, model)))
			return
		}
		c.APIKey, c.Batch = bearer(r), true
		rep := s.respond(c)
		s.record(Entry{Time: time.Now(), Call: c, Status: 200})
		id := s.nextID("chatcmpl")
		line, _ := json.Marshal(map[string]any{"id": "resp_" + id, "custom_id": item.CustomID, "error": nil,
			"response": map[string]any{"status_code": 200, "request_id": "req_" + id, "body": openaiCompletion(id, c, rep)}})
		out.Write(line)
		out.WriteByte('\n')
		b.total++
	}
	b.output = s.nextID("file")
	s.mu.Lock()
	s.files[b.output] = out.Bytes()
	s.batches[b.id] = b
	s.mu.Unlock()
	s.answerBatchCreate(w, s.openaiBatchJSON(b, req.InputFileID))
}

func (s *Server) openaiBatchList(w http.ResponseWriter, r *http.Request) {
	data := []any{}
	for _, b := range s.batchList("openai") {
		data = append(data, s.openaiBatchJSON(b, ""))
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": data, "has_more": false})
}

func (s *Server) openaiBatchJSON(b *batch, input string) map[string]any {
	status, output := "in_progress", ""
	if s.batchDone(b) {
		status, output = "completed", b.output
	}
	var meta any
	if b.token != "" {
		meta = map[string]string{"fallacylab_token": b.token}
	}
	return map[string]any{"id": b.id, "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": input, "metadata": meta,
		"completion_window": "24h", "status": status, "output_file_id": output, "created_at": b.created,
		"request_counts": map[string]any{"total": b.total, "completed": b.total, "failed": 0}}
}

func (s *Server) openaiBatchGet(w http.ResponseWriter, r *http.Request) {
	b, ok := s.pollBatch(r.PathValue("id"))
	if !ok {
		writeJSON(w, 404, openaiError(404, "no such batch"))
		return
	}
	writeJSON(w, 200, s.openaiBatchJSON(b, ""))
}

// Embedding is the deterministic fake embedding the server returns: a
// 64-dimensional bag of lower-cased words hashed into buckets, so texts that
// share words are close in cosine.
func Embedding(text string) []float64 {
	v := make([]float64, 64)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := uint32(2166136261)
		for _, c := range []byte(strings.Trim(w, ".,;:!?\"'()")) {
			h = (h ^ uint32(c)) * 16777619
		}
		v[h%64]++
	}
	return v
}

func (s *Server) openaiEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, openaiError(400, "input must be an array of strings: "+err.Error()))
		return
	}
	var data []any
	for i, t := range req.Input {
		s.record(Entry{Time: time.Now(), Call: Call{Protocol: "openai", Model: req.Model, Prompt: t, APIKey: bearer(r)}, Status: 200})
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": Embedding(t)})
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]any{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}})
}
