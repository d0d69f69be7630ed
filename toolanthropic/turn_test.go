package toolanthropic_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	toolanthropic "github.com/toolbelt-go/tool/toolanthropic"
	"github.com/toolbelt-go/tool/toolanthropic/anthropictest"
)

// The model's first turn: text, then a search, a read that fails, a
// screenshot, a misspelled tool, invalid arguments.
var firstTurn = anthropictest.Turn{
	Text: "I'll search the project for println, read the guide and take a screenshot.",
	Calls: []anthropictest.Call{
		{ID: "toolu_search", Name: "search", Input: `{"query":"println"}`},
		{ID: "toolu_read", Name: "read_file", Input: `{"path":"docs/guide.md"}`},
		{ID: "toolu_shot", Name: "screenshot", Input: `{}`},
		{ID: "toolu_case", Name: "Search", Input: `{"query":"x"}`},
		{ID: "toolu_bad", Name: "search", Input: `{"query":"","limit":"5"}`},
	},
}

// A full Messages turn through the SDK's own client: our tools in the
// request, the model's tool_use blocks in the response, our tool_result
// blocks in the next request.
func TestMessagesTurn(t *testing.T) {
	srv := anthropictest.NewServer(firstTurn, anthropictest.Text("println is called in main.go, line 4."))
	defer srv.Close()
	client := srv.Client()
	reg, searched := testRegistry(t)
	ai := toolanthropic.New(reg, nil)
	ctx := context.Background()

	params := anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet5_5,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Where is println called?"))},
		Tools:     ai.Tools(),
	}
	msg, err := client.Messages.New(ctx, params)
	require.NoError(t, err)
	golden(t, "messages_request_1.golden.json", srv.Requests()[0].Body)

	turn := ai.Run(ctx, struct{}{}, msg)
	require.Len(t, turn, 2, "the model's message, then one user message with the results")
	params.Messages = append(params.Messages, turn...)
	assert.Equal(t, SearchArgs{Query: "println", Limit: 5}, searched())

	msg, err = client.Messages.New(ctx, params)
	require.NoError(t, err, "every tool_use has its tool_result")
	golden(t, "messages_request_2.golden.json", srv.Requests()[1].Body)
	assert.Equal(t, anthropic.StopReasonEndTurn, msg.StopReason)
	assert.Len(t, ai.Run(ctx, struct{}{}, msg), 1, "no tool_use: only the message itself")

	type want struct {
		isError bool
		text    string
	}
	wants := []want{
		{text: `[{"file":"main.go","line":4}]`},
		{isError: true, text: "Error: no file named docs/guide.md\nHint: call search first"},
		{text: "The app's window:\n[image]"},
		{isError: true, text: `Error: there is no tool named "Search" (names are case-sensitive). Did you mean "search"?`},
		{isError: true, text: "Invalid arguments for search (2 problems)"},
	}
	out := srv.Requests()[1].Outputs
	require.Len(t, out, len(wants))
	for i, w := range wants {
		assert.Equal(t, firstTurn.Calls[i].ID, out[i].CallID, "answers are in the calls' order")
		assert.Equal(t, w.isError, out[i].IsError, i)
		assert.Contains(t, out[i].Text, w.text, i)
	}
}

// With Options.Strict the tools go with "strict": true, their objects
// closed and optional keys kept optional; a map goes non-strict.
func TestStrictTools(t *testing.T) {
	srv := anthropictest.NewServer(anthropictest.Calls(anthropictest.Call{Name: "search", Input: `{"query":"x"}`}), anthropictest.Text("done"))
	defer srv.Close()
	reg, searched := testRegistry(t)
	ai := toolanthropic.New(reg, &toolanthropic.Options{Strict: true})
	ctx := context.Background()
	params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Tools: ai.Tools(),
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("x"))}}
	client := srv.Client()
	msg, err := client.Messages.New(ctx, params)
	require.NoError(t, err, "the server checks each strict schema against the strict rules")
	strict := map[string]bool{}
	for _, tl := range srv.Requests()[0].Tools {
		strict[tl.Name] = tl.Strict
	}
	assert.Equal(t, map[string]bool{"read_file": true, "screenshot": true, "search": true, "set_env": false}, strict)
	assert.JSONEq(t, `{"type":"object","properties":{"query":{"type":"string","description":"Text to look for. At least 1 character."},`+
		`"lang":{"type":"string","enum":["go","md"],"description":"Only files of this language"},`+
		`"limit":{"type":"integer","description":"Most hits to return. At most 50. At least 1. Default: 5."}},"required":["query"],"additionalProperties":false}`,
		string(srv.Requests()[0].Tools[2].InputSchema))
	params.Messages = append(params.Messages, ai.Run(ctx, struct{}{}, msg)...)
	_, err = client.Messages.New(ctx, params)
	require.NoError(t, err)
	assert.Equal(t, SearchArgs{Query: "x", Limit: 5}, searched())
	var lossy []string
	for _, w := range ai.Warnings() {
		if w.Severity >= dialect.Lossy {
			lossy = append(lossy, w.Tool)
		}
	}
	assert.Equal(t, []string{"set_env"}, lossy)
}

