// Package geminitest runs a local stand-in for the Gemini API's
// generateContent, to test an agent loop offline, as net/http/httptest
// does for HTTP handlers. A Server speaks the API's wire format to the
// official SDK's client (google.golang.org/genai), answers each request
// with the next turn the test scripts (function calls, or an answer),
// refuses what the real API refuses (a function name or a schema outside
// its rules, function calls not answered one for one, a Gemini 3 thought
// signature not sent back), and records every request.
//
//	srv := geminitest.NewServer(
//		geminitest.Calls(geminitest.Call{Name: "weather", Args: `{"city":"Lisbon"}`}),
//		geminitest.Text("It is sunny in Lisbon."),
//	)
//	defer srv.Close()
//	client := srv.Client()
//	// ... run the loop with client; then look at srv.Requests()
package geminitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/toolbelt-go/tool/dialect"
)

// Call is one functionCall part the scripted model sends.
type Call struct {
	// ID is the call's ID; Gemini often sends none, and "" sends none.
	ID string
	// Name is the function called.
	Name string
	// Args is the JSON object of the arguments. The API always sends a
	// complete object, so Args must be one.
	Args string
}

// Turn is the scripted model's reply to one request: function calls, or
// text.
type Turn struct {
	// Calls are the functionCall parts of the reply; with none, the reply
	// is Text.
	Calls []Call
	// Text is the reply's text.
	Text string
	// Reply, if set, makes the turn from the request when it arrives.
	Reply func(Request) Turn
}

// Calls returns a turn that makes the function calls.
func Calls(calls ...Call) Turn { return Turn{Calls: calls} }

// Text returns a turn that answers with text and calls no function.
func Text(s string) Turn { return Turn{Text: s} }

// Func returns a turn made by f from the request it answers.
func Func(f func(Request) Turn) Turn { return Turn{Reply: f} }

// Function is one function declaration a request offered the model.
type Function struct {
	Name        string
	Description string
	// Parameters is the Schema object, ParametersJSONSchema the JSON
	// Schema form; at most one is set.
	Parameters           json.RawMessage
	ParametersJSONSchema json.RawMessage
}

// Output is one functionResponse part a request carried.
type Output struct {
	CallID string
	Name   string
	// Response is the response object as sent: {"output": …} or
	// {"error": …} from toolgemini.
	Response json.RawMessage
	// Parts counts the media parts sent along with it.
	Parts int
}

// Request is one request the server answered (or refused).
type Request struct {
	// Path is "/v1beta/models/<model>:generateContent".
	Path      string
	Body      json.RawMessage
	Model     string
	Functions []Function
	// Outputs are the functionResponse parts of the last content, in order.
	Outputs []Output
	// Refused is the error the server answered with, if it refused it.
	Refused string
}

// Server is a local Gemini API. Make one with NewServer.
type Server struct {
	// URL is the server's base URL, for genai.HTTPOptions.BaseURL.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	turns    []Turn
	requests []Request
	signed   map[string]bool // the function names of each turn of calls it made, signed
}

// signature is the thought signature the server puts on a turn's first
// function call, and wants back.
const signature = "Z2VtaW5pdGVzdA=="

// NewServer starts a server that answers its requests with turns, in
// order; a request past the last turn is answered with an error. Close it
// when done.
func NewServer(turns ...Turn) *Server {
	s := &Server{turns: turns, signed: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1beta/models/{call}", s.generate)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Client returns an SDK client for the server (the Gemini API backend).
func (s *Server) Client() *genai.Client {
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "geminitest", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: s.URL},
	})
	if err != nil {
		panic("geminitest: " + err.Error()) // only for an API key or backend, which are fixed here
	}
	return c
}

// Requests returns the requests the server was sent, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

