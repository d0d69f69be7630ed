package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
)

type searchArgs struct {
	Query string `json:"query" jsonschema:"description=what to find,minLength=1"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100,default=10"`
	Lang  string `json:"lang,omitempty" jsonschema:"enum=go,enum=rust,enum=python"`
	Path  string `json:"path,omitempty" jsonschema:"pattern=^[a-z/]*$"`
}

// received records what the search tool was given.
var received = make(chan searchArgs, 100)

func newSearch() tool.AnyTool {
	return tool.New(tool.Definition{Name: "search", Description: "Search the code."},
		func(ctx context.Context, in searchArgs) (map[string]any, error) {
			select {
			case received <- in:
			default:
			}
			return map[string]any{"query": in.Query, "limit": in.Limit}, nil
		})
}

func newRegistry(t *testing.T, tools ...tool.Definer) *tool.Registry[struct{}] {
	t.Helper()
	r := tool.NewRegistry[struct{}](nil)
	require.NoError(t, r.Add(tools...))
	return r
}

func call(r *tool.Registry[struct{}], name, args string) *tool.Result {
	return r.Call(context.Background(), struct{}{}, tool.Request{ID: "call-1", Name: name, Args: []byte(args)})
}

// checkModelText asserts what every model view must be: no raw control
// characters, bounded.
func checkModelText(t *testing.T, res *tool.Result) {
	t.Helper()
	txt := res.Text()
	assert.LessOrEqual(t, len(txt), 16<<10, "model text size")
	for _, r := range txt {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			assert.Failf(t, "raw control character", "model text holds raw control %U: %q", r, txt)
			return
		}
	}
	assert.NotContains(t, txt, "\x1b", "model text holds ESC")
}

func bytesReader(b []byte) *strings.Reader { return strings.NewReader(string(b)) }

func registryWith(t *testing.T, opts *tool.RegistryOptions, tools ...tool.Definer) *tool.Registry[struct{}] {
	t.Helper()
	r := tool.NewRegistry[struct{}](opts)
	require.NoError(t, r.Add(tools...))
	return r
}

type noArgs struct{}

type point struct {
	X int `json:"x"`
}
