// Package anthropictest runs a local stand-in for Anthropic's Messages
// API, to test an agent loop offline, as net/http/httptest does for HTTP
// handlers. A Server speaks the Messages API's wire format to the official
// SDK's client, answers each request with the next turn the test scripts
// (tool_use blocks, or an answer), refuses what the real API refuses (a
// tool without input_schema, a schema or a property name outside its
// rules, a tool_use left without its tool_result, an empty text block),
// and records every request.
//
//	srv := anthropictest.NewServer(
//		anthropictest.Calls(anthropictest.Call{Name: "weather", Input: `{"city":"Lisbon"}`}),
//		anthropictest.Text("It is sunny in Lisbon."),
//	)
//	defer srv.Close()
//	client := srv.Client()
//	// ... run the loop with client; then look at srv.Requests()
package anthropictest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolbelt-go/tool/dialect"
)

// Call is one tool_use block the scripted model sends.
type Call struct {
	// ID is the block's ID; "" gives "toolu_<n>".
	ID string
	// Name is the tool called.
	Name string
	// Input is the JSON object of the arguments. The API always sends a
	// complete object, so Input must be one.
	Input string
}

// Turn is the scripted model's reply to one request: tool calls, or text.
type Turn struct {
	// Calls are the tool_use blocks of the reply; with none, the reply is
	// Text and the turn ends.
	Calls []Call
	// Text is the reply's text, sent before the calls if there are any.
	Text string
	// StopReason is the reply's stop_reason; "" gives "tool_use" when
	// there are calls and "end_turn" otherwise. "max_tokens" with calls
	// is a reply cut off while its last tool_use block was written.
	StopReason string
	// Reply, if set, makes the turn from the request when it arrives.
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
	InputSchema json.RawMessage
	Strict      bool
}

// Output is one tool_result block a request carried.
type Output struct {
	CallID  string
	IsError bool
	// Text is the result's text: its text blocks joined by newlines, an
	// image or a document named in brackets.
	Text string
}

// Request is one request the server answered (or refused).
type Request struct {
	// Path is "/v1/messages".
	Path string
	// Body is the request's JSON as the SDK sent it.
	Body  json.RawMessage
	Model string
	Tools []Tool
	// Outputs are the tool_result blocks of the last message, in order.
	Outputs []Output
	// Refused is the error the server answered with, if it refused it.
	Refused string
}

// Server is a local Messages API. Make one with NewServer.
type Server struct {
	// URL is the server's base URL, for option.WithBaseURL.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	turns    []Turn
	requests []Request
	calls    int
}

// NewServer starts a server that answers its requests with turns, in
// order; a request past the last turn is answered with an error. Close it
// when done.
func NewServer(turns ...Turn) *Server {
	s := &Server{turns: turns}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.messages)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Client returns an SDK client for the server, with no retries; opts are
// applied after the server's.
func (s *Server) Client(opts ...option.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]option.RequestOption{option.WithBaseURL(s.URL), option.WithAPIKey("anthropictest"), option.WithMaxRetries(0)}, opts...)...)
}

// Requests returns the requests the server was sent, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

