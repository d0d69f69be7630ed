package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

type session struct{ user string }

type report struct {
	Path  string `json:"path"`
	Lines int    `json:"lines,omitempty"`
}

func TestDefinitionJSON(t *testing.T) {
	count := tool.New(tool.Definition{Name: "count", Title: "Count lines", Description: "Counts lines.", Safety: tool.SafetyReadOnly},
		func(context.Context, struct {
			Path string `json:"path"`
		}) (report, error) {
			return report{}, nil
		})
	def := count.Definition()
	require.NotEmpty(t, def.OutputSchema, "a struct result gets an output schema")
	assert.JSONEq(t, `{"type":"object","properties":{"path":{"type":"string"},"lines":{"type":"integer"}},"required":["path"],"additionalProperties":false}`, string(def.OutputSchema))

	b, err := json.Marshal(def)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	assert.ElementsMatch(t, []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}, keys(m))
	assert.JSONEq(t, `{"title":"Count lines","readOnlyHint":true,"openWorldHint":false}`, string(m["annotations"]))

	var back tool.Definition
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, tool.SafetyReadOnly, back.Safety)
	assert.Equal(t, def.Name, back.Name)
	assert.JSONEq(t, string(def.InputSchema), string(back.InputSchema))
}

func TestAnnotations(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		def  tool.Definition
		want tool.Annotations
	}{
		{tool.Definition{Safety: tool.SafetyReadOnly}, tool.Annotations{ReadOnly: &yes, OpenWorld: &no}},
		{tool.Definition{Safety: tool.SafetyMutating, Idempotent: true}, tool.Annotations{ReadOnly: &no, Destructive: &no, Idempotent: &yes, OpenWorld: &no}},
		{tool.Definition{Safety: tool.SafetyDestructive}, tool.Annotations{ReadOnly: &no, Destructive: &yes, Idempotent: &no, OpenWorld: &no}},
		{tool.Definition{Safety: tool.SafetyNetwork}, tool.Annotations{ReadOnly: &no, Destructive: &no, Idempotent: &no, OpenWorld: &yes}},
		{tool.Definition{}, tool.Annotations{Idempotent: &no}}, // unspecified: the client's worst-case defaults hold
	}
	for _, tt := range tests {
		t.Run(tt.def.Safety.String(), func(t *testing.T) {
			assert.Equal(t, tt.want, tt.def.Annotations())
		})
	}
}

func keys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
