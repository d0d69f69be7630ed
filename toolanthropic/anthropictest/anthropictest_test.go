package anthropictest_test

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/toolanthropic/anthropictest"
)

func params(tools []anthropic.ToolUnionParam, msgs ...anthropic.MessageParam) anthropic.MessageNewParams {
	if len(msgs) == 0 {
		msgs = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}
	}
	return anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 16, Tools: tools, Messages: msgs}
}

func toolOf(p anthropic.ToolParam) []anthropic.ToolUnionParam {
	return []anthropic.ToolUnionParam{{OfTool: &p}}
}

// The server refuses what the API refuses, and says why in Refused.
func TestServerRefusesAsTheAPIDoes(t *testing.T) {
	use := anthropic.NewAssistantMessage(anthropic.NewToolUseBlock("toolu_1", map[string]any{}, "f"))
	tests := []struct {
		name   string
		params anthropic.MessageNewParams
		want   string
	}{
		{"an empty input_schema, which the SDK leaves out", params(toolOf(anthropic.ToolParam{Name: "f"})), "input_schema: Field required"},
		{"a root anyOf", params(toolOf(anthropic.ToolParam{Name: "f", InputSchema: anthropic.ToolInputSchemaParam{
			ExtraFields: map[string]any{"anyOf": []any{map[string]any{"required": []string{"a"}}}}}})), "anyOf"},
		{"a property name", params(toolOf(anthropic.ToolParam{Name: "f", InputSchema: anthropic.ToolInputSchemaParam{
			Properties: map[string]any{"user name": map[string]any{"type": "string"}}}})), "a property name holds"},
		{"a strict schema with an open object", params(toolOf(anthropic.ToolParam{Name: "f", Strict: anthropic.Bool(true), InputSchema: anthropic.ToolInputSchemaParam{
			Properties: map[string]any{"a": map[string]any{"type": "string"}}}})), "additionalProperties: false"},
		{"a tool name", params(toolOf(anthropic.ToolParam{Name: "a.b", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{}}})), "name"},
		{"a tool_use left without its tool_result", params(nil, anthropic.NewUserMessage(anthropic.NewTextBlock("hi")), use,
			anthropic.NewUserMessage(anthropic.NewTextBlock("and?"))), "without `tool_result` blocks immediately after: toolu_1"},
		{"a tool_result for no tool_use", params(nil, anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_9", "x", false))), "unexpected `tool_use_id`"},
		{"an empty text block", params(nil, anthropic.NewUserMessage(anthropic.NewTextBlock(""))), "non-empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := anthropictest.NewServer(anthropictest.Text("never"))
			defer srv.Close()
			client := srv.Client()
			_, err := client.Messages.New(context.Background(), tt.params)
			require.Error(t, err)
			require.Len(t, srv.Requests(), 1)
			assert.Contains(t, srv.Requests()[0].Refused, tt.want)
		})
	}
}

func TestServerScripts(t *testing.T) {
	srv := anthropictest.NewServer(anthropictest.Func(func(r anthropictest.Request) anthropictest.Turn {
		return anthropictest.Text("model " + r.Model)
	}), anthropictest.Calls(anthropictest.Call{Name: "f", Input: `{"a":`}))
	defer srv.Close()
	client := srv.Client()
	msg, err := client.Messages.New(context.Background(), params(nil))
	require.NoError(t, err)
	assert.Equal(t, "model claude-sonnet-5-5", msg.Content[0].Text)
	_, err = client.Messages.New(context.Background(), params(nil))
	require.Error(t, err, "a scripted input that is not JSON is the test's mistake, said so")
	_, err = client.Messages.New(context.Background(), params(nil))
	require.Error(t, err, "past the script")
}
