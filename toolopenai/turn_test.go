package toolopenai_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	toolopenai "github.com/toolbelt-go/tool/toolopenai"
	"github.com/toolbelt-go/tool/toolopenai/openaitest"
)

// The calls of the model's first turn: a strict search with nulls, a
// read, an unknown tool, arguments cut off, a screenshot.
var firstTurn = openaitest.Calls(
	openaitest.Call{ID: "call_search", Name: "search", Arguments: `{"query":"println","lang":null,"limit":null}`},
	openaitest.Call{ID: "call_read", Name: "read_file", Arguments: `{"path":"main.go"}`},
	openaitest.Call{ID: "call_grep", Name: "grep", Arguments: `{"pattern":"println"}`},
	openaitest.Call{ID: "call_cut", Name: "read_file", Arguments: `{"path":"src/ma`},
	openaitest.Call{ID: "call_shot", Name: "screenshot", Arguments: `{}`},
)

// A full Chat Completions turn through the SDK's own client: our tools in
// the request, the model's tool calls in the response, our tool messages in
// the next request.
func TestChatTurn(t *testing.T) {
	srv := openaitest.NewServer(firstTurn, openaitest.Text("println is called in main.go, line 4."))
	defer srv.Close()
	client := srv.Client()
	reg, searched := testRegistry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	ctx := context.Background()

	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT5_5,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Where is println called?")},
		Tools:    ai.ChatTools(),
	}
	resp, err := client.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	golden(t, "chat_request_1.golden.json", srv.Requests()[0].Body)
	msg := resp.Choices[0].Message
	reqs := ai.ChatRequests(msg)
	require.Len(t, reqs, 5)
	assert.True(t, reqs[0].NullMeansAbsent, "search is exported strict")
	params.Messages = append(params.Messages, ai.RunChat(ctx, struct{}{}, msg)...)
	require.Len(t, params.Messages, 7, "the user's message, the assistant's, five tool messages")
	assert.Equal(t, SearchArgs{Query: "println", Limit: 5}, searched(), "the strict nulls meant absent; the default applied")

	resp, err = client.Chat.Completions.New(ctx, params)
	require.NoError(t, err, "the server takes every call answered")
	golden(t, "chat_request_2.golden.json", srv.Requests()[1].Body)
	assert.Equal(t, "println is called in main.go, line 4.", resp.Choices[0].Message.Content)
	assert.Len(t, ai.RunChat(ctx, struct{}{}, resp.Choices[0].Message), 1, "no tool calls: only the message itself")

	out := srv.Requests()[1].Outputs
	require.Len(t, out, 5)
	assert.JSONEq(t, `[{"file":"main.go","line":4}]`, out[0].Text)
	assert.Equal(t, "package main\n", out[1].Text)
	assert.Contains(t, out[2].Text, `there is no tool named "grep"`)
	assert.Contains(t, out[3].Text, "cut off")
	assert.Contains(t, out[4].Text, "[image image/png", "Chat tool messages carry text: the image is named")
}

// The same through the Responses API, chained with previous_response_id.
func TestResponsesTurn(t *testing.T) {
	srv := openaitest.NewServer(openaitest.Calls(
		openaitest.Call{Name: "search", Arguments: `{"query":"println","lang":"go","limit":null}`},
		openaitest.Call{Name: "screenshot", Arguments: `{}`},
		openaitest.Call{Name: "set_env", Arguments: `{"vars":{"GOFLAGS":"-mod=mod"}}`},
	), openaitest.Text("println is called in main.go, line 4."))
	defer srv.Close()
	client := srv.Client()
	reg, searched := testRegistry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	ctx := context.Background()

	params := responses.ResponseNewParams{
		Model: openai.ChatModelGPT5_5,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Where is println called?")},
		Tools: ai.ResponseTools(),
	}
	resp, err := client.Responses.New(ctx, params)
	require.NoError(t, err)
	golden(t, "responses_request_1.golden.json", srv.Requests()[0].Body)
	items := ai.RunResponse(ctx, struct{}{}, resp)
	require.Len(t, items, 3)
	assert.Equal(t, SearchArgs{Query: "println", Lang: "go", Limit: 5}, searched())

	params.PreviousResponseID = openai.String(resp.ID)
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	resp, err = client.Responses.New(ctx, params)
	require.NoError(t, err)
	golden(t, "responses_request_2.golden.json", srv.Requests()[1].Body)
	assert.Contains(t, resp.OutputText(), "println is called in main.go")
	assert.Nil(t, ai.RunResponse(ctx, struct{}{}, resp), "no function calls: the turn is over")
	out := srv.Requests()[1].Outputs
	require.Len(t, out, 3)
	assert.Equal(t, "The app's window:\n[image]", out[1].Text, "the Responses API takes the image itself")
	assert.Equal(t, "set", out[2].Text, "set_env is sent non-strict, and runs")
}

