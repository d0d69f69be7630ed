package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

type addArgs struct {
	A int `json:"a" jsonschema:"description=First addend"`
	B int `json:"b" jsonschema:"description=Second addend"`
}

type sum struct {
	Sum int `json:"sum"`
}

type state struct{ user string }

// testTools are tools of every kind a client lists and calls.
func testTools() []tool.Definer {
	return []tool.Definer{
		tool.New(tool.Definition{Name: "add", Title: "Add", Description: "Add two integers.", Safety: tool.SafetyReadOnly, Idempotent: true},
			func(_ context.Context, in addArgs) (sum, error) { return sum{in.A + in.B}, nil }),
		tool.New(tool.Definition{Name: "delete_file", Description: "Delete a file.", Safety: tool.SafetyDestructive},
			func(_ context.Context, in struct {
				Path string `json:"path"`
			}) (string, error) {
				return "deleted " + in.Path, nil
			}),
		tool.New(tool.Definition{Name: "fetch", Description: "Fetch a URL.", Safety: tool.SafetyNetwork},
			func(_ context.Context, in struct {
				URL string `json:"url"`
			}) (string, error) {
				return "", &tool.Error{Message: "cannot reach " + in.URL, Hint: "check the URL"}
			}),
		tool.New(tool.Definition{Name: "secret", Description: "A hidden tool.", Safety: tool.SafetyReadOnly, Hidden: true},
			func(context.Context, struct{}) (string, error) { return "found me", nil }),
		tool.NewRaw(tool.Definition{Name: "picture", Description: "Rich content of every kind.", Safety: tool.SafetyReadOnly,
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			func(context.Context, json.RawMessage) (*tool.Result, error) {
				link := tool.ResourceLinkContent("file:///a.txt", "a.txt", "text/plain")
				link.Title = "A"
				return &tool.Result{Content: []tool.Content{
					tool.TextContent("a picture"),
					tool.ImageContent([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
					tool.AudioContent([]byte("RIFF"), "audio/wav"),
					link,
					tool.ResourceContent("file:///b.txt", "text/plain", "bee", nil),
					tool.ResourceContent("file:///c.bin", "application/octet-stream", "", []byte{1, 2, 3}),
				}}, nil
			}),
		tool.NewFor(tool.Definition{Name: "whoami", Description: "Who is calling.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, c *tool.Call[state], _ struct{}) (string, error) {
				return c.State.user + " in session " + c.Session, nil
			}),
	}
}

func newTestRegistry(t *testing.T, opts *tool.RegistryOptions) *tool.Registry[state] {
	t.Helper()
	reg := tool.NewRegistry[state](opts)
	if err := reg.Add(testTools()...); err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestToolsList(t *testing.T) {
	reg := newTestRegistry(t, nil)
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			cs := connect(t, serve(t, reg, nil), nil, protocol)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(res.Tools, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			// One golden file for both versions: a tool looks the same
			// whatever the protocol.
			golden(t, "testdata/tools_list.golden.json", append(got, '\n'))
		})
	}
}

func TestToolsCall(t *testing.T) {
	rec := &finished{}
	reg := newTestRegistry(t, &tool.RegistryOptions{Observer: rec})
	opts := &Options[state]{
		State:   func(context.Context, *sdk.CallToolRequest) (state, error) { return state{user: "ada"}, nil },
		Session: func(*sdk.CallToolRequest) string { return "s1" },
	}
	tests := []struct {
		name, tool, args string
		isError          bool
		text             []string // substrings of the text content
		structured       string
		status           tool.Status
	}{
		{name: "typed result", tool: "add", args: `{"a":2,"b":3}`, text: []string{`{"sum":5}`}, structured: `{"sum":5}`},
		{name: "integral float", tool: "add", args: `{"a":2.0,"b":1e1}`, structured: `{"sum":12}`},
		{name: "retry hint", tool: "add", args: `{"a":"2","b":3}`, isError: true, status: tool.StatusInvalid,
			text: []string{"Invalid arguments for add", "/a", "Fix the arguments and call add again"}},
		{name: "object in a string", tool: "add", args: `"{\"a\":1,\"b\":2}"`, isError: true, status: tool.StatusInvalid,
			text: []string{"not a string"}},
		{name: "unknown key", tool: "add", args: `{"a":1,"b":2,"c":3}`, isError: true, status: tool.StatusInvalid, text: []string{"c"}},
		{name: "duplicate key", tool: "add", args: `{"a":1,"a":2,"b":2}`, isError: true, status: tool.StatusInvalid},
		{name: "no arguments", tool: "add", isError: true, status: tool.StatusInvalid, text: []string{"a", "b"}},
		{name: "tool error with hint", tool: "fetch", args: `{"url":"http://x"}`, isError: true, status: tool.StatusFailed,
			text: []string{"cannot reach http://x", "check the URL"}},
		{name: "hidden tool", tool: "secret", args: `{}`, text: []string{"found me"}},
		{name: "state and session", tool: "whoami", args: `{}`, text: []string{"ada in session s1"}},
	}
	for _, protocol := range protocols {
		cs := connect(t, serve(t, reg, opts), nil, protocol)
		for _, tt := range tests {
			t.Run(protocol+"/"+tt.name, func(t *testing.T) {
				res := call(t, cs, tt.tool, tt.args)
				if res.IsError != tt.isError {
					t.Errorf("isError = %v, want %v: %s", res.IsError, tt.isError, text(res))
				}
				for _, s := range tt.text {
					if !strings.Contains(text(res), s) {
						t.Errorf("text %q does not contain %q", text(res), s)
					}
				}
				if tt.structured != "" {
					got, _ := json.Marshal(res.StructuredContent)
					if string(got) != tt.structured {
						t.Errorf("structuredContent = %s, want %s", got, tt.structured)
					}
				}
				if st := rec.result(tt.tool).Status; st != tt.status {
					t.Errorf("host status = %s, want %s", st, tt.status)
				}
			})
		}
	}
}

func TestRichContent(t *testing.T) {
	reg := newTestRegistry(t, nil)
	cs := connect(t, serve(t, reg, nil), nil, legacyProtocol)
	res := call(t, cs, "picture", "")
	got, err := json.MarshalIndent(res.Content, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/rich_content.golden.json", append(got, '\n'))
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	reg := newTestRegistry(t, nil)
	cs := connect(t, serve(t, reg, nil), nil, legacyProtocol)
	_, err := callErr(cs, "ad", `{}`)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("err = %v, want an invalid-params protocol error", err)
	}
}

func TestStateErrorIsProtocolError(t *testing.T) {
	reg := newTestRegistry(t, nil)
	opts := &Options[state]{State: func(context.Context, *sdk.CallToolRequest) (state, error) {
		return state{}, &jsonrpc.Error{Code: -32001, Message: "not signed in"}
	}}
	cs := connect(t, serve(t, reg, opts), nil, legacyProtocol)
	_, err := callErr(cs, "add", `{"a":1,"b":2}`)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != -32001 {
		t.Fatalf("err = %v, want the state function's error", err)
	}
}

func TestToolsAddedLater(t *testing.T) {
	reg := newTestRegistry(t, nil)
	changed := make(chan struct{}, 4)
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			cs := connect(t, serve(t, reg, nil), &sdk.ClientOptions{
				ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
			}, protocol)
			name := "late_" + strings.ReplaceAll(protocol, "-", "_")
			if err := reg.Add(tool.New(tool.Definition{Name: name, Description: "Added after the server started.", Safety: tool.SafetyReadOnly},
				func(context.Context, struct{}) (string, error) { return "late", nil })); err != nil {
				t.Fatal(err)
			}
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/tools/list_changed")
			}
			found := false
			for tl, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				found = found || tl.Name == name
				if tl.Name == "secret" {
					t.Error("the hidden tool is listed")
				}
			}
			if !found {
				t.Errorf("%s is not listed", name)
			}
			if got := text(call(t, cs, name, `{}`)); got != "late" {
				t.Errorf("got %q", got)
			}
		})
	}
}

func TestHiddenToolStaysUnlisted(t *testing.T) {
	reg := newTestRegistry(t, nil)
	cs := connect(t, serve(t, reg, nil), nil, legacyProtocol)
	call(t, cs, "secret", `{}`) // adds it to the SDK server on first use
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tl.Name == "secret" {
			t.Fatal("the hidden tool is listed after it was called")
		}
	}
}

func TestRemoveStopsServing(t *testing.T) {
	reg := newTestRegistry(t, nil)
	server := sdk.NewServer(&sdk.Implementation{Name: "s", Version: "v1"}, nil)
	remove := AddTools(server, reg, nil)
	cs := connect(t, server, nil, legacyProtocol)
	call(t, cs, "add", `{"a":1,"b":1}`)
	remove()
	if _, err := callErr(cs, "add", `{"a":1,"b":1}`); err == nil {
		t.Fatal("a removed tool still answers")
	}
	if _, err := callErr(cs, "secret", `{}`); err == nil {
		t.Fatal("a hidden tool still answers after remove")
	}
}
