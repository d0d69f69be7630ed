package toolanthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	toolanthropic "github.com/toolbelt-go/tool/toolanthropic"
)

// FuzzRun feeds any message the SDK decodes to Run: it never panics, and
// answers every tool_use block, in order, by its ID, with a non-empty
// tool_result.
func FuzzRun(f *testing.F) {
	f.Add(`{"id":"msg_01Hq8uQmZkP3TnYcV2rWs9Ld","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"I'll search the project for println, read the guide and take a screenshot."},{"type":"tool_use","id":"toolu_01A7fKxW3qZm9NcR2vTyB8Ue","name":"search","input":{"query":"println"}},{"type":"tool_use","id":"toolu_01Bd4LpQ8sXe6HwJ1kVnC3Ma","name":"read_file","input":{"path":"docs/guide.md"}},{"type":"tool_use","id":"toolu_01Cm2RtY7uVf5GxK9pWzD4Nb","name":"screenshot","input":{}},{"type":"tool_use","id":"toolu_01De6SvZ1wXg3HyL7qAaE5Oc","name":"Search","input":{"query":"main"}},{"type":"tool_use","id":"toolu_01Ef8TwA3xYh1IzM5rBbF6Pd","name":"search","input":{"query":5,"limit":"3"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":612,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":187,"service_tier":"standard"}}`)
	f.Add(`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"","input":null},{"type":"tool_use","id":"b","name":"read_file","input":"{\"path\":1}"}]}`)
	f.Add(`null`)
	reg, _ := testRegistry(f)
	ai := toolanthropic.New(reg, nil)
	f.Fuzz(func(t *testing.T, raw string) {
		var msg anthropic.Message
		if json.Unmarshal([]byte(raw), &msg) != nil {
			return
		}
		var ids []string
		for _, c := range msg.Content {
			if c.Type == "tool_use" {
				ids = append(ids, c.ID)
			}
		}
		out := ai.Run(context.Background(), struct{}{}, &msg)
		if len(ids) == 0 {
			if len(out) != 1 {
				t.Fatalf("no tool_use, %d messages", len(out))
			}
			return
		}
		if len(out) != 2 || len(out[1].OfUser.Content) != len(ids) {
			t.Fatalf("%d calls, %d messages", len(ids), len(out))
		}
		for i, c := range out[1].OfUser.Content {
			r := c.OfToolResult
			if r == nil || r.ToolUseID != ids[i] || len(r.Content) == 0 {
				t.Fatalf("call %d is not answered", i)
			}
			for _, part := range r.Content {
				if part.OfText != nil && part.OfText.Text == "" {
					t.Fatalf("call %d has an empty text block, which Anthropic refuses", i)
				}
			}
		}
	})
}