// With store: false nothing can be chained: each request carries the whole
// conversation, the function calls included, before their outputs.
func TestResponsesStateless(t *testing.T) {
	srv := openaitest.NewServer(
		openaitest.Calls(openaitest.Call{Name: "read_file", Arguments: `{"path":"main.go"}`}),
		openaitest.Calls(openaitest.Call{Name: "search", Arguments: `{"query":"x","lang":null,"limit":2}`}),
		openaitest.Text("done"),
		openaitest.Text("never"))
	defer srv.Close()
	client := srv.Client()
	reg, searched := testRegistry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true, Stateless: true})
	ctx := context.Background()

	input := []responses.ResponseInputItemUnionParam{responses.ResponseInputItemParamOfMessage("Where is println called?", responses.EasyInputMessageRoleUser)}
	params := responses.ResponseNewParams{Model: openai.ChatModelGPT5_5, Store: openai.Bool(false), Tools: ai.ResponseTools()}
	var resp *responses.Response
	for turn := 0; ; turn++ {
		require.Less(t, turn, 3)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
		var err error
		resp, err = client.Responses.New(ctx, params)
		require.NoError(t, err)
		items := ai.RunResponse(ctx, struct{}{}, resp)
		if items == nil {
			break
		}
		input = append(input, items...)
	}
	assert.Equal(t, "done", resp.OutputText())
	assert.Equal(t, SearchArgs{Query: "x", Limit: 2}, searched())
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []openaitest.Output{{CallID: "call_1", Text: "package main\n"}}, reqs[1].Outputs)
	assert.Len(t, reqs[2].Outputs, 2, "the whole conversation, both outputs")
	golden(t, "responses_stateless_request_3.golden.json", reqs[2].Body)

	// A response that was not stored cannot be chained to.
	params.PreviousResponseID = openai.String(resp.ID)
	params.Input = responses.ResponseNewParamsInputUnion{OfString: openai.String("and?")}
	_, err := client.Responses.New(ctx, params)
	require.Error(t, err)
	assert.Contains(t, srv.Requests()[3].Refused, "not found")
}

func TestStrictFallbackAndWarnings(t *testing.T) {
	reg, _ := testRegistry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	strict := map[string]bool{}
	for _, tl := range ai.ChatTools() {
		strict[tl.OfFunction.Function.Name] = tl.OfFunction.Function.Strict.Value
	}
	assert.Equal(t, map[string]bool{"read_file": true, "screenshot": true, "search": true, "set_env": false}, strict)
	var lossy []string
	for _, w := range ai.Warnings() {
		if w.Severity >= dialect.Lossy {
			lossy = append(lossy, w.String())
		}
	}
	assert.Equal(t, []string{"lossy: set_env: openai-strict: /properties/vars: sent as openai: it is a map with keys of its own (additionalProperties is a schema), and strict mode needs every key declared"}, lossy)

	reqs := ai.ChatRequests(openai.ChatCompletionMessage{ToolCalls: []openai.ChatCompletionMessageToolCallUnion{
		{ID: "1", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "set_env", Arguments: `{}`}},
		{ID: "2", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "search", Arguments: `{}`}},
	}})
	assert.False(t, reqs[0].NullMeansAbsent, "a tool sent non-strict gets no null leniency")
	assert.True(t, reqs[1].NullMeansAbsent)

	plain := toolopenai.New(reg, nil)
	for _, tl := range plain.ChatTools() {
		assert.False(t, tl.OfFunction.Function.Strict.Valid(), "strict is left unset unless asked for")
	}
	assert.Empty(t, plain.Warnings())
	assert.False(t, plain.ChatRequests(openai.ChatCompletionMessage{ToolCalls: []openai.ChatCompletionMessageToolCallUnion{
		{ID: "1", Type: "function", Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "search", Arguments: `{}`}}}})[0].NullMeansAbsent)
}

