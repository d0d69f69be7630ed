package toolopenai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	toolopenai "github.com/toolbelt-go/tool/toolopenai"
)

// FindArgs has an optional int, an optional nested object with an optional
// key of its own, and a required key.
type FindArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,default=10"`
	Where *struct {
		Dir   string `json:"dir"`
		Depth int    `json:"depth,omitempty"`
	} `json:"where,omitempty"`
}

// The nulls a strict model sends reach the tool as absent keys, through
// the adapter; a null for a required key is still refused.
func TestStrictNullsThroughTheAdapter(t *testing.T) {
	var got FindArgs
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(tool.New(tool.Definition{Name: "find", Description: "Find files."},
		func(_ context.Context, in FindArgs) (string, error) {
			got = in
			return "found", nil
		})))
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	fn := ai.ChatTools()[0].OfFunction.Function
	require.True(t, fn.Strict.Value)
	schema, err := json.Marshal(fn.Parameters)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["query","limit","where"],"properties":{
		"query":{"type":"string"},
		"limit":{"type":["integer","null"],"minimum":1,"description":"Default: 10."},
		"where":{"type":["object","null"],"additionalProperties":false,"required":["dir","depth"],"properties":{
			"dir":{"type":"string"},"depth":{"type":["integer","null"]}}}}}`, string(schema))

	tests := []struct {
		name, args string
		ok         bool
		want       FindArgs
	}{
		{"optional int and object null", `{"query":"x","limit":null,"where":null}`, true, FindArgs{Query: "x", Limit: 10}},
		{"optional key inside the object null", `{"query":"x","limit":3,"where":{"dir":"src","depth":null}}`, true,
			FindArgs{Query: "x", Limit: 3, Where: &struct {
				Dir   string `json:"dir"`
				Depth int    `json:"depth,omitempty"`
			}{Dir: "src"}}},
		{"required key null", `{"query":null,"limit":null,"where":null}`, false, FindArgs{}},
		{"required key inside the object null", `{"query":"x","limit":null,"where":{"dir":null,"depth":null}}`, false, FindArgs{}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = FindArgs{}
			msg := openai.ChatCompletionMessage{ToolCalls: []openai.ChatCompletionMessageToolCallUnion{{
				ID: fmt.Sprint("call_", i), Type: "function",
				Function: openai.ChatCompletionMessageFunctionToolCallFunction{Name: "find", Arguments: tt.args},
			}}}
			answer := ai.RunChat(context.Background(), struct{}{}, msg)[1].OfTool.Content.OfString.Value
			if !tt.ok {
				assert.Contains(t, answer, "Invalid arguments for find")
				assert.Equal(t, FindArgs{}, got, "the tool did not run")
				return
			}
			assert.Equal(t, "found", answer)
			assert.Equal(t, tt.want, got)
		})
	}
}