type block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Title     string          `json:"title"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func (m message) blocks() []block {
	var bs []block
	if json.Unmarshal(m.Content, &bs) != nil {
		return nil // a plain string
	}
	return bs
}

type messagesRequest struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	Tools    []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
		Strict      bool            `json:"strict"`
	} `json:"tools"`
}

// toolName is the rule for tool names: ^[a-zA-Z0-9_-]{1,64}$.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var in messagesRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	req := Request{Path: "/v1/messages", Body: body}
	if err := dec.Decode(&in); err != nil {
		s.refuse(w, &req, "There was an error parsing the body: "+err.Error())
		return
	}
	req.Model = in.Model
	for i, t := range in.Tools {
		at := "tools." + strconv.Itoa(i) + ".custom"
		if t.Type != "" && t.Type != "custom" {
			continue // a server tool
		}
		tl := Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Strict: t.Strict}
		req.Tools = append(req.Tools, tl)
		if why := checkTool(tl, at); why != "" {
			s.refuse(w, &req, why)
			return
		}
	}
	if why := checkMessages(in.Messages, &req); why != "" {
		s.refuse(w, &req, why)
		return
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	var turn Turn
	ok := n < len(s.turns)
	if ok {
		turn = s.turns[n]
	}
	s.mu.Unlock()
	if !ok {
		apiError(w, http.StatusTeapot, "anthropictest: no turn scripted for request "+strconv.Itoa(n+1))
		return
	}
	if turn.Reply != nil {
		turn = turn.Reply(req)
	}
	var content []any
	if turn.Text != "" || len(turn.Calls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": turn.Text})
	}
	stop := "end_turn"
	for _, c := range turn.Calls {
		if !json.Valid([]byte(c.Input)) {
			apiError(w, http.StatusInternalServerError, fmt.Sprintf("anthropictest: the input of the scripted call to %s is not JSON: %s", c.Name, c.Input))
			return
		}
		content = append(content, map[string]any{"type": "tool_use", "id": s.callID(c), "name": c.Name, "input": json.RawMessage(c.Input)})
		stop = "tool_use"
	}
	if turn.StopReason != "" {
		stop = turn.StopReason
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_anthropictest_" + strconv.Itoa(n+1), "type": "message", "role": "assistant", "model": in.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
	})
}

// checkTool refuses a tool as the API does.
func checkTool(t Tool, at string) string {
	if !toolName.MatchString(t.Name) {
		return at + ".name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"
	}
	if len(t.InputSchema) == 0 || string(t.InputSchema) == "null" {
		return at + ".input_schema: Field required"
	}
	target := dialect.Anthropic
	if t.Strict {
		target = dialect.AnthropicStrict
	}
	if v := dialect.Check(t.InputSchema, target); len(v) > 0 {
		return at + ".input_schema: " + v[0].String()
	}
	return ""
}

// checkMessages refuses what the API refuses in the conversation: a
// tool_use not answered in the next message, a tool_result for no
// tool_use of the previous one, an empty text block. It records the
// outputs of the last message.
func checkMessages(msgs []message, req *Request) string {
	var open []string
	for i, m := range msgs {
		at := "messages." + strconv.Itoa(i)
		var results []Output
		var uses []string
		for j, b := range m.blocks() {
			switch b.Type {
			case "text":
				if b.Text == nil || *b.Text == "" {
					return at + ".content." + strconv.Itoa(j) + ".text: text content blocks must be non-empty"
				}
			case "tool_use":
				uses = append(uses, b.ID)
			case "tool_result":
				results = append(results, Output{CallID: b.ToolUseID, IsError: b.IsError, Text: resultText(b.Content)})
			}
		}
		var answered []string
		for _, r := range results {
			if !contains(open, r.CallID) {
				return at + ".content.0: unexpected `tool_use_id` found in `tool_result` blocks: " + r.CallID +
					". Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
			}
			answered = append(answered, r.CallID)
		}
		var missing []string
		for _, id := range open {
			if !contains(answered, id) {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return "messages." + strconv.Itoa(i-1) + ": `tool_use` ids were found without `tool_result` blocks immediately after: " +
				strings.Join(missing, ", ") + ". Each `tool_use` block must have a corresponding `tool_result` block in the next message."
		}
		open = uses
		req.Outputs = results
	}
	if len(open) > 0 {
		return "messages." + strconv.Itoa(len(msgs)-1) + ": `tool_use` ids were found without `tool_result` blocks immediately after: " +
			strings.Join(open, ", ") + ". Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// resultText is the text of a tool_result's content: a string, or blocks.
func resultText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		switch b.Type {
		case "text":
			if b.Text != nil {
				parts = append(parts, *b.Text)
			}
		case "document":
			parts = append(parts, "[document "+b.Title+"]")
		default:
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, "\n")
}

func (s *Server) refuse(w http.ResponseWriter, req *Request, msg string) {
	req.Refused = msg
	s.mu.Lock()
	s.requests = append(s.requests, *req)
	s.mu.Unlock()
	apiError(w, http.StatusBadRequest, msg)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
}

func (s *Server) callID(c Call) string {
	if c.ID != "" {
		return c.ID
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return "toolu_" + strconv.Itoa(s.calls)
}