// A root OpenAI refuses is fixed before it is sent, strict or not: the
// server, which refuses what the API refuses, takes the request.
func TestRootShapesReachTheAPI(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(tool.NewRaw(tool.Definition{Name: "fetch", Description: "Fetch a page.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"},"path":{"type":"string"}},"anyOf":[{"required":["url"]},{"required":["path"]}]}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil })))
	for _, strict := range []bool{false, true} {
		srv := openaitest.NewServer(openaitest.Text("ok"), openaitest.Text("ok"))
		ai := toolopenai.New(reg, &toolopenai.Options{Strict: strict})
		client := srv.Client()
		_, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")}, Tools: ai.ChatTools()})
		require.NoError(t, err, "strict=%v", strict)
		_, err = client.Responses.New(context.Background(), responses.ResponseNewParams{Model: openai.ChatModelGPT5_5,
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("x")}, Tools: ai.ResponseTools()})
		require.NoError(t, err, "strict=%v", strict)
		assert.Contains(t, string(srv.Requests()[0].Tools[0].Parameters), "Give at least one of: url, path.")
		srv.Close()
	}
}

// The adapter follows the registry: a tool added later is exported next
// time.
func TestToolsFollowTheRegistry(t *testing.T) {
	reg, _ := testRegistry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	require.Len(t, ai.ChatTools(), 4)
	require.NoError(t, reg.Add(tool.New(tool.Definition{Name: "ping", Description: "Ping."}, func(context.Context, struct{}) (string, error) { return "pong", nil })))
	assert.Len(t, ai.ChatTools(), 5)
	assert.Len(t, ai.ResponseTools(), 5)

	// What ChatTools returns is the caller's to change.
	tools := ai.ChatTools()
	tools[0].OfFunction.Function.Parameters["type"] = "array"
	assert.Equal(t, json.RawMessage(`"object"`), ai.ChatTools()[0].OfFunction.Function.Parameters["type"])
}

func TestSessionIsSetOnRequests(t *testing.T) {
	reg, _ := testRegistry(t)
	ai := toolopenai.New(reg, nil).WithSession("conversation-7")
	reqs := ai.ResponseRequests(&responses.Response{Output: []responses.ResponseOutputItemUnion{}})
	assert.Empty(t, reqs)
	var resp responses.Response
	require.NoError(t, json.Unmarshal([]byte(`{"output":[{"type":"function_call","call_id":"c1","name":"search","arguments":"{}"},{"type":"message"}]}`), &resp))
	reqs = ai.ResponseRequests(&resp)
	require.Len(t, reqs, 1)
	assert.Equal(t, tool.Request{ID: "c1", Name: "search", Args: []byte(`{}`), Session: "conversation-7"}, reqs[0])
}

