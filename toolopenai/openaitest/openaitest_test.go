package openaitest_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/toolopenai/openaitest"
)

func chatParams(tools ...shared.FunctionDefinitionParam) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
	for _, fn := range tools {
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	return p
}

// The server refuses what the API refuses, and says why in Refused.
func TestServerRefusesAsTheAPIDoes(t *testing.T) {
	tests := []struct {
		name   string
		params openai.ChatCompletionNewParams
		want   string
	}{
		{"a root anyOf", chatParams(shared.FunctionDefinitionParam{Name: "f",
			Parameters: shared.FunctionParameters{"type": "object", "anyOf": []any{map[string]any{"required": []string{"a"}}}}}),
			"Invalid schema for function 'f'"},
		{"a strict schema with an optional key", chatParams(shared.FunctionDefinitionParam{Name: "f", Strict: openai.Bool(true),
			Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}, "additionalProperties": false}}),
			"required must list every property"},
		{"a name with a dot", chatParams(shared.FunctionDefinitionParam{Name: "a.b"}), "does not match pattern"},
		{"a tool call left unanswered", openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Messages: []openai.ChatCompletionMessageParamUnion{
			openai.UserMessage("hi"),
			{OfAssistant: &openai.ChatCompletionAssistantMessageParam{ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{
				{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: "c1", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "f", Arguments: "{}"}}}}}},
			openai.UserMessage("and?"),
		}}, "did not have response messages: c1"},
		{"an answer to no call", openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Messages: []openai.ChatCompletionMessageParamUnion{
			openai.UserMessage("hi"), openai.ToolMessage("out", "c9")}}, "must be a response to a preceeding message with 'tool_calls'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(openaitest.Text("never"))
			defer srv.Close()
			client := srv.Client()
			_, err := client.Chat.Completions.New(context.Background(), tt.params)
			require.Error(t, err)
			require.Len(t, srv.Requests(), 1)
			assert.Contains(t, srv.Requests()[0].Refused, tt.want)
		})
	}
}

func TestServerScripts(t *testing.T) {
	srv := openaitest.NewServer(
		openaitest.Func(func(r openaitest.Request) openaitest.Turn {
			return openaitest.Text("you offered " + r.Tools[0].Name)
		}))
	defer srv.Close()
	client := srv.Client()
	resp, err := client.Responses.New(context.Background(), responses.ResponseNewParams{Model: openai.ChatModelGPT5_5,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
		Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "f", Parameters: map[string]any{"type": "object"}, Strict: openai.Bool(false)}}}})
	require.NoError(t, err)
	assert.Equal(t, "you offered f", resp.OutputText())

	// Past the script, the server answers with an error.
	_, err = client.Responses.New(context.Background(), responses.ResponseNewParams{Model: openai.ChatModelGPT5_5,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
	require.Error(t, err)

	// An output for a call the response it is chained to did not make.
	srv2 := openaitest.NewServer(openaitest.Calls(openaitest.Call{Name: "f", Arguments: "{}"}), openaitest.Text("x"))
	defer srv2.Close()
	c2 := srv2.Client()
	first, err := c2.Responses.New(context.Background(), responses.ResponseNewParams{Model: openai.ChatModelGPT5_5,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
	require.NoError(t, err)
	_, err = c2.Responses.New(context.Background(), responses.ResponseNewParams{Model: openai.ChatModelGPT5_5, PreviousResponseID: openai.String(first.ID),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: []responses.ResponseInputItemUnionParam{
			responses.ResponseInputItemParamOfFunctionCallOutput("x"),
		}}})
	require.Error(t, err)
	assert.Contains(t, srv2.Requests()[1].Refused, "No tool call found")
}