// A schema's members other than properties and required reach the wire;
// a top-level anyOf, which the API refuses, becomes a sentence; a schema
// of only "type": "object" still goes out with its input_schema; property
// names the API refuses are renamed, and the calls mapped back.
func TestToolsKeepTheSchema(t *testing.T) {
	var got json.RawMessage
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(
		tool.NewRaw(tool.Definition{Name: "fetch", Description: "Fetch a page.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"},"path":{"$ref":"#/$defs/P"}},` +
				`"anyOf":[{"required":["url"]},{"required":["path"]}],"additionalProperties":false,"$defs":{"P":{"type":"string","minLength":1}}}`)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil }),
		tool.NewRaw(tool.Definition{Name: "anything", Description: "Takes any object.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil }),
		tool.NewRaw(tool.Definition{Name: "query", Description: "Query with odd keys.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"filter[id]":{"type":"string"},"user name":{"type":"string"}},"required":["filter[id]"]}`)},
			func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
				got = args
				return tool.TextResult("ok"), nil
			}),
	))
	ai := toolanthropic.New(reg, nil)
	srv := anthropictest.NewServer(anthropictest.Calls(anthropictest.Call{Name: "query", Input: `{"filter_id_":"7","user_name":"ann"}`}), anthropictest.Text("ok"))
	defer srv.Close()
	ctx := context.Background()
	params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Tools: ai.Tools(),
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("x"))}}
	client := srv.Client()
	msg, err := client.Messages.New(ctx, params)
	require.NoError(t, err, "the server refuses a missing input_schema, a root anyOf and property names outside the rule")
	tools := srv.Requests()[0].Tools
	require.Len(t, tools, 3)
	assert.JSONEq(t, `{"type":"object","properties":{}}`, string(tools[0].InputSchema), "anything keeps its input_schema")
	assert.JSONEq(t, `{"type":"object","properties":{"url":{"type":"string"},"path":{"$ref":"#/$defs/P"}},"additionalProperties":false,`+
		`"$defs":{"P":{"type":"string","minLength":1}},"description":"Give at least one of: url, path."}`, string(tools[1].InputSchema))
	params.Messages = append(params.Messages, ai.Run(ctx, struct{}{}, msg)...)
	assert.JSONEq(t, `{"filter[id]":"7","user name":"ann"}`, string(got), "the tool gets its own names")

	var lines []string
	for _, w := range ai.Warnings() {
		lines = append(lines, w.String())
	}
	assert.Equal(t, []string{
		`notice: fetch: anthropic: (root): anyOf moved to the description: "Give at least one of: url, path."`,
		`notice: query: anthropic: /properties/filter[id]: renamed: sent as "filter_id_": letters, digits, '_', '.' and '-', at most 64`,
		`notice: query: anthropic: /properties/user name: renamed: sent as "user_name": letters, digits, '_', '.' and '-', at most 64`,
	}, lines)
}