type part struct {
	Text         *string `json:"text"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string            `json:"id"`
		Name     string            `json:"name"`
		Response json.RawMessage   `json:"response"`
		Parts    []json.RawMessage `json:"parts"`
	} `json:"functionResponse"`
	ThoughtSignature string `json:"thoughtSignature"`
}

type content struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

type generateRequest struct {
	Contents []content `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Description          string          `json:"description"`
			Parameters           json.RawMessage `json:"parameters"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	model, ok := strings.CutSuffix(r.PathValue("call"), ":generateContent")
	req := Request{Path: r.URL.Path, Body: body, Model: model}
	if !ok {
		s.refuse(w, &req, http.StatusNotFound, "geminitest: only generateContent is served, not "+r.URL.Path)
		return
	}
	var in generateRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		s.refuse(w, &req, http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
		return
	}
	for i, t := range in.Tools {
		for j, d := range t.FunctionDeclarations {
			f := Function{Name: d.Name, Description: d.Description, Parameters: d.Parameters, ParametersJSONSchema: d.ParametersJSONSchema}
			req.Functions = append(req.Functions, f)
			at := fmt.Sprintf("tools[%d].function_declarations[%d]", i, j)
			if why := checkFunction(f, at); why != "" {
				s.refuse(w, &req, http.StatusBadRequest, why)
				return
			}
		}
	}
	s.mu.Lock()
	why := checkContents(in.Contents, &req, s.signed)
	s.mu.Unlock()
	if why != "" {
		s.refuse(w, &req, http.StatusBadRequest, why)
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	var turn Turn
	ok = n < len(s.turns)
	if ok {
		turn = s.turns[n]
	}
	s.mu.Unlock()
	if !ok {
		apiError(w, http.StatusTeapot, "geminitest: no turn scripted for request "+strconv.Itoa(n+1))
		return
	}
	if turn.Reply != nil {
		turn = turn.Reply(req)
	}
	var parts []any
	var names []string
	for i, c := range turn.Calls {
		names = append(names, c.Name)
		var args map[string]any
		if err := json.Unmarshal([]byte(c.Args), &args); err != nil || args == nil {
			apiError(w, http.StatusInternalServerError, fmt.Sprintf("geminitest: the args of the scripted call to %s are not a JSON object: %s", c.Name, c.Args))
			return
		}
		fc := map[string]any{"name": c.Name, "args": json.RawMessage(c.Args)}
		if c.ID != "" {
			fc["id"] = c.ID
		}
		p := map[string]any{"functionCall": fc}
		if i == 0 {
			p["thoughtSignature"] = signature
		}
		parts = append(parts, p)
	}
	if len(turn.Calls) == 0 {
		parts = append(parts, map[string]any{"text": turn.Text})
	} else {
		s.mu.Lock()
		s.signed[strings.Join(names, "\x00")] = true
		s.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  model, "responseId": "geminitest-" + strconv.Itoa(n+1),
	})
}

// functionName is the rule for function names: "Must start with a letter
// or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots,
// colons and dashes, with a maximum length of 64."
func functionName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '.' || c == ':' || c == '-')) {
			return false
		}
	}
	return true
}

// checkFunction refuses a declaration as the API does.
func checkFunction(f Function, at string) string {
	if !functionName(f.Name) {
		return "* GenerateContentRequest." + at + ".name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64."
	}
	has := func(b json.RawMessage) bool { return len(b) > 0 && string(b) != "null" }
	switch {
	case has(f.Parameters) && has(f.ParametersJSONSchema):
		return "* GenerateContentRequest." + at + ": parameters and parameters_json_schema are mutually exclusive"
	case has(f.Parameters):
		if v := dialect.Check(f.Parameters, dialect.Gemini); len(v) > 0 {
			return "* GenerateContentRequest." + at + ".parameters: " + v[0].String()
		}
	case has(f.ParametersJSONSchema):
		if v := dialect.Check(f.ParametersJSONSchema, dialect.GeminiJSON); len(v) > 0 {
			return "* GenerateContentRequest." + at + ".parameters_json_schema: " + v[0].String()
		}
	}
	return ""
}

// checkContents refuses what the API refuses in the conversation: a turn
// of function calls not followed by as many function responses, in the
// same order, or a first call without the thought signature it came with.
// It records the responses of the last content.
func checkContents(contents []content, req *Request, signed map[string]bool) string {
	var calls []part
	for _, c := range contents {
		var responses []Output
		var next []part
		var names []string
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				next = append(next, p)
				names = append(names, p.FunctionCall.Name)
			case p.FunctionResponse != nil:
				fr := p.FunctionResponse
				responses = append(responses, Output{CallID: fr.ID, Name: fr.Name, Response: fr.Response, Parts: len(fr.Parts)})
			}
		}
		if len(next) > 0 && next[0].ThoughtSignature == "" && signed[strings.Join(names, "\x00")] {
			return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position 1. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", names[0])
		}
		if len(calls) > 0 {
			if len(responses) != len(calls) {
				return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
			}
			for k, r := range responses {
				fc := calls[k].FunctionCall
				if r.Name != fc.Name || r.CallID != fc.ID {
					return fmt.Sprintf("function response %d (%s, id %q) does not answer function call %d (%s, id %q)", k, r.Name, r.CallID, k, fc.Name, fc.ID)
				}
			}
		} else if len(responses) > 0 {
			return "Please ensure that function response turn comes immediately after a function call turn."
		}
		calls = next
		req.Outputs = responses
	}
	if len(calls) > 0 {
		return "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
	}
	return ""
}

func (s *Server) refuse(w http.ResponseWriter, req *Request, status int, msg string) {
	req.Refused = msg
	s.mu.Lock()
	s.requests = append(s.requests, *req)
	s.mu.Unlock()
	apiError(w, status, msg)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": "INVALID_ARGUMENT"}})
}
