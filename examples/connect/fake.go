package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
)

// newFakeModel starts a local stand-in for the three APIs. It plays a
// model that, asked a question, calls search and read_file at once, and,
// given their results, answers by quoting them. It speaks each API's own
// wire format, so the SDKs' clients talk to it unchanged.
func newFakeModel() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chat/completions", fakeOpenAI)
	mux.HandleFunc("POST /v1/messages", fakeAnthropic)
	mux.HandleFunc("POST /v1beta/models/{model}", fakeGemini)
	return httptest.NewServer(mux)
}

// answer is the fake model's last reply: what the tools said.
func answer(results []string) string {
	for i, r := range results {
		results[i] = strings.ReplaceAll(strings.TrimSpace(r), "\n", `\n`)
	}
	return "The tools answered:\n- " + strings.Join(results, "\n- ")
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return false
	}
	return true
}

type object = map[string]any

func fakeOpenAI(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if !decode(w, r, &req) {
		return
	}
	var results []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			results = append(results, fmt.Sprint(m.Content))
		}
	}
	msg := object{"role": "assistant", "content": answer(results)}
	finish := "stop"
	if len(results) == 0 {
		// The optional lang and limit are null: the tools are strict.
		msg = object{"role": "assistant", "content": nil, "tool_calls": []object{
			{"id": "call_1", "type": "function", "function": object{"name": "search", "arguments": `{"query":"println","lang":null,"limit":null}`}},
			{"id": "call_2", "type": "function", "function": object{"name": "read_file", "arguments": `{"path":"main.go"}`}},
		}}
		finish = "tool_calls"
	}
	reply(w, object{"id": "chatcmpl-fake", "object": "chat.completion", "created": 1763829600, "model": "gpt-5.5",
		"choices": []object{{"index": 0, "message": msg, "finish_reason": finish}}})
}

func fakeAnthropic(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if !decode(w, r, &req) {
		return
	}
	var results []string
	last := req.Messages[len(req.Messages)-1]
	for _, c := range last.Content {
		var b struct {
			Type    string `json:"type"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(c, &b) == nil && b.Type == "tool_result" && len(b.Content) > 0 {
			results = append(results, b.Content[0].Text)
		}
	}
	content, stop := []object{{"type": "text", "text": answer(results)}}, "end_turn"
	if len(results) == 0 {
		content, stop = []object{
			{"type": "text", "text": "I'll search the project and read main.go."},
			{"type": "tool_use", "id": "toolu_1", "name": "search", "input": object{"query": "println"}},
			{"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": object{"path": "main.go"}},
		}, "tool_use"
	}
	reply(w, object{"id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
		"content": content, "stop_reason": stop, "usage": object{"input_tokens": 1, "output_tokens": 1}})
}

func fakeGemini(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if !decode(w, r, &req) {
		return
	}
	var results []string
	for _, p := range req.Contents[len(req.Contents)-1].Parts {
		if p.FunctionResponse != nil {
			results = append(results, string(p.FunctionResponse.Response))
		}
	}
	parts := []object{{"text": answer(results)}}
	if len(results) == 0 {
		parts = []object{
			{"functionCall": object{"name": "search", "args": object{"query": "println"}}},
			{"functionCall": object{"name": "read_file", "args": object{"path": "main.go"}}},
		}
	}
	reply(w, object{"candidates": []object{{"content": object{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"modelVersion": "gemini-3-flash", "responseId": "fake-response"})
}
