package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestOutputByteCap(t *testing.T) {
	big := "HEAD" + strings.Repeat("é", 20_000) + "TAIL"
	tests := []struct {
		name    string
		def     tool.Definition
		opts    tool.RegistryOptions
		fn      func() (*tool.Result, error)
		wantMax int
	}{
		{name: "definition cap", def: tool.Definition{MaxOutputBytes: 1000},
			fn: func() (*tool.Result, error) { return tool.TextResult(big), nil }, wantMax: 1000},
		{name: "registry cap", opts: tool.RegistryOptions{MaxOutputBytes: 2000},
			fn: func() (*tool.Result, error) { return tool.TextResult(big), nil }, wantMax: 2000},
		{name: "package default", fn: func() (*tool.Result, error) { return tool.TextResult(big + big), nil }, wantMax: tool.DefaultMaxOutputBytes},
		{name: "error text", def: tool.Definition{MaxOutputBytes: 1000},
			fn: func() (*tool.Result, error) { return nil, &tool.Error{Message: big} }, wantMax: 1000},
		{name: "binary output", def: tool.Definition{MaxOutputBytes: 1000},
			fn: func() (*tool.Result, error) {
				return tool.TextResult("HEAD" + strings.Repeat("\xff\x00\xfe", 2000) + "TAIL"), nil
			}, wantMax: 1000},
		{name: "several blocks", def: tool.Definition{MaxOutputBytes: 1000},
			fn: func() (*tool.Result, error) {
				return &tool.Result{Content: []tool.Content{tool.TextContent("HEAD" + strings.Repeat("a", 500)), tool.TextContent(strings.Repeat("b", 900) + "TAIL"), tool.TextContent("dropped")}}, nil
			}, wantMax: 1100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.def.Name, tt.def.Description = "out", "Prints a lot."
			tt.def.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
			r := registryWith(t, &tt.opts, tool.NewRaw(tt.def, func(context.Context, json.RawMessage) (*tool.Result, error) { return tt.fn() }))
			res := call(r, "out", "")
			txt := res.Text()
			assert.LessOrEqual(t, len(txt), tt.wantMax)
			assert.True(t, utf8.ValidString(txt))
			assert.True(t, strings.HasPrefix(txt, "HEAD") || strings.HasPrefix(txt, "Error: HEAD"), "head kept: %.40q", txt)
			assert.Contains(t, txt, "bytes cut here")
			assert.Positive(t, res.Truncated)
			b, err := json.Marshal(res)
			require.NoError(t, err)
			assert.True(t, json.Valid(b))
			if tt.name != "several blocks" {
				assert.True(t, strings.HasSuffix(txt, "TAIL"), "tail kept: %q", txt[max(0, len(txt)-40):])
			}
		})
	}
}

func TestOutputCapDropsLargeOrBrokenStructured(t *testing.T) {
	type row struct{ Line string }
	many := tool.New(tool.Definition{Name: "rows", Description: "Returns rows.", MaxOutputBytes: 500},
		func(context.Context, noArgs) ([]row, error) {
			return make([]row, 100), nil
		})
	broken := tool.NewRaw(tool.Definition{Name: "broken", Description: "Returns broken JSON.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) {
			return &tool.Result{Content: []tool.Content{tool.TextContent("ok")}, Structured: json.RawMessage(`{"a":`)}, nil
		})
	r := registryWith(t, nil, many, broken)
	res := call(r, "rows", "")
	assert.Nil(t, res.Structured, "cut JSON is not JSON")
	assert.LessOrEqual(t, len(res.Text()), 500)
	res = call(r, "broken", "")
	assert.Nil(t, res.Structured)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.True(t, json.Valid(b))
}
