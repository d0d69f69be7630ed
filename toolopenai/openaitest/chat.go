package openaitest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
			Strict      bool            `json:"strict"`
		} `json:"function"`
	} `json:"tools"`
}

// chat answers a Chat Completions request.
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var in chatRequest
	body, err := decode(r, &in)
	req := Request{Path: "/chat/completions", Body: body, Model: in.Model}
	if err != nil {
		s.refuse(w, &req, "", "", "We could not parse the JSON body of your request.")
		return
	}
	for i, t := range in.Tools {
		if t.Type != "function" {
			continue
		}
		tl := Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters, Strict: t.Function.Strict}
		req.Tools = append(req.Tools, tl)
		if code, msg := checkTool(tl, "tools["+strconv.Itoa(i)+"].function"); msg != "" {
			s.refuse(w, &req, code, "tools["+strconv.Itoa(i)+"].function.parameters", msg)
			return
		}
	}
	// Every tool call is answered by a tool message right after it, and
	// every tool message answers one.
	var open []string
	for i, m := range in.Messages {
		switch m.Role {
		case "tool":
			k := indexOf(open, m.ToolCallID)
			if k < 0 {
				s.refuse(w, &req, "", "messages.["+strconv.Itoa(i)+"].role",
					"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
				return
			}
			open = append(open[:k], open[k+1:]...)
			req.Outputs = append(req.Outputs, Output{CallID: m.ToolCallID, Text: outputText(m.Content)})
			continue
		}
		if len(open) > 0 {
			s.refuse(w, &req, "", "messages.["+strconv.Itoa(i)+"].role",
				"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "+strings.Join(open, ", "))
			return
		}
		for _, c := range m.ToolCalls {
			open = append(open, c.ID)
		}
	}
	if len(open) > 0 {
		s.refuse(w, &req, "", "messages",
			"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "+strings.Join(open, ", "))
		return
	}
	turn, why := s.record(&req)
	if why != "" {
		apiError(w, http.StatusTeapot, "", "", why)
		return
	}
	msg := map[string]any{"role": "assistant", "content": turn.Text, "refusal": nil}
	finish := "stop"
	if len(turn.Calls) > 0 {
		calls := make([]any, 0, len(turn.Calls))
		for _, c := range turn.Calls {
			calls = append(calls, map[string]any{"id": s.callID(c), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		msg["content"], msg["tool_calls"], finish = nil, calls, "tool_calls"
	}
	reply(w, map[string]any{
		"id": "chatcmpl-openaitest-" + strconv.Itoa(len(s.Requests())), "object": "chat.completion", "created": 1763829600, "model": in.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
}

func indexOf(list []string, s string) int {
	for i, e := range list {
		if e == s {
			return i
		}
	}
	return -1
}
