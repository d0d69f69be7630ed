package toolmcp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
)

type listed struct {
	Items []string `json:"items"`
}

// TestOutputSchemaKept checks MCP's rule for tools that list an
// outputSchema: a successful result carries structuredContent (clients such
// as the TypeScript SDK fail the call otherwise), so when the output stage
// has to leave it out, the result is an error result that says why.
func TestOutputSchemaKept(t *testing.T) {
	reg := tool.NewRegistry[state](&tool.RegistryOptions{MaxOutputBytes: 2048})
	reg.MustAdd(
		tool.New(tool.Definition{Name: "list", Description: "Lists n items.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in struct {
				N int `json:"n"`
			}) (listed, error) {
				var out listed // nil when n is 0: encoded as null, which the schema allows
				for i := range in.N {
					out.Items = append(out.Items, "item "+strconv.Itoa(i))
				}
				return out, nil
			}),
		tool.New(tool.Definition{Name: "maybe", Description: "Returns nothing.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (*listed, error) { return nil, nil }),
		tool.New(tool.Definition{Name: "items", Description: "Returns a list: no outputSchema, text only.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) ([]string, error) { return []string{"a", "b"}, nil }),
	)
	cs := connect(t, serve(t, reg, nil), nil, legacyProtocol)
	tests := []struct {
		name, tool, args string
		isError          bool
		structured       string
		text             string
	}{
		{"nothing found", "list", `{"n":0}`, false, `{"items":null}`, `{"items":null}`},
		{"a few", "list", `{"n":2}`, false, `{"items":["item 0","item 1"]}`, `item 1`},
		{"over the cap", "list", `{"n":5000}`, true, "", "ran and succeeded, but its result is over the size limit"},
		{"a nil pointer", "maybe", `{}`, true, "", "not the object its output schema declares"},
		{"a list", "items", `{}`, false, "", `["a","b"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args)
			if res.IsError != tt.isError {
				t.Errorf("isError = %v, want %v: %.300s", res.IsError, tt.isError, text(res))
			}
			got := ""
			if res.StructuredContent != nil {
				b, _ := json.Marshal(res.StructuredContent)
				got = string(b)
			}
			if got != tt.structured {
				t.Errorf("structuredContent = %s, want %s", got, tt.structured)
			}
			if !res.IsError && res.StructuredContent == nil && tt.tool != "items" {
				t.Error("a success without structuredContent from a tool with an outputSchema")
			}
			if !strings.Contains(text(res), tt.text) {
				t.Errorf("text %.300q does not contain %q", text(res), tt.text)
			}
		})
	}
}
