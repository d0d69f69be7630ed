package toolanthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/internal/providertest"
	toolanthropic "github.com/toolbelt-go/tool/toolanthropic"
)

func testClient(f *providertest.FakeAPI) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(f.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// A full Messages turn through the SDK's own client: our tools in the
// request, the model's tool_use blocks in the response, our tool_result
// blocks in the next request.
func TestMessagesTurn(t *testing.T) {
	api := providertest.NewFakeAPI(t, "messages_response_1.json", "messages_response_2.json")
	client := testClient(api)
	reg, searched := providertest.Registry(t)
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
	providertest.GoldenJSON(t, "messages_request_1.golden.json", api.Body(0))
	assert.Equal(t, "/v1/messages", api.Path(0))

	turn := ai.Run(ctx, struct{}{}, msg)
	require.Len(t, turn, 2, "the model's message, then one user message with the results")
	params.Messages = append(params.Messages, turn...)
	assert.Equal(t, providertest.SearchArgs{Query: "println", Limit: 5}, *searched)

	msg, err = client.Messages.New(ctx, params)
	require.NoError(t, err)
	providertest.GoldenJSON(t, "messages_request_2.golden.json", api.Body(1))
	assert.Equal(t, anthropic.StopReasonEndTurn, msg.StopReason)
	assert.Len(t, ai.Run(ctx, struct{}{}, msg), 1, "no tool_use: only the message itself")
}

// What each tool_result says, call by call.
func TestResultsAnswerEveryCall(t *testing.T) {
	api := providertest.NewFakeAPI(t, "messages_response_1.json")
	client := testClient(api)
	reg, _ := providertest.Registry(t)
	ai := toolanthropic.New(reg, nil)
	msg, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1})
	require.NoError(t, err)
	reqs := ai.Requests(msg)
	require.Len(t, reqs, 5)
	user := ai.Run(context.Background(), struct{}{}, msg)[1]
	assert.Equal(t, anthropic.MessageParamRoleUser, user.Role)
	require.Len(t, user.Content, 5)
	type want struct {
		isError bool
		text    string
		image   bool
	}
	wants := []want{
		{text: `[{"file":"main.go","line":4}]`},
		{isError: true, text: "Error: no file named docs/guide.md\nHint: call search first"},
		{text: "The app's window:", image: true},
		{isError: true, text: `Error: there is no tool named "Search" (names are case-sensitive). Did you mean "search"?`},
		{isError: true, text: "Invalid arguments for search (2 problems)"},
	}
	for i, w := range wants {
		b := user.Content[i].OfToolResult
		require.NotNil(t, b)
		assert.Equal(t, reqs[i].ID, b.ToolUseID, "answers are in the calls' order")
		assert.Equal(t, w.isError, b.IsError.Value, i)
		require.NotEmpty(t, b.Content)
		assert.Contains(t, b.Content[0].OfText.Text, w.text, i)
		if w.image {
			require.Len(t, b.Content, 2)
			require.NotNil(t, b.Content[1].OfImage)
			assert.Equal(t, anthropic.Base64ImageSourceMediaType("image/png"), b.Content[1].OfImage.Source.OfBase64.MediaType)
		}
	}
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
			b, err := json.Marshal(m.Content[0])
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

// A schema's members other than properties and required reach the wire;
// a top-level anyOf, which the API refuses, becomes a sentence.
func TestToolsKeepTheSchema(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(tool.NewRaw(tool.Definition{Name: "fetch", Description: "Fetch a page.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"},"path":{"$ref":"#/$defs/P"}},` +
			`"anyOf":[{"required":["url"]},{"required":["path"]}],"additionalProperties":false,"$defs":{"P":{"type":"string","minLength":1}}}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil })))
	ai := toolanthropic.New(reg, nil)
	b, err := json.Marshal(ai.Tools())
	require.NoError(t, err)
	assert.JSONEq(t, `[{"name":"fetch","description":"Fetch a page.","input_schema":{"type":"object",`+
		`"properties":{"url":{"type":"string"},"path":{"$ref":"#/$defs/P"}},"additionalProperties":false,`+
		`"$defs":{"P":{"type":"string","minLength":1}},"description":"Give at least one of: url, path."}}]`, string(b))
	require.Len(t, ai.Warnings(), 1)
	assert.Equal(t, `fetch: anthropic: (root): anyOf moved to the description: "Give at least one of: url, path."`, ai.Warnings()[0].String())

	require.NoError(t, reg.Add(tool.New(tool.Definition{Name: "ping", Description: "Ping."}, func(context.Context, struct{}) (string, error) { return "pong", nil })))
	assert.Len(t, ai.Tools(), 2, "the adapter follows the registry")
}

func TestSessionIsSetOnRequests(t *testing.T) {
	reg, _ := providertest.Registry(t)
	ai := toolanthropic.New(reg, nil).WithSession("conversation-7")
	var msg anthropic.Message
	require.NoError(t, json.Unmarshal([]byte(`{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"toolu_1","name":"search","input":{"query":"a"}}]}`), &msg))
	reqs := ai.Requests(&msg)
	require.Len(t, reqs, 1)
	assert.Equal(t, tool.Request{ID: "toolu_1", Name: "search", Args: json.RawMessage(`{"query":"a"}`), Session: "conversation-7"}, reqs[0])
	assert.Nil(t, ai.Requests(nil))
	assert.Nil(t, ai.Run(context.Background(), struct{}{}, nil))
}
