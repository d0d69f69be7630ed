package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

type (
	outHit struct {
		File string   `json:"file"`
		Tags []string `json:"tags"`
	}
	outMeta struct {
		Source string `json:"source"`
	}
	outColor string
	// outAll has every field encoding/json may write as null, and one
	// embedded pointer whose fields it may leave out.
	outAll struct {
		*outMeta
		Hits    []outHit            `json:"hits"`
		ByFile  map[string][]outHit `json:"by_file"`
		Best    *outHit             `json:"best"`
		Extra   any                 `json:"extra"`
		Raw     []byte              `json:"raw"`
		When    *time.Time          `json:"when"`
		Color   *outColor           `json:"color" jsonschema:"enum=red,enum=blue"`
		Count   int                 `json:"count"`
		Matrix  [][]int             `json:"matrix"`
		Skipped []string            `json:"skipped,omitempty"`
	}
)

// TestOutputSchemaDescribesEveryResult checks the generated output schema
// against what the tool really returns, zero values included: an MCP client
// validates structuredContent against it and fails the call on a mismatch.
func TestOutputSchemaDescribesEveryResult(t *testing.T) {
	red := outColor("red")
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		out  outAll
	}{
		{"zero value", outAll{}},
		{"empty, not nil", outAll{Hits: []outHit{}, ByFile: map[string][]outHit{}, Raw: []byte{}, Matrix: [][]int{}}},
		{"nil inside", outAll{Hits: []outHit{{File: "a.go"}}, ByFile: map[string][]outHit{"a.go": nil}, Matrix: [][]int{nil, {1}}}},
		{"filled", outAll{
			outMeta: &outMeta{Source: "index"}, Hits: []outHit{{File: "a.go", Tags: []string{"x"}}},
			ByFile: map[string][]outHit{"a.go": {{File: "a.go", Tags: []string{}}}}, Best: &outHit{File: "b.go"},
			Extra: map[string]any{"k": 1}, Raw: []byte("hi"), When: &now, Color: &red, Count: 3, Matrix: [][]int{{1, 2}}, Skipped: []string{"c.go"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := tool.New(tool.Definition{Name: "search", Description: "Searches."}, func(context.Context, struct{}) (outAll, error) { return tt.out, nil })
			res := call(newRegistry(t, tl), "search", `{}`)
			require.Equal(t, tool.StatusOK, res.Status, res.Text())
			require.NotEmpty(t, res.Structured)
			sch := compileOutput(t, tl.Definition().OutputSchema)
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Structured))
			require.NoError(t, err)
			assert.NoError(t, sch.Validate(v), "structured output %s\nagainst %s", res.Structured, tl.Definition().OutputSchema)
		})
	}
}

// TestOutputSchemaStillRefuses makes sure null is let in only where Go
// writes it, not everywhere.
func TestOutputSchemaStillRefuses(t *testing.T) {
	tl := tool.New(tool.Definition{Name: "search", Description: "Searches."}, func(context.Context, struct{}) (outAll, error) { return outAll{}, nil })
	sch := compileOutput(t, tl.Definition().OutputSchema)
	for _, doc := range []string{
		`{"hits":[1],"by_file":null,"best":null,"extra":null,"raw":null,"when":null,"color":null,"count":0,"matrix":null}`,
		`{"hits":null,"by_file":null,"best":null,"extra":null,"raw":null,"when":null,"color":"green","count":0,"matrix":null}`,
		`{"hits":null,"by_file":null,"best":null,"extra":null,"raw":null,"when":null,"color":null,"count":null,"matrix":null}`,
		`{"hits":[{"file":null,"tags":null}],"by_file":null,"best":null,"extra":null,"raw":null,"when":null,"color":null,"count":0,"matrix":null}`,
		`{"by_file":null,"best":null,"extra":null,"raw":null,"when":null,"color":null,"count":0,"matrix":null}`,
	} {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(doc)))
		require.NoError(t, err)
		assert.Error(t, sch.Validate(v), "%s passed", doc)
	}
}

func TestNullIsNotStructuredOutput(t *testing.T) {
	tests := []struct {
		name             string
		tl               tool.AnyTool
		text, structured string
	}{
		{"a nil pointer", tool.New(tool.Definition{Name: "t", Description: "T."}, func(context.Context, struct{}) (*outHit, error) { return nil, nil }), "null", ""},
		{"a list", tool.New(tool.Definition{Name: "t", Description: "T."}, func(context.Context, struct{}) ([]int, error) { return []int{1, 2}, nil }), "[1,2]", "[1,2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(newRegistry(t, tt.tl), "t", `{}`)
			assert.Equal(t, tool.StatusOK, res.Status)
			assert.Equal(t, tt.text, res.Text())
			assert.Equal(t, tt.structured, string(res.Structured))
		})
	}
}

func compileOutput(t *testing.T, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("output.json", doc))
	sch, err := c.Compile("output.json")
	require.NoError(t, err)
	return sch
}
