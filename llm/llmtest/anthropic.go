package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

type anthropicParams struct {
	MaxTokens int             `json:"max_tokens"`
	Model     string          `json:"model"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func decodeAnthropic(body []byte) (Call, error) {
	var p anthropicParams
	if err := json.Unmarshal(body, &p); err != nil {
		return Call{}, err
	}
	c := Call{Protocol: "anthropic", Model: p.Model, Body: body, MaxTokens: p.MaxTokens}
	if len(p.System) > 0 {
		c.System = openaiText(p.System) // string or array of text blocks
		var blocks []struct {
			CacheControl *struct {
				Type string `json:"type"`
			} `json:"cache_control"`
		}
		if json.Unmarshal(p.System, &blocks) == nil {
			for _, b := range blocks {
				c.CacheSystem = c.CacheSystem || (b.CacheControl != nil && b.CacheControl.Type == "ephemeral")
			}
		}
	}
	var user []string
	for _, m := range p.Messages {
		if m.Role == "user" {
			user = append(user, openaiText(m.Content))
		}
	}
	c.Prompt = strings.Join(user, "\n")
	return c, nil
}

func anthropicError(status int, msg string) any {
	typ := map[int]string{429: "rate_limit_error", 401: "authentication_error", 400: "invalid_request_error", 404: "not_found_error", 529: "overloaded_error"}[status]
	if typ == "" {
		typ = "api_error"
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func anthropicMessage(id string, c Call, r Reply) map[string]any {
	stop := map[string]string{"stop": "end_turn", "length": "max_tokens", "refusal": "refusal"}[r.FinishReason]
	if stop == "" {
		stop = r.FinishReason
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": c.Model,
		"content":     []any{map[string]any{"type": "text", "text": r.Text}},
		"stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": r.InputTokens - r.CachedInputTokens - r.CacheWriteTokens, "output_tokens": r.OutputTokens,
			"cache_creation_input_tokens": r.CacheWriteTokens, "cache_read_input_tokens": r.CachedInputTokens},
	}
}

func (s *Server) anthropicMessages(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c, err := decodeAnthropic(body)
	if err != nil {
		writeJSON(w, 400, anthropicError(400, "bad json: "+err.Error()))
		return
	}
	c.APIKey = anthropicKey(r)
	id := s.nextID("msg")
	w.Header().Set("request-id", "req_"+id)
	s.serve(w, r, c, anthropicError, func(rep Reply) any { return anthropicMessage(id, c, rep) })
}

func (s *Server) anthropicBatchCreate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Requests []struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, anthropicError(400, "bad json: "+err.Error()))
		return
	}
	b := &batch{id: s.nextID("msgbatch"), protocol: "anthropic", created: time.Now().Unix()}
	b.seq = s.seqNow()
	var out bytes.Buffer
	for _, it := range req.Requests {
		c, err := decodeAnthropic(it.Params)
		if err != nil {
			writeJSON(w, 400, anthropicError(400, "params of "+it.CustomID+": "+err.Error()))
			return
		}
		c.APIKey, c.Batch = anthropicKey(r), true
		rep := s.respond(c)
		s.record(Entry{Time: time.Now(), Call: c, Status: 200})
		line, _ := json.Marshal(map[string]any{"custom_id": it.CustomID,
			"result": map[string]any{"type": "succeeded", "message": anthropicMessage(s.nextID("msg"), c, rep)}})
		out.Write(line)
		out.WriteByte('\n')
		b.total++
	}
	b.results = out.Bytes()
	s.mu.Lock()
	s.batches[b.id] = b
	s.mu.Unlock()
	s.answerBatchCreate(w, s.anthropicBatchJSON(b))
}

func (s *Server) anthropicBatchJSON(b *batch) map[string]any {
	status, results := "in_progress", any(nil)
	succeeded, processing := 0, b.total
	if s.batchDone(b) {
		status, results = "ended", s.URL+"/v1/messages/batches/"+b.id+"/results"
		succeeded, processing = b.total, 0
	}
	created := time.Unix(b.created, 0).UTC().Format(time.RFC3339)
	return map[string]any{"id": b.id, "type": "message_batch", "processing_status": status, "results_url": results,
		"created_at": created, "expires_at": created, "ended_at": nil, "archived_at": nil, "cancel_initiated_at": nil,
		"request_counts": map[string]any{"processing": processing, "succeeded": succeeded, "errored": 0, "canceled": 0, "expired": 0}}
}

func (s *Server) anthropicBatchGet(w http.ResponseWriter, r *http.Request) {
	b, ok := s.pollBatch(r.PathValue("id"))
	if !ok {
		writeJSON(w, 404, anthropicError(404, "no such batch"))
		return
	}
	writeJSON(w, 200, s.anthropicBatchJSON(b))
}

func (s *Server) anthropicBatchResults(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	b, ok := s.batches[r.PathValue("id")]
	s.mu.Unlock()
	if !ok || !s.batchDone(b) {
		writeJSON(w, 404, anthropicError(404, "results not ready"))
		return
	}
	w.Header().Set("Content-Type", "application/x-jsonl")
	w.Write(b.results)
}

// anthropicKey reads the key from x-api-key or, as the v2 SDK sends it, a bearer token.
func anthropicKey(r *http.Request) string {
	if k := r.Header.Get("X-Api-Key"); k != "" {
		return k
	}
	return bearer(r)
}
