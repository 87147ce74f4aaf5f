package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text string `json:"text"`
	} `json:"parts"`
}

func (g geminiContent) text() string {
	var b strings.Builder
	for _, p := range g.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func geminiError(status int, msg string) any {
	st := map[int]string{429: "RESOURCE_EXHAUSTED", 401: "UNAUTHENTICATED", 400: "INVALID_ARGUMENT", 404: "NOT_FOUND"}[status]
	if st == "" {
		st = "INTERNAL"
	}
	return map[string]any{"error": map[string]any{"code": status, "message": msg, "status": st}}
}

func (s *Server) geminiGenerate(w http.ResponseWriter, r *http.Request) {
	model, action, _ := strings.Cut(r.PathValue("action"), ":")
	switch action {
	case "generateContent":
	case "batchGenerateContent":
		s.geminiBatchCreate(w, r, model)
		return
	default:
		writeJSON(w, 404, geminiError(404, "unsupported action "+action))
		return
	}
	body, _ := io.ReadAll(r.Body)
	c, err := decodeGemini(model, body)
	if err != nil {
		writeJSON(w, 400, geminiError(400, "bad json: "+err.Error()))
		return
	}
	c.APIKey = r.Header.Get("X-Goog-Api-Key")
	id := s.nextID("gem")
	s.serve(w, r, c, geminiError, func(rep Reply) any { return geminiResponse(id, model, rep) })
}

// decodeGemini reads a GenerateContentRequest body.
func decodeGemini(model string, body []byte) (Call, error) {
	var req struct {
		Contents          []geminiContent `json:"contents"`
		SystemInstruction *geminiContent  `json:"systemInstruction"`
		GenerationConfig  struct {
			MaxOutputTokens int `json:"maxOutputTokens"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return Call{}, err
	}
	c := Call{Protocol: "gemini", Model: model, Body: body, MaxTokens: req.GenerationConfig.MaxOutputTokens}
	if req.SystemInstruction != nil {
		c.System = req.SystemInstruction.text()
	}
	var user []string
	for _, m := range req.Contents {
		if m.Role == "" || m.Role == "user" {
			user = append(user, m.text())
		}
	}
	c.Prompt = strings.Join(user, "\n")
	return c, nil
}

func geminiResponse(id, model string, rep Reply) map[string]any {
	finish := map[string]string{"stop": "STOP", "length": "MAX_TOKENS", "refusal": "SAFETY"}[rep.FinishReason]
	if finish == "" {
		finish = rep.FinishReason
	}
	return map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": finish,
			"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": rep.Text}}}}},
		"usageMetadata": map[string]any{"promptTokenCount": rep.InputTokens, "candidatesTokenCount": rep.OutputTokens,
			"totalTokenCount": rep.InputTokens + rep.OutputTokens, "cachedContentTokenCount": rep.CachedInputTokens},
		"modelVersion": model, "responseId": id,
	}
}

// geminiBatchCreate serves models/{model}:batchGenerateContent with inlined
// requests, answering with a long-running Operation whose metadata is the
// GenerateContentBatch, as the Gemini Developer API does.
func (s *Server) geminiBatchCreate(w http.ResponseWriter, r *http.Request, model string) {
	var req struct {
		Batch struct {
			DisplayName string `json:"displayName"`
			InputConfig struct {
				FileName string `json:"fileName"`
				Requests struct {
					Requests []struct {
						Request  json.RawMessage   `json:"request"`
						Metadata map[string]string `json:"metadata"`
					} `json:"requests"`
				} `json:"requests"`
			} `json:"inputConfig"`
		} `json:"batch"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, geminiError(400, "bad json: "+err.Error()))
		return
	}
	items := req.Batch.InputConfig.Requests.Requests
	if len(items) == 0 {
		writeJSON(w, 400, geminiError(400, "batch.inputConfig has no inlined requests"))
		return
	}
	calls := make([]Call, len(items))
	for i, it := range items {
		c, err := decodeGemini(model, it.Request)
		if err != nil {
			writeJSON(w, 400, geminiError(400, fmt.Sprintf("requests[%d]: %v", i, err)))
			return
		}
		c.APIKey, c.Batch = r.Header.Get("X-Goog-Api-Key"), true
		calls[i] = c
	}
	b := &batch{id: "batches/" + s.nextID("gembatch"), protocol: "gemini", created: time.Now().Unix(), output: model, token: req.Batch.DisplayName}
	b.seq = s.seqNow()
	var out []any
	for i, c := range calls {
		if code, msg := s.batchItemFault(c); code != 0 {
			// A failed item carries a google.rpc.Status instead of a response.
			s.record(Entry{Time: time.Now(), Call: c, Status: 200})
			out = append(out, map[string]any{"error": map[string]any{"code": code, "message": msg}, "metadata": items[i].Metadata})
			b.total++
			continue
		}
		rep := s.respond(c)
		s.record(Entry{Time: time.Now(), Call: c, Status: 200})
		out = append(out, map[string]any{"response": geminiResponse(s.nextID("gem"), model, rep), "metadata": items[i].Metadata})
		b.total++
	}
	b.results, _ = json.Marshal(out)
	s.mu.Lock()
	s.batches[b.id] = b
	s.mu.Unlock()
	s.answerBatchCreate(w, s.geminiBatchJSON(b))
}

func (s *Server) geminiBatchList(w http.ResponseWriter, r *http.Request) {
	ops := []any{}
	for _, b := range s.batchList("gemini") {
		ops = append(ops, s.geminiBatchJSON(b))
	}
	writeJSON(w, 200, map[string]any{"operations": ops})
}

func (s *Server) geminiBatchJSON(b *batch) map[string]any {
	created := time.Unix(b.created, 0).UTC().Format(time.RFC3339)
	meta := map[string]any{"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
		"name": b.id, "model": "models/" + b.output, "displayName": b.token, "createTime": created, "updateTime": created,
		"state": "BATCH_STATE_RUNNING", "batchStats": map[string]any{"requestCount": fmt.Sprint(b.total), "pendingRequestCount": fmt.Sprint(b.total)}}
	op := map[string]any{"name": b.id, "metadata": meta}
	if s.batchDone(b) {
		meta["state"] = "BATCH_STATE_SUCCEEDED"
		meta["endTime"] = created
		meta["batchStats"] = map[string]any{"requestCount": fmt.Sprint(b.total), "successfulRequestCount": fmt.Sprint(b.total)}
		out := map[string]any{"inlinedResponses": map[string]any{"inlinedResponses": json.RawMessage(b.results)}}
		meta["output"] = out
		op["done"] = true
		op["response"] = map[string]any{"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput", "inlinedResponses": out["inlinedResponses"]}
	}
	return op
}

func (s *Server) geminiBatchGet(w http.ResponseWriter, r *http.Request) {
	b, ok := s.pollBatch("batches/" + r.PathValue("id"))
	if !ok {
		writeJSON(w, 404, geminiError(404, "no such batch"))
		return
	}
	writeJSON(w, 200, s.geminiBatchJSON(b))
}

// batchItemFault applies Options.Fault to one request inside a Gemini batch:
// BadRequest and ServerError become per-item errors (google.rpc codes 3 and
// 13); other faults concern connections and do not apply.
func (s *Server) batchItemFault(c Call) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.Fault == nil {
		return 0, ""
	}
	switch s.opts.Fault(c) {
	case BadRequest:
		return 3, "Request contains an invalid argument."
	case ServerError:
		return 13, "Internal error encountered."
	}
	return 0, ""
}
