package toolopenai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	toolopenai "github.com/toolbelt-go/tool/toolopenai"
)

// FuzzRunChat feeds any assistant message the SDK decodes to RunChat: it
// never panics, and answers every tool call, in order, by its ID.
func FuzzRunChat(f *testing.F) {
	f.Add(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_Qm3VvRkz8Yt1Jd0LxN4aB7cE","type":"function","function":{"name":"search","arguments":"{\"query\":\"println\",\"lang\":null,\"limit\":null}"}},{"id":"call_Lp9XsWq2Hc6Fb3TgYv8Kn1Rd","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"main.go\"}"}},{"id":"call_Zr5NaUe7Mj2Ck9PwQx4Sy6Ht","type":"function","function":{"name":"grep","arguments":"{\"pattern\":\"println\"}"}},{"id":"call_Bv1GdTo4Wl8Ei3RqKs7Fm0Xa","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"src/ma"}},{"id":"call_Hn6YcPi9Ju2Ob5SeLk3Dw8Vf","type":"function","function":{"name":"screenshot","arguments":"{}"}}],"refusal":null,"annotations":[]}`)
	f.Add(`{"role":"assistant","tool_calls":[{"id":"a","type":"custom","custom":{"name":"search","input":"x"}},{"id":"b","type":"function","function":{"name":"","arguments":""}}]}`)
	f.Add(`{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"search","arguments":"{\"query\":null,\"lang\":null,\"Query\":1}"}}]}`)
	f.Add(`null`)
	reg, _ := testRegistry(f)
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
	f.Add(`{"id":"resp_0a6f3c1d2b4e5f60006921b2c0d8e48190a1b2c3d4e5f607","output":[{"id":"fc_0a6f3c1d2b4e5f60006921b2c1a4c88190b7e6d5c4b3a291","type":"function_call","status":"completed","arguments":"{\"query\":\"println\",\"lang\":\"go\",\"limit\":null}","call_id":"call_Tq8WnEa3Rk6Ys1Lc9Vb4Pm2X","name":"search"},{"id":"fc_0a6f3c1d2b4e5f60006921b2c1b9d08190a2f3e4d5c6b7a8","type":"function_call","status":"completed","arguments":"{}","call_id":"call_Jd5FhUo0Ni7Qw3Zx8Kr1Gs4M","name":"screenshot"},{"id":"fc_0a6f3c1d2b4e5f60006921b2c1c7e18190c3d4e5f6a7b8c9","type":"function_call","status":"completed","arguments":"{\"vars\":{\"GOFLAGS\":\"-mod=mod\"}}","call_id":"call_Ye2VkIb6Ta9Mp4Hn0Dc7Ls3R","name":"set_env"}]}`)
	f.Add(`{"output":[{"type":"function_call","call_id":"x","name":"read_file","arguments":"{\"path\":"}]}`)
	f.Add(`null`)
	reg, _ := testRegistry(f)
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
