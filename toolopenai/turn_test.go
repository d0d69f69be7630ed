package toolopenai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/internal/providertest"
	toolopenai "github.com/toolbelt-go/tool/toolopenai"
)

func testClient(f *providertest.FakeAPI) openai.Client {
	return openai.NewClient(option.WithBaseURL(f.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// A full Chat Completions turn through the SDK's own client: our tools in
// the request, the model's tool calls in the response, our tool messages in
// the next request.
func TestChatTurn(t *testing.T) {
	api := providertest.NewFakeAPI(t, "chat_response_1.json", "chat_response_2.json")
	client := testClient(api)
	reg, searched := providertest.Registry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	ctx := context.Background()

	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT5_5,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Where is println called?")},
		Tools:    ai.ChatTools(),
	}
	resp, err := client.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	providertest.GoldenJSON(t, "chat_request_1.golden.json", api.Body(0))

	msg := resp.Choices[0].Message
	reqs := ai.ChatRequests(msg)
	require.Len(t, reqs, 5)
	assert.True(t, reqs[0].NullMeansAbsent, "search is exported strict")

	params.Messages = append(params.Messages, ai.RunChat(ctx, struct{}{}, msg)...)
	require.Len(t, params.Messages, 7, "the user's message, the assistant's, five tool messages")
	assert.Equal(t, providertest.SearchArgs{Query: "println", Limit: 5}, *searched, "the strict nulls meant absent; the default applied")

	resp, err = client.Chat.Completions.New(ctx, params)
	require.NoError(t, err)
	providertest.GoldenJSON(t, "chat_request_2.golden.json", api.Body(1))
	assert.Equal(t, "println is called in main.go, line 4.", resp.Choices[0].Message.Content)
	assert.Empty(t, resp.Choices[0].Message.ToolCalls)
	assert.Len(t, ai.RunChat(ctx, struct{}{}, resp.Choices[0].Message), 1, "no tool calls: only the message itself")
}

// The same through the Responses API, chained with previous_response_id.
func TestResponsesTurn(t *testing.T) {
	api := providertest.NewFakeAPI(t, "responses_response_1.json", "responses_response_2.json")
	client := testClient(api)
	reg, searched := providertest.Registry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	ctx := context.Background()

	params := responses.ResponseNewParams{
		Model: openai.ChatModelGPT5_5,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Where is println called?")},
		Tools: ai.ResponseTools(),
	}
	resp, err := client.Responses.New(ctx, params)
	require.NoError(t, err)
	providertest.GoldenJSON(t, "responses_request_1.golden.json", api.Body(0))

	items := ai.RunResponse(ctx, struct{}{}, resp)
	require.Len(t, items, 3)
	assert.Equal(t, providertest.SearchArgs{Query: "println", Lang: "go", Limit: 5}, *searched)

	params.PreviousResponseID = openai.String(resp.ID)
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	resp, err = client.Responses.New(ctx, params)
	require.NoError(t, err)
	providertest.GoldenJSON(t, "responses_request_2.golden.json", api.Body(1))
	assert.Contains(t, resp.OutputText(), "println is called in main.go")
	assert.Nil(t, ai.RunResponse(ctx, struct{}{}, resp), "no function calls: the turn is over")
}

// What each tool message says, call by call.
func TestChatResultsAnswerEveryCall(t *testing.T) {
	api := providertest.NewFakeAPI(t, "chat_response_1.json")
	reg, _ := providertest.Registry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	client := testClient(api)
	resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5})
	require.NoError(t, err)
	msg := resp.Choices[0].Message
	msgs := ai.RunChat(context.Background(), struct{}{}, msg)
	require.Len(t, msgs, 1+len(msg.ToolCalls))
	for i, m := range msgs[1:] {
		require.NotNil(t, m.OfTool)
		assert.Equal(t, msg.ToolCalls[i].ID, m.OfTool.ToolCallID, "answers are in the calls' order")
	}
	text := func(i int) string { return msgs[1+i].OfTool.Content.OfString.Value }
	assert.JSONEq(t, `[{"file":"main.go","line":4}]`, text(0))
	assert.Equal(t, "package main\n", text(1))
	assert.Contains(t, text(2), `there is no tool named "grep"`)
	assert.Contains(t, text(3), "cut off")
	assert.Contains(t, text(4), "[image image/png", "Chat tool messages carry text: the image is named")
}

func TestStrictFallbackAndWarnings(t *testing.T) {
	reg, _ := providertest.Registry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	strict := map[string]bool{}
	for _, tl := range ai.ChatTools() {
		strict[tl.OfFunction.Function.Name] = tl.OfFunction.Function.Strict.Value
	}
	assert.Equal(t, map[string]bool{"read_file": true, "screenshot": true, "search": true, "set_env": false}, strict)
	var fallback []string
	for _, w := range ai.Warnings() {
		if w.Action.String() == "fallback" {
			fallback = append(fallback, w.String())
		}
	}
	assert.Equal(t, []string{"set_env: openai-strict: /properties/vars: sent as openai: it is a map with keys of its own (additionalProperties is a schema), and strict mode needs every key declared"}, fallback)

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

// The adapter follows the registry: a tool added later is exported next
// time.
func TestToolsFollowTheRegistry(t *testing.T) {
	reg, _ := providertest.Registry(t)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	require.Len(t, ai.ChatTools(), 4)
	require.NoError(t, reg.Add(tool.New(tool.Definition{Name: "ping", Description: "Ping."}, func(context.Context, struct{}) (string, error) { return "pong", nil })))
	assert.Len(t, ai.ChatTools(), 5)
	assert.Len(t, ai.ResponseTools(), 5)
}

func TestSessionIsSetOnRequests(t *testing.T) {
	reg, _ := providertest.Registry(t)
	ai := toolopenai.New(reg, nil).WithSession("conversation-7")
	reqs := ai.ResponseRequests(&responses.Response{Output: []responses.ResponseOutputItemUnion{}})
	assert.Empty(t, reqs)
	var resp responses.Response
	require.NoError(t, json.Unmarshal([]byte(`{"output":[{"type":"function_call","call_id":"c1","name":"search","arguments":"{}"},{"type":"message"}]}`), &resp))
	reqs = ai.ResponseRequests(&resp)
	require.Len(t, reqs, 1)
	assert.Equal(t, tool.Request{ID: "c1", Name: "search", Args: []byte(`{}`), Session: "conversation-7"}, reqs[0])
}
