// Package openaitest runs a local stand-in for OpenAI's API, to test an
// agent loop offline, as net/http/httptest does for HTTP handlers. A
// Server speaks the wire format of Chat Completions and the Responses API
// to the official SDK's client, answers each request with the next turn
// the test scripts (tool calls, or an answer), refuses what the real API
// refuses (a tool schema outside the rules of its mode, a tool call left
// unanswered, an output for a call that was never made, a response chained
// to one that was not stored), and records every request.
//
//	srv := openaitest.NewServer(
//		openaitest.Calls(openaitest.Call{Name: "weather", Arguments: `{"city":"Lisbon"}`}),
//		openaitest.Text("It is sunny in Lisbon."),
//	)
//	defer srv.Close()
//	client := srv.Client()
//	// ... run the loop with client; then look at srv.Requests()
package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/toolbelt-go/tool/dialect"
)

// Call is one tool call the scripted model makes.
type Call struct {
	// ID is the call's ID; "" gives "call_<n>".
	ID string
	// Name is the function called.
	Name string
	// Arguments is the JSON text of the arguments, sent as it is: it may
	// be cut off or broken on purpose.
	Arguments string
	// Status is a Responses API function_call item's status; "" gives
	// "completed". "incomplete" is a call the reply's token limit cut off.
	Status string
}

// Turn is the scripted model's reply to one request: tool calls, or text.
type Turn struct {
	// Calls are the tool calls of the reply; with none, the reply is Text.
	Calls []Call
	// Text is the reply's text.
	Text string
	// Reply, if set, makes the turn from the request when it arrives, for
	// a model that answers what it is sent.
	Reply func(Request) Turn
}

// Calls returns a turn that makes the tool calls.
func Calls(calls ...Call) Turn { return Turn{Calls: calls} }

// Text returns a turn that answers with text and calls no tool.
func Text(s string) Turn { return Turn{Text: s} }

// Func returns a turn made by f from the request it answers.
func Func(f func(Request) Turn) Turn { return Turn{Reply: f} }

// Tool is one tool a request offered the model.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
	Strict      bool
}

// Output is the result of one tool call, as a request carried it back.
type Output struct {
	CallID string
	// Text is the output's text; the text parts of a list, joined by
	// newlines, with an image or a file named in brackets.
	Text string
}

// Request is one request the server answered (or refused).
type Request struct {
	// Path is "/chat/completions" or "/responses".
	Path string
	// Body is the request's JSON as the SDK sent it.
	Body json.RawMessage
	// Model is the model asked for.
	Model string
	// Tools are the function tools offered.
	Tools []Tool
	// Outputs are the tool results the request carries, in order.
	Outputs []Output
	// PreviousResponseID and Store are the Responses API's fields.
	PreviousResponseID string
	Store              *bool
	// Refused is the error the server answered with, if it refused it.
	Refused string
}

// Server is a local OpenAI API. Make one with NewServer.
type Server struct {
	// URL is the server's base URL, for option.WithBaseURL.
	URL string

	srv *httptest.Server

	mu        sync.Mutex
	turns     []Turn
	requests  []Request
	calls     int
	responses map[string][]string // stored response ID → its call IDs
}

// NewServer starts a server that answers its requests with turns, in
// order; a request past the last turn is answered with an error. Close it
// when done.
func NewServer(turns ...Turn) *Server {
	s := &Server{turns: turns, responses: map[string][]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chat/completions", s.chat)
	mux.HandleFunc("POST /responses", s.response)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Client returns an SDK client for the server, with no retries; opts are
// applied after the server's.
func (s *Server) Client(opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(s.URL), option.WithAPIKey("openaitest"), option.WithMaxRetries(0)}, opts...)...)
}

// Requests returns the requests the server was sent, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// apiError answers as the API does when it refuses a request.
func apiError(w http.ResponseWriter, status int, code, param, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": nullable(param), "code": nullable(code)}})
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// record keeps req, and returns the turn that answers it, or "" with the
// reason to refuse it.
func (s *Server) record(req *Request) (Turn, string) {
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, *req)
	var t Turn
	ok := n < len(s.turns)
	if ok {
		t = s.turns[n]
	}
	s.mu.Unlock()
	if !ok {
		return Turn{}, "openaitest: no turn scripted for request " + strconv.Itoa(n+1)
	}
	if t.Reply != nil {
		t = t.Reply(*req)
	}
	return t, ""
}

func (s *Server) refuse(w http.ResponseWriter, req *Request, code, param, msg string) {
	req.Refused = msg
	s.mu.Lock()
	s.requests = append(s.requests, *req)
	s.mu.Unlock()
	apiError(w, http.StatusBadRequest, code, param, msg)
}

// callID gives a call its ID.
func (s *Server) callID(c Call) string {
	if c.ID != "" {
		return c.ID
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return "call_" + strconv.Itoa(s.calls)
}

// functionName is the rule for function names: "a-z, A-Z, 0-9, or
// contain underscores and dashes, with a maximum length of 64".
var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkTool refuses a tool as the API does.
func checkTool(t Tool, param string) (code, msg string) {
	if !functionName.MatchString(t.Name) {
		return "invalid_value", fmt.Sprintf("Invalid '%s.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param)
	}
	target := dialect.OpenAI
	if t.Strict {
		target = dialect.OpenAIStrict
	}
	params := t.Parameters
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
		if t.Strict {
			params = json.RawMessage(`{"type":"object","properties":{},"required":[],"additionalProperties":false}`)
		}
	}
	if v := dialect.Check(params, target); len(v) > 0 {
		return "invalid_function_parameters", fmt.Sprintf("Invalid schema for function '%s': %s", t.Name, v[0])
	}
	return "", ""
}

func decode(r *http.Request, v any) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return body, dec.Decode(v)
}

// outputText is the text of a tool output: a string, or a list of parts.
func outputText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Filename string `json:"filename"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw)
	}
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += "\n"
		}
		switch p.Type {
		case "text", "input_text":
			out += p.Text
		case "input_image", "image_url":
			out += "[image]"
		default:
			out += "[" + p.Type + " " + p.Filename + "]"
		}
	}
	return out
}
