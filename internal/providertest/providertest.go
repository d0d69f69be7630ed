// Package providertest holds what the provider adapters' tests share: the
// tools offered to the model, a fake of the provider's HTTP API that
// replays recorded responses, and golden files of the requests sent.
package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

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

// Registry returns the tools the tests offer the model, and the arguments
// search received last.
func Registry(t testing.TB) (*tool.Registry[struct{}], *SearchArgs) {
	t.Helper()
	var mu sync.Mutex
	var last SearchArgs
	reg := tool.NewRegistry[struct{}](nil)
	err := reg.Add(
		tool.New(tool.Definition{Name: "search", Description: "Search the project's files for a text.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in SearchArgs) ([]Hit, error) {
				mu.Lock()
				last = in
				mu.Unlock()
				return []Hit{{File: "main.go", Line: 4}}, nil
			}),
		tool.New(tool.Definition{Name: "read_file", Description: "Read one file of the project.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in ReadArgs) (string, error) {
				if in.Path != "main.go" {
					return "", &tool.Error{Message: "no file named " + in.Path, Hint: "call search first"}
				}
				return "package main\n", nil
			}),
		tool.New(tool.Definition{Name: "set_env", Description: "Set environment variables for later commands.", Safety: tool.SafetyMutating},
			func(_ context.Context, in EnvArgs) (string, error) { return "set", nil }),
		tool.NewRaw(tool.Definition{Name: "screenshot", Description: "Take a screenshot of the app.", Safety: tool.SafetyReadOnly,
			InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)},
			func(context.Context, json.RawMessage) (*tool.Result, error) {
				return &tool.Result{Content: []tool.Content{tool.TextContent("The app's window:"), tool.ImageContent(PNGPixel, "image/png")}}, nil
			}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg, &last
}

// PNGPixel is a 1×1 PNG.
var PNGPixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// FakeAPI is an HTTP server standing in for the provider: it records each
// request and answers with the recorded responses under testdata, in
// order.
type FakeAPI struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
}

// NewFakeAPI starts a FakeAPI that replies with the files named, from
// testdata, one per request; it is closed when the test ends.
func NewFakeAPI(t *testing.T, responses ...string) *FakeAPI {
	t.Helper()
	f := &FakeAPI{}
	var replies [][]byte
	for _, r := range responses {
		b, err := os.ReadFile(filepath.Join("testdata", r))
		if err != nil {
			t.Fatal(err)
		}
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

// Body returns the body of request i.
func (f *FakeAPI) Body(i int) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[i]
}

// Path returns the URL path of request i.
func (f *FakeAPI) Path(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.paths[i]
}

// GoldenJSON compares JSON with the golden file testdata/name, both
// indented; -tooltest.update (see tooltest.Updating) rewrites the file.
func GoldenJSON(t *testing.T, name string, got []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, got, "", "  "); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b.WriteByte('\n')
	tooltest.Golden(t, filepath.Join("testdata", name), b.Bytes())
}
