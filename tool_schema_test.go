package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestSchemaFromTags(t *testing.T) {
	s, err := tool.SchemaOf[searchArgs]()
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"type":"object","additionalProperties":false,"required":["query"],
		"properties":{
			"query":{"type":"string","minLength":1,"description":"what to find"},
			"limit":{"type":"integer","minimum":1,"maximum":100,"default":10},
			"lang":{"type":"string","enum":["go","rust","python"]},
			"path":{"type":"string","pattern":"^[a-z/]*$"}}}`, string(s))
}

type hiddenOpts struct {
	Depth int `json:"depth"`
}

type hiddenInner struct{ hiddenOpts }

type fieldless struct{ _ int }

type (
	embedsUnexportedPointer struct {
		*hiddenOpts
		Path string `json:"path"`
	}
	nestsIt struct {
		Where []embedsUnexportedPointer `json:"where"`
	}
	embedsUnexportedValue struct {
		hiddenOpts
		Path string `json:"path"`
	}
	embedsFieldless struct {
		*fieldless
		Path string `json:"path"`
	}
	embedsDeeper struct {
		*hiddenInner
	}
)

// A field the decoder cannot set is refused at registration: an embedded
// pointer to an unexported struct would be offered to the model and then
// refuse every call that uses it.
func TestArgumentsTheDecoderCannotSet(t *testing.T) {
	tests := []struct {
		name string
		tool tool.AnyTool
		says string
	}{
		{"an embedded pointer to an unexported struct", tool.New(tool.Definition{Name: "t", Description: "T."},
			func(context.Context, embedsUnexportedPointer) (string, error) { return "", nil }), "field hiddenOpts (*tool_test.hiddenOpts)"},
		{"the same, deeper", tool.New(tool.Definition{Name: "t", Description: "T."},
			func(context.Context, nestsIt) (string, error) { return "", nil }), "field Where.hiddenOpts"},
		{"its fields promoted from further down", tool.New(tool.Definition{Name: "t", Description: "T."},
			func(context.Context, embedsDeeper) (string, error) { return "", nil }), "field hiddenInner"},
		{"with an input schema of its own", tool.New(tool.Definition{Name: "t", Description: "T.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"depth":{"type":"integer"}}}`)},
			func(context.Context, embedsUnexportedPointer) (string, error) { return "", nil }), "embed hiddenOpts by value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tool.NewRegistry[struct{}](nil).Add(tt.tool)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.says)
			assert.Contains(t, err.Error(), "decoder cannot set")
		})
	}

	// Embedded by value, or with nothing to promote, it is fine: the call
	// reaches the fields.
	var got embedsUnexportedValue
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(
		tool.New(tool.Definition{Name: "v", Description: "V."}, func(_ context.Context, in embedsUnexportedValue) (string, error) {
			got = in
			return "", nil
		}),
		tool.New(tool.Definition{Name: "f", Description: "F."}, func(_ context.Context, in embedsFieldless) (string, error) {
			return fmt.Sprint(in.fieldless != nil), nil
		}),
	))
	res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "v", Args: json.RawMessage(`{"depth":2,"path":"a"}`)})
	require.Equal(t, tool.StatusOK, res.Status, res.Text())
	assert.Equal(t, 2, got.Depth)
	_, err := tool.SchemaOf[embedsUnexportedPointer]()
	assert.ErrorContains(t, err, "decoder cannot set")
}
