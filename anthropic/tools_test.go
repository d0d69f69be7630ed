package toolanthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// SearchArgs has the optional keys a strict model sends as null.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"description=Text to look for,minLength=1"`
	Lang  string `json:"lang,omitempty" jsonschema:"description=Only files of this language,enum=go,enum=md"`
	Limit int    `json:"limit,omitempty" jsonschema:"description=Most hits to return,minimum=1,maximum=50,default=5"`
}

// Hit is one search result.
type Hit struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// ReadArgs are read_file's arguments.
type ReadArgs struct {
	Path string `json:"path" jsonschema:"description=File path inside the project"`
}

// EnvArgs has a free-form map, which strict mode cannot express.
type EnvArgs struct {
	Vars map[string]string `json:"vars" jsonschema:"description=Variables to set"`
}

// testRegistry returns the tools the tests offer the model, and the
// arguments search received last.
func testRegistry(t testing.TB) (*tool.Registry[struct{}], *SearchArgs) {
	t.Helper()
	var mu sync.Mutex
	var last SearchArgs
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(
		tool.New(tool.Definition{Name: "search", Description: "Search the project's files for a text.", Safety: tool.ReadOnly},
			func(_ context.Context, in SearchArgs) ([]Hit, error) {
				mu.Lock()
				last = in
				mu.Unlock()
				return []Hit{{File: "main.go", Line: 4}}, nil
			}),
		tool.New(tool.Definition{Name: "read_file", Description: "Read one file of the project.", Safety: tool.ReadOnly},
			func(_ context.Context, in ReadArgs) (string, error) {
				if in.Path != "main.go" {
					return "", &tool.Error{Message: "no file named " + in.Path, Hint: "call search first"}
				}
				return "package main\n", nil
			}),
		tool.New(tool.Definition{Name: "set_env", Description: "Set environment variables for later commands.", Safety: tool.Mutating},
			func(_ context.Context, in EnvArgs) (string, error) { return "set", nil }),
		tool.NewRaw(tool.Definition{Name: "screenshot", Description: "Take a screenshot of the app.", Safety: tool.ReadOnly,
			InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
			func(context.Context, json.RawMessage) (*tool.Result, error) {
				return &tool.Result{Content: []tool.Content{tool.TextContent("The app's window:"), tool.ImageContent(pngPixel, "image/png")}}, nil
			}),
	))
	return reg, &last
}

// pngPixel is a 1×1 PNG.
var pngPixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// fakeAPI is an HTTP server standing in for the provider: it records each
// request body and answers with the recorded responses under testdata, in
// order.
type fakeAPI struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
}

func newFakeAPI(t *testing.T, responses ...string) *fakeAPI {
	t.Helper()
	f := &fakeAPI{}
	var replies [][]byte
	for _, r := range responses {
		b, err := os.ReadFile(filepath.Join("testdata", r))
		require.NoError(t, err)
		replies = append(replies, b)
	}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := len(f.bodies)
		f.bodies = append(f.bodies, body)
		f.paths = append(f.paths, r.URL.Path)
		f.mu.Unlock()
		if n >= len(replies) {
			http.Error(w, `{"error":{"message":"no more recorded responses"}}`, http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(replies[n])
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) body(i int) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[i]
}

// goldenJSON compares JSON with a golden file, both indented; -update
// rewrites the file.
func goldenJSON(t *testing.T, name string, got []byte) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Indent(&b, got, "", "  "))
	b.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file; run the test with -update to create it")
	if string(want) != b.String() {
		t.Errorf("%s differs from what was sent (run with -update if the change is intended):\n%s", path, diff(string(want), b.String()))
	}
}

func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return "line " + itoa(i+1) + ":\n- " + w[i] + "\n+ " + g[i]
		}
	}
	return "lengths differ"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
