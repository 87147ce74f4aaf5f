package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
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
	if action != "generateContent" {
		writeJSON(w, 404, geminiError(404, "unsupported action "+action))
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Contents          []geminiContent `json:"contents"`
		SystemInstruction *geminiContent  `json:"systemInstruction"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, 400, geminiError(400, "bad json: "+err.Error()))
		return
	}
	c := Call{Protocol: "gemini", Model: model, Body: body, APIKey: r.Header.Get("X-Goog-Api-Key")}
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
	id := s.nextID("gem")
	s.serve(w, r, c, geminiError, func(rep Reply) any {
		finish := map[string]string{"stop": "STOP", "length": "MAX_TOKENS", "refusal": "SAFETY"}[rep.FinishReason]
		if finish == "" {
			finish = rep.FinishReason
		}
		return map[string]any{
			"candidates": []any{map[string]any{"index": 0, "finishReason": finish,
				"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": rep.Text}}}}},
			"usageMetadata": map[string]any{"promptTokenCount": rep.InputTokens, "candidatesTokenCount": rep.OutputTokens,
				"totalTokenCount": rep.InputTokens + rep.OutputTokens},
			"modelVersion": model, "responseId": id,
		}
	})
}
