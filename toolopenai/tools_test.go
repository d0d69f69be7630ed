package toolopenai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// SearchArgs has the optional keys a strict model sends as null.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"description=Text to look for,minLength=1"`
	Lang  string `json:"lang,omitempty" jsonschema:"description=Only files of this language,enum=go,enum=md"`
	Limit int    `json:"limit,omitempty" jsonschema:"description=Most hits to return,minimum=1,maximum=50,default=5"`
}

type hit struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// pngPixel is a 1×1 PNG.
var pngPixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// testRegistry returns the tools the tests offer the model, and the
// arguments search received last.
func testRegistry(t testing.TB) (*tool.Registry[struct{}], func() SearchArgs) {
	t.Helper()
	var mu sync.Mutex
	var last SearchArgs
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(
		tool.New(tool.Definition{Name: "search", Description: "Search the project's files for a text.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in SearchArgs) ([]hit, error) {
				mu.Lock()
				last = in
				mu.Unlock()
				return []hit{{File: "main.go", Line: 4}}, nil
			}),
		tool.New(tool.Definition{Name: "read_file", Description: "Read one file of the project.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in struct {
				Path string `json:"path" jsonschema:"description=File path inside the project"`
			}) (string, error) {
				if in.Path != "main.go" {
					return "", &tool.Error{Message: "no file named " + in.Path, Hint: "call search first"}
				}
				return "package main\n", nil
			}),
		tool.New(tool.Definition{Name: "set_env", Description: "Set environment variables for later commands.", Safety: tool.SafetyMutating},
			func(_ context.Context, in struct {
				Vars map[string]string `json:"vars" jsonschema:"description=Variables to set"`
			}) (string, error) {
				return "set", nil
			}),
		tool.NewRaw(tool.Definition{Name: "screenshot", Description: "Take a screenshot of the app.", Safety: tool.SafetyReadOnly,
			InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
			func(context.Context, json.RawMessage) (*tool.Result, error) {
				return &tool.Result{Content: []tool.Content{tool.TextContent("The app's window:"), tool.ImageContent(pngPixel, "image/png")}}, nil
			}),
	))
	return reg, func() SearchArgs {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

// golden compares JSON with testdata/name, indented (see tooltest.Golden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Indent(&b, got, "", "  "))
	b.WriteByte('\n')
	tooltest.Golden(t, filepath.Join("testdata", name), b.Bytes())
}
