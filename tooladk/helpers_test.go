package tooladk_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"google.golang.org/adk/agent"
	adktool "google.golang.org/adk/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooladk"
	"github.com/toolbelt-go/tool/tooladk/adktest"
)

// host is the host state the tests' tools receive.
type host struct {
	User string
}

type weatherArgs struct {
	City  string `json:"city" jsonschema:"description=City name,minLength=1"`
	Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial,default=metric"`
}

type deleteArgs struct {
	Path string `json:"path" jsonschema:"minLength=1"`
}

// files is what the destructive tool deletes from: a record of which
// deletes ran.
type files struct {
	mu      sync.Mutex
	deleted []string
}

func (f *files) delete(path string) {
	f.mu.Lock()
	f.deleted = append(f.deleted, path)
	f.mu.Unlock()
}

func (f *files) Deleted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.deleted...)
}

// newRegistry is a registry with a read-only weather tool and a
// destructive delete_file tool, and approval by approver (none: no
// approval stage). Nil opts keep records.
func newRegistry(t testing.TB, approver tool.Approver, opts *tool.RegistryOptions) (*tool.Registry[host], *files) {
	t.Helper()
	if opts == nil {
		opts = &tool.RegistryOptions{Records: tool.NewMemoryRecordStore(0)}
	}
	reg := tool.NewRegistry[host](opts)
	fs := &files{}
	reg.MustAdd(
		tool.NewFor(tool.Definition{Name: "weather", Description: "Current weather for a city.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, call *tool.Call[host], in weatherArgs) (string, error) {
				return "21°C and sunny in " + in.City + " (" + in.Units + ") for " + call.State.User, nil
			}),
		tool.New(tool.Definition{Name: "delete_file", Description: "Delete a file.", Safety: tool.SafetyDestructive},
			func(_ context.Context, in deleteArgs) (string, error) {
				fs.delete(in.Path)
				return "deleted " + in.Path, nil
			}),
	)
	if approver != nil {
		reg.Use(tool.Approval(&tool.ApprovalOptions[host]{Approver: approver}))
	}
	return reg, fs
}

// stateFromADK is Options.State of the tests: the user of ADK's session.
func stateFromADK() *tooladk.Options[host] {
	return &tooladk.Options[host]{State: func(ctx agent.ToolContext) (host, error) { return host{User: ctx.UserID()}, nil }}
}

func newRunner(ts adktool.Toolset) *adktest.Runner {
	return adktest.NewRunner(adktest.Config{Toolsets: []adktool.Toolset{ts}})
}

// errorText returns the "error" of a function response, "" if none.
func errorText(resp map[string]any) string {
	s, _ := resp["error"].(string)
	return s
}

// outputText returns the "output" of a function response as text: a
// string as it is, anything else as JSON.
func outputText(resp map[string]any) string {
	switch v := resp["output"].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func contains(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}
