package toolanthropic_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	toolanthropic "github.com/toolbelt-go/tool/toolanthropic"

	"github.com/toolbelt-go/tool/internal/providertest"
)

// FuzzRun feeds any message the SDK decodes to Run: it never panics, and
// answers every tool_use block, in order, by its ID, with a non-empty
// tool_result.
func FuzzRun(f *testing.F) {
	b, err := os.ReadFile("testdata/messages_response_1.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"","input":null},{"type":"tool_use","id":"b","name":"read_file","input":"{\"path\":1}"}]}`)
	reg, _ := providertest.Registry(f)
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
		if len(out) != 2 || len(out[1].Content) != len(ids) {
			t.Fatalf("%d calls, %d messages", len(ids), len(out))
		}
		for i, c := range out[1].Content {
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