func TestSessionIsSetOnRequests(t *testing.T) {
	reg, _ := testRegistry(t)
	ai := toolanthropic.New(reg, nil).WithSession("conversation-7")
	var msg anthropic.Message
	require.NoError(t, json.Unmarshal([]byte(`{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"toolu_1","name":"search","input":{"query":"a"}}]}`), &msg))
	reqs := ai.Requests(&msg)
	require.Len(t, reqs, 1)
	assert.Equal(t, tool.Request{ID: "toolu_1", Name: "search", Args: json.RawMessage(`{"query":"a"}`), Session: "conversation-7"}, reqs[0])
	assert.Nil(t, ai.Requests(nil))
	assert.Nil(t, ai.Run(context.Background(), struct{}{}, nil))
}
func TestResultContent(t *testing.T) {
	tests := []struct {
		name string
		res  *tool.Result
		want string
	}{
		{"empty text blocks are left out", &tool.Result{CallID: "a", Content: []tool.Content{tool.TextContent("")}},
			`{"tool_use_id":"a","content":[{"text":"(the tool returned no output)","type":"text"}],"type":"tool_result"}`},
		{"structured output alone", &tool.Result{CallID: "b", Structured: json.RawMessage(`{"n":1}`)},
			`{"tool_use_id":"b","content":[{"text":"{\"n\":1}","type":"text"}],"type":"tool_result"}`},
		{"an embedded PDF is a document", &tool.Result{CallID: "c", Content: []tool.Content{tool.ResourceContent("file:///r.pdf", "application/pdf", "", []byte("%PDF"))}},
			`{"tool_use_id":"c","content":[{"source":{"data":"JVBERg==","media_type":"application/pdf","type":"base64"},"title":"file:///r.pdf","type":"document"}],"type":"tool_result"}`},
		{"an embedded text file is a document", &tool.Result{CallID: "d", Content: []tool.Content{tool.ResourceContent("file:///a.go", "text/x-go", "package a", nil)}},
			`{"tool_use_id":"d","content":[{"source":{"data":"package a","media_type":"text/plain","type":"text"},"title":"file:///a.go","type":"document"}],"type":"tool_result"}`},
		{"audio is named", &tool.Result{CallID: "e", IsError: true, Content: []tool.Content{tool.AudioContent([]byte{1, 2}, "audio/wav")}},
			`{"tool_use_id":"e","is_error":true,"content":[{"text":"[audio audio/wav, 2 bytes]","type":"text"}],"type":"tool_result"}`},
		{"an unsupported image is named", &tool.Result{CallID: "f", Content: []tool.Content{tool.ImageContent([]byte{1}, "image/tiff")}},
			`{"tool_use_id":"f","content":[{"text":"[image image/tiff, 1 bytes]","type":"text"}],"type":"tool_result"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := toolanthropic.Results([]*tool.Result{tt.res})
			b, err := json.Marshal(m.OfUser.Content[0])
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

// A reply of 10,000 tool_use blocks: every one is answered, only the first
// tool.DefaultMaxCalls run, and the next request stays small. Without the
// bound all ran and the next request carried every result.
func TestFloodOfCalls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls int
		ran   int
	}{
		{"under the bound", 20, 20},
		{"10,000 calls", 10000, tool.DefaultMaxCalls},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int64
			reg := tool.NewRegistry[struct{}](nil)
			reg.MustAdd(tool.New(tool.Definition{Name: "read", Description: "Read a page.", Safety: tool.SafetyReadOnly},
				func(context.Context, struct{}) (string, error) { ran.Add(1); return strings.Repeat("x", 4<<10), nil }))
			calls := make([]anthropictest.Call, tc.calls)
			for i := range calls {
				calls[i] = anthropictest.Call{Name: "read", Input: `{}`}
			}
			srv := anthropictest.NewServer(anthropictest.Calls(calls...), anthropictest.Text("done"))
			defer srv.Close()
			ai := toolanthropic.New(reg, nil)
			ctx, client := context.Background(), srv.Client()
			params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Tools: ai.Tools(),
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Read."))}}
			msg, err := client.Messages.New(ctx, params)
			require.NoError(t, err)
			params.Messages = append(params.Messages, ai.Run(ctx, struct{}{}, msg)...)
			_, err = client.Messages.New(ctx, params)
			require.NoError(t, err)
			next := srv.Requests()[1]
			require.Empty(t, next.Refused)
			require.Len(t, next.Outputs, tc.calls, "every call is answered")
			assert.EqualValues(t, tc.ran, ran.Load())
			last := next.Outputs[tc.calls-1]
			if tc.ran < tc.calls {
				assert.True(t, last.IsError)
				assert.Contains(t, last.Text, "did not run: the turn made 10000 tool calls")
			}
			assert.Less(t, len(next.Body), 4<<20, "the next request: %d bytes", len(next.Body))
		})
	}
}

// A reply that stops at max_tokens while its last tool_use block is being
// written: Anthropic documents that block as incomplete, and its input,
// though an object, may lack what the model meant ("rm -rf /tmp" of
// "rm -rf /tmp/build"). The blocks before it run; it is answered with an
// error. Before, it ran as it came.
func TestCutOffCall(t *testing.T) {
	for _, tc := range []struct {
		stop string
		ran  []string
		cut  bool
	}{
		{"tool_use", []string{"ls", "rm -rf /tmp"}, false},
		{"max_tokens", []string{"ls"}, true},
		{"model_context_window_exceeded", []string{"ls"}, true},
	} {
		t.Run(tc.stop, func(t *testing.T) {
			var mu sync.Mutex
			var ran []string
			reg := tool.NewRegistry[struct{}](nil)
			reg.MustAdd(tool.New(tool.Definition{Name: "shell", Description: "Run a command.", Safety: tool.SafetyMutating},
				func(_ context.Context, in struct {
					Command string `json:"command"`
				}) (string, error) {
					mu.Lock()
					defer mu.Unlock()
					ran = append(ran, in.Command)
					return "done", nil
				}))
			srv := anthropictest.NewServer(anthropictest.Turn{StopReason: tc.stop, Calls: []anthropictest.Call{
				{Name: "shell", Input: `{"command":"ls"}`},
				{Name: "shell", Input: `{"command":"rm -rf /tmp"}`},
			}}, anthropictest.Text("ok"))
			defer srv.Close()
			ai := toolanthropic.New(reg, nil)
			ctx, client := context.Background(), srv.Client()
			params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Tools: ai.Tools(),
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Clean up."))}}
			msg, err := client.Messages.New(ctx, params)
			require.NoError(t, err)
			assert.Equal(t, tc.cut, toolanthropic.CutOff(msg))
			params.Messages = append(params.Messages, ai.Run(ctx, struct{}{}, msg)...)
			_, err = client.Messages.New(ctx, params)
			require.NoError(t, err, "every call is answered")
			assert.Equal(t, tc.ran, ran)
			out := srv.Requests()[1].Outputs
			require.Len(t, out, 2)
			assert.False(t, out[0].IsError)
			assert.Equal(t, tc.cut, out[1].IsError)
			if tc.cut {
				assert.Contains(t, out[1].Text, "did not run: the reply reached its token limit")
			}
		})
	}
}
