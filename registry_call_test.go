package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool"
)

func TestUnknownTool(t *testing.T) {
	r := newRegistry(t, newSearch(), tool.New(tool.Definition{Name: "read_file", Description: "x"}, func(context.Context, noArgs) (string, error) { return "", nil }))
	tests := []struct{ name, suggest string }{
		{"Search", "search"},
		{"serch", "search"},
		{"s\u0435arch", "search"}, // Cyrillic e
		{"read-file", "read_file"},
		{"readfile", "read_file"},
		{"", ""},
		{strings.Repeat("x", 10000), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name[:min(len(tt.name), 20)], func(t *testing.T) {
			res := call(r, tt.name, `{}`)
			assert.Equal(t, tool.StatusUnknownTool, res.Status)
			assert.ErrorIs(t, res.Err, tool.ErrUnknownTool)
			if tt.suggest != "" {
				assert.Contains(t, res.Text(), `Did you mean "`+tt.suggest+`"`)
			}
			assert.Contains(t, res.Text(), "Available tools: read_file, search.")
			checkModelText(t, res)
			assert.Less(t, len(res.Text()), 1024)
		})
	}
}
