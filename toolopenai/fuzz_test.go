package toolopenai_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	toolopenai "github.com/toolbelt-go/tool/toolopenai"

	"github.com/toolbelt-go/tool/internal/providertest"
)

// FuzzRunChat feeds any assistant message the SDK decodes to RunChat: it
// never panics, and answers every tool call, in order, by its ID.
func FuzzRunChat(f *testing.F) {
	var resp openai.ChatCompletion
	b, err := os.ReadFile("testdata/chat_response_1.json")
	if err != nil {
		f.Fatal(err)
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		f.Fatal(err)
	}
	f.Add(resp.Choices[0].Message.RawJSON())
	f.Add(`{"role":"assistant","tool_calls":[{"id":"a","type":"custom","custom":{"name":"search","input":"x"}},{"id":"b","type":"function","function":{"name":"","arguments":""}}]}`)
	f.Add(`{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"search","arguments":"{\"query\":null,\"lang\":null,\"Query\":1}"}}]}`)
	reg, _ := providertest.Registry(f)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	f.Fuzz(func(t *testing.T, raw string) {
		var msg openai.ChatCompletionMessage
		if json.Unmarshal([]byte(raw), &msg) != nil {
			return
		}
		out := ai.RunChat(context.Background(), struct{}{}, msg)
		if len(out) != 1+len(msg.ToolCalls) {
			t.Fatalf("%d tool calls, %d messages", len(msg.ToolCalls), len(out))
		}
		for i, m := range out[1:] {
			if m.OfTool == nil || m.OfTool.ToolCallID != msg.ToolCalls[i].ID || m.OfTool.Content.OfString.Value == "" {
				t.Fatalf("call %d is not answered: %+v", i, m.OfTool)
			}
		}
	})
}

// FuzzRunResponse does the same for the Responses API.
func FuzzRunResponse(f *testing.F) {
	b, err := os.ReadFile("testdata/responses_response_1.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`{"output":[{"type":"function_call","call_id":"x","name":"read_file","arguments":"{\"path\":"}]}`)
	reg, _ := providertest.Registry(f)
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	f.Fuzz(func(t *testing.T, raw string) {
		var resp responses.Response
		if json.Unmarshal([]byte(raw), &resp) != nil {
			return
		}
		var ids []string
		for _, item := range resp.Output {
			if item.Type == "function_call" {
				ids = append(ids, item.CallID)
			}
		}
		out := ai.RunResponse(context.Background(), struct{}{}, &resp)
		if len(out) != len(ids) {
			t.Fatalf("%d calls, %d outputs", len(ids), len(out))
		}
		for i, item := range out {
			if item.OfFunctionCallOutput == nil || item.OfFunctionCallOutput.CallID.Value != ids[i] {
				t.Fatalf("call %d is not answered", i)
			}
		}
	})
}