// A reply of 10,000 tool calls: every call is answered, only the first
// tool.DefaultMaxCalls run, and the next request stays small. Without the
// bound all ran and the next request carried every result: 312 MB for
// 10,000 results of 32 KB.
func TestFloodOfCalls(t *testing.T) {
	const n = 10000
	calls := make([]openaitest.Call, n)
	for i := range calls {
		calls[i] = openaitest.Call{Name: "read", Arguments: `{}`}
	}
	for _, tc := range []struct {
		name string
		turn func(t *testing.T, srv *openaitest.Server, ai *toolopenai.Adapter[struct{}])
	}{
		{"chat", func(t *testing.T, srv *openaitest.Server, ai *toolopenai.Adapter[struct{}]) {
			ctx, client := context.Background(), srv.Client()
			params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Tools: ai.ChatTools(),
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Read.")}}
			resp, err := client.Chat.Completions.New(ctx, params)
			require.NoError(t, err)
			params.Messages = append(params.Messages, ai.RunChat(ctx, struct{}{}, resp.Choices[0].Message)...)
			_, err = client.Chat.Completions.New(ctx, params)
			require.NoError(t, err)
		}},
		{"responses", func(t *testing.T, srv *openaitest.Server, ai *toolopenai.Adapter[struct{}]) {
			ctx, client := context.Background(), srv.Client()
			params := responses.ResponseNewParams{Model: openai.ChatModelGPT5_5, Tools: ai.ResponseTools(),
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Read.")}}
			resp, err := client.Responses.New(ctx, params)
			require.NoError(t, err)
			params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: ai.RunResponse(ctx, struct{}{}, resp)}
			params.PreviousResponseID = openai.String(resp.ID)
			_, err = client.Responses.New(ctx, params)
			require.NoError(t, err)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int64
			reg := tool.NewRegistry[struct{}](nil)
			reg.MustAdd(tool.New(tool.Definition{Name: "read", Description: "Read a page.", Safety: tool.SafetyReadOnly},
				func(context.Context, struct{}) (string, error) { ran.Add(1); return strings.Repeat("x", 4<<10), nil }))
			srv := openaitest.NewServer(openaitest.Calls(calls...), openaitest.Text("done"))
			defer srv.Close()
			tc.turn(t, srv, toolopenai.New(reg, nil))
			next := srv.Requests()[1]
			require.Empty(t, next.Refused)
			require.Len(t, next.Outputs, n, "every call is answered")
			assert.EqualValues(t, tool.DefaultMaxCalls, ran.Load())
			assert.Len(t, next.Outputs[tool.DefaultMaxCalls-1].Text, 4<<10)
			assert.Contains(t, next.Outputs[n-1].Text, "did not run: the turn made 10000 tool calls")
			assert.Less(t, len(next.Body), 4<<20, "the next request: %d bytes", len(next.Body))
		})
	}
}

// A function_call item whose status is not "completed" was cut off by the
// reply's token limit: it is answered with an error and does not run, the
// whole calls of the reply do. Before, it ran whenever its arguments
// happened to parse.
func TestIncompleteFunctionCall(t *testing.T) {
	for _, tc := range []struct {
		status string
		runs   bool
	}{
		{"", true},
		{"completed", true},
		{"incomplete", false},
		{"in_progress", false},
	} {
		t.Run("status "+tc.status, func(t *testing.T) {
			var ran atomic.Int64
			reg := tool.NewRegistry[struct{}](nil)
			reg.MustAdd(tool.New(tool.Definition{Name: "delete", Description: "Delete a directory.", Safety: tool.SafetyMutating},
				func(context.Context, struct {
					Path string `json:"path"`
				}) (string, error) {
					ran.Add(1)
					return "deleted", nil
				}))
			srv := openaitest.NewServer(openaitest.Calls(
				openaitest.Call{Name: "delete", Arguments: `{"path":"build"}`},
				openaitest.Call{Name: "delete", Arguments: `{"path":"/tmp"}`, Status: tc.status},
			), openaitest.Text("done"))
			defer srv.Close()
			ai := toolopenai.New(reg, nil)
			ctx, client := context.Background(), srv.Client()
			params := responses.ResponseNewParams{Model: openai.ChatModelGPT5_5, Tools: ai.ResponseTools(),
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Clean up.")}}
			resp, err := client.Responses.New(ctx, params)
			require.NoError(t, err)
			params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: ai.RunResponse(ctx, struct{}{}, resp)}
			params.PreviousResponseID = openai.String(resp.ID)
			_, err = client.Responses.New(ctx, params)
			require.NoError(t, err, "every call is answered")
			out := srv.Requests()[1].Outputs
			require.Len(t, out, 2)
			assert.Equal(t, "deleted", out[0].Text)
			if tc.runs {
				assert.EqualValues(t, 2, ran.Load())
				assert.Equal(t, "deleted", out[1].Text)
			} else {
				assert.EqualValues(t, 1, ran.Load())
				assert.Contains(t, out[1].Text, "did not run: the reply ended before the call was complete")
			}
		})
	}
}
