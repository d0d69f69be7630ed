package openaitest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

type responsesRequest struct {
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	PreviousResponseID string          `json:"previous_response_id"`
	Store              *bool           `json:"store"`
	Tools              []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	} `json:"tools"`
}

type inputItem struct {
	Type   string          `json:"type"`
	Role   string          `json:"role"`
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`
}

// response answers a Responses API request.
func (s *Server) response(w http.ResponseWriter, r *http.Request) {
	var in responsesRequest
	body, err := decode(r, &in)
	req := Request{Path: "/responses", Body: body, Model: in.Model, PreviousResponseID: in.PreviousResponseID, Store: in.Store}
	if err != nil {
		s.refuse(w, &req, "", "", "We could not parse the JSON body of your request.")
		return
	}
	for i, t := range in.Tools {
		if t.Type != "function" {
			continue
		}
		tl := Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Strict: t.Strict}
		req.Tools = append(req.Tools, tl)
		if code, msg := checkTool(tl, "tools["+strconv.Itoa(i)+"]"); msg != "" {
			s.refuse(w, &req, code, "tools["+strconv.Itoa(i)+"].parameters", msg)
			return
		}
	}
	// The calls this request may answer: those of the response it is
	// chained to, which must have been stored, and those its input holds.
	var open []string
	if in.PreviousResponseID != "" {
		s.mu.Lock()
		calls, ok := s.responses[in.PreviousResponseID]
		s.mu.Unlock()
		if !ok {
			s.refuse(w, &req, "previous_response_not_found", "previous_response_id",
				"Previous response with id '"+in.PreviousResponseID+"' not found.")
			return
		}
		open = append(open, calls...)
	}
	var items []inputItem
	if len(in.Input) > 0 && in.Input[0] == '[' {
		if err := json.Unmarshal(in.Input, &items); err != nil {
			s.refuse(w, &req, "", "input", "Invalid 'input': "+err.Error())
			return
		}
	}
	for _, it := range items {
		switch it.Type {
		case "function_call":
			open = append(open, it.CallID)
		case "function_call_output":
			k := indexOf(open, it.CallID)
			if k < 0 {
				s.refuse(w, &req, "", "input", "No tool call found for function call output with call_id "+it.CallID+".")
				return
			}
			open = append(open[:k], open[k+1:]...)
			req.Outputs = append(req.Outputs, Output{CallID: it.CallID, Text: outputText(it.Output)})
		}
	}
	if len(open) > 0 {
		s.refuse(w, &req, "", "input", "No tool output found for function call "+strings.Join(open, ", ")+".")
		return
	}
	turn, why := s.record(&req)
	if why != "" {
		apiError(w, http.StatusTeapot, "", "", why)
		return
	}
	id := "resp_openaitest_" + strconv.Itoa(len(s.Requests()))
	var output []any
	var callIDs []string
	for _, c := range turn.Calls {
		cid := s.callID(c)
		callIDs = append(callIDs, cid)
		status := c.Status
		if status == "" {
			status = "completed"
		}
		output = append(output, map[string]any{"type": "function_call", "id": "fc_" + cid, "call_id": cid,
			"name": c.Name, "arguments": c.Arguments, "status": status})
	}
	if len(turn.Calls) == 0 {
		output = append(output, map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}})
	}
	store := in.Store == nil || *in.Store
	if store {
		s.mu.Lock()
		s.responses[id] = callIDs
		s.mu.Unlock()
	}
	reply(w, map[string]any{
		"id": id, "object": "response", "created_at": 1763829600, "status": "completed", "model": in.Model,
		"output": output, "parallel_tool_calls": true, "previous_response_id": nullable(in.PreviousResponseID), "store": store,
		"tool_choice": "auto", "tools": []any{}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
	})
}
