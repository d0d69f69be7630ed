package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// remoteServer is a Toolbelt registry served over MCP: the remote side of
// the client tests.
//
// count reports its first step and waits for seen (if not nil) before the
// others: the SDK client hands notifications to its handlers after the
// response may have returned, so only what was seen before the call
// ended is sure to arrive.
func remoteServer(t *testing.T, cancelled chan<- error, seen <-chan struct{}) *sdk.Server {
	t.Helper()
	reg := newTestRegistry(t, nil)
	reg.MustAdd(
		tool.New(tool.Definition{Name: "count", Description: "Counts to three, reporting progress.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, _ struct{}) (string, error) {
				for i := 1; i <= 3; i++ {
					tool.ReportProgress(ctx, tool.Progress{Message: "step", Done: float64(i), Total: 3})
					if i == 1 && seen != nil {
						select {
						case <-seen:
						case <-ctx.Done():
						}
					}
				}
				return "three", nil
			}),
		tool.New(tool.Definition{Name: "hang", Description: "Waits until cancelled.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, _ struct{}) (string, error) {
				<-ctx.Done()
				cancelled <- context.Cause(ctx)
				return "", ctx.Err()
			}),
	)
	return serve(t, reg, nil)
}

func TestRemoteTools(t *testing.T) {
	cancelled := make(chan error, 1)
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			seen := make(chan struct{})
			var once sync.Once
			cs := connect(t, remoteServer(t, cancelled, seen), nil, protocol)
			var mu sync.Mutex
			var progress []tool.Progress
			local := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: tool.ObserverFunc(func(e tool.Event) {
				if e.Kind == tool.EventProgress {
					mu.Lock()
					progress = append(progress, e.Progress)
					mu.Unlock()
					once.Do(func() { close(seen) })
				}
			})})
			added, err := AddRemoteTools(context.Background(), local, cs, &RemoteOptions{Prefix: "r_", TrustAnnotations: true})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(added, " ") != "r_add r_count r_delete_file r_fetch r_hang r_picture r_whoami" {
				t.Errorf("added %v (the hidden tool is not listed, so not added)", added)
			}
			ctx := context.Background()
			run := func(name, args string) *tool.Result {
				return local.Call(ctx, struct{}{}, tool.Request{ID: "c", Name: name, Args: json.RawMessage(args)})
			}

			res := run("r_add", `{"a":20,"b":22}`)
			if res.Status != tool.StatusOK || string(res.Structured) != `{"sum":42}` {
				t.Errorf("r_add: %s %s %q", res.Status, res.Structured, res.Text())
			}
			// The local preflight checks the remote schema before anything is sent.
			res = run("r_add", `{"a":"20","b":22}`)
			if res.Status != tool.StatusInvalid || !strings.Contains(res.Text(), "r_add") {
				t.Errorf("invalid arguments: %s %q", res.Status, res.Text())
			}
			// The remote isError becomes an error result.
			res = run("r_fetch", `{"url":"http://x"}`)
			var re *RemoteError
			if res.Status != tool.StatusFailed || !res.IsError || !errors.As(res.Err, &re) || re.Tool != "fetch" ||
				!strings.Contains(res.Text(), "cannot reach http://x") {
				t.Errorf("remote error: %s %v %q", res.Status, res.Err, res.Text())
			}
			// Rich content survives the round trip.
			res = run("r_picture", `{}`)
			var kinds []string
			for _, c := range res.Content {
				kinds = append(kinds, c.Type)
			}
			if strings.Join(kinds, " ") != "text image audio resource_link resource resource" || string(res.Content[1].Data) != "\x89PNG" {
				t.Errorf("content: %v", kinds)
			}
			// Progress from the server reaches the local observer.
			run("r_count", `{}`)
			mu.Lock()
			if len(progress) == 0 || progress[0] != (tool.Progress{Message: "step", Done: 1, Total: 3}) {
				t.Errorf("progress: %+v", progress)
			}
			for i := 1; i < len(progress); i++ {
				if progress[i].Done <= progress[i-1].Done {
					t.Errorf("progress out of order: %+v", progress)
				}
			}
			mu.Unlock()
			// Cancelling the local call cancels the remote request.
			cctx, cancel := context.WithCancel(ctx)
			done := make(chan *tool.Result)
			go func() {
				done <- local.Call(cctx, struct{}{}, tool.Request{ID: "h", Name: "r_hang", Args: json.RawMessage(`{}`)})
			}()
			time.Sleep(50 * time.Millisecond) // let the request reach the server; a cancel before that is fine too
			cancel()
			if res := <-done; res.Status != tool.StatusCanceled {
				t.Errorf("local status %s", res.Status)
			}
			select {
			case cause := <-cancelled:
				if !errors.Is(cause, ErrCancelledByClient) {
					t.Errorf("remote cause: %v", cause)
				}
			case <-time.After(10 * time.Second):
				t.Error("the remote tool was not cancelled")
			}
		})
	}
}

func TestRemoteDefinitions(t *testing.T) {
	cs := connect(t, remoteServer(t, make(chan error, 1), nil), nil, legacyProtocol)
	for _, trust := range []bool{false, true} {
		tools, err := RemoteTools(context.Background(), cs, &RemoteOptions{TrustAnnotations: trust, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]tool.Safety{}
		for _, tl := range tools {
			d := tl.Definition()
			got[d.Name] = d.Safety
			if d.Timeout != time.Minute {
				t.Errorf("%s: timeout %v", d.Name, d.Timeout)
			}
		}
		want := map[string]tool.Safety{"add": tool.SafetyReadOnly, "delete_file": tool.SafetyDestructive, "fetch": tool.SafetyNetwork}
		if !trust {
			// A read-only claim from an untrusted server is not believed; the
			// other hints of these tools are left to MCP's defaults.
			want["add"] = tool.SafetyDestructive
		}
		for name, s := range want {
			if got[name] != s {
				t.Errorf("trust=%v %s: safety %s, want %s", trust, name, got[name], s)
			}
		}
	}
}

func TestRemoteSafety(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name    string
		a       *sdk.ToolAnnotations
		trusted bool
		want    tool.Safety
	}{
		{"no annotations", nil, true, tool.SafetyDestructive},
		{"read-only, trusted", &sdk.ToolAnnotations{ReadOnlyHint: true}, true, tool.SafetyReadOnly},
		{"read-only, untrusted", &sdk.ToolAnnotations{ReadOnlyHint: true}, false, tool.SafetyDestructive},
		{"read-only and closed, untrusted", &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no, OpenWorldHint: &no}, false, tool.SafetyMutating},
		{"destructive", &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}, false, tool.SafetyDestructive},
		{"open world", &sdk.ToolAnnotations{DestructiveHint: &no}, false, tool.SafetyNetwork},
		{"closed world writes", &sdk.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}, false, tool.SafetyMutating},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := remoteSafety(tt.a, tt.trusted); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// A remote tool whose schema cannot be used, or whose name the registry
// does not accept, is left out with an error naming it; the others are added.
func TestRemoteUnusableToolsLeftOut(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "odd", Version: "v1"}, nil)
	ok := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	}
	server.AddTool(&sdk.Tool{Name: "fine", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}, ok)
	server.AddTool(&sdk.Tool{Name: "remote_ref", Description: "Refers to the network.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"https://example.com/x.json"}}}`)}, ok)
	server.AddTool(&sdk.Tool{Name: "file_ref", Description: "Refers to a file.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"file:///etc/passwd"}}}`)}, ok)
	server.AddTool(&sdk.Tool{Name: "dotted.name", Description: "MCP allows dots.", InputSchema: json.RawMessage(`{"type":"object"}`)}, ok)
	server.AddTool(&sdk.Tool{Name: "bad_pattern", Description: "A pattern that does not compile.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string","pattern":"("}}}`)}, ok)
	cs := connect(t, server, nil, legacyProtocol)

	reg := tool.NewRegistry[struct{}](nil)
	added, err := AddRemoteTools(context.Background(), reg, cs, nil)
	if strings.Join(added, ",") != "fine" {
		t.Errorf("added %v, want only fine", added)
	}
	if err == nil {
		t.Fatal("no error for the tools left out")
	}
	for _, name := range []string{"remote_ref", "file_ref", "dotted.name", "bad_pattern"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not name %s: %v", name, err)
		}
	}
	d := reg.Definitions()[0]
	if !strings.Contains(d.Description, "odd") {
		t.Errorf("made-up description %q does not name the server", d.Description)
	}
	if res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "fine", Args: json.RawMessage(`{"x":"y"}`)}); res.Text() != "ok" {
		t.Errorf("fine: %q", res.Text())
	}
}

func TestRemoteProtocolError(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "failing", Version: "v1"}, nil)
	server.AddTool(&sdk.Tool{Name: "boom", Description: "Fails at the protocol level.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return nil, errors.New("database is down")
		})
	cs := connect(t, server, nil, legacyProtocol)
	reg := tool.NewRegistry[struct{}](nil)
	if _, err := AddRemoteTools(context.Background(), reg, cs, nil); err != nil {
		t.Fatal(err)
	}
	res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "boom"})
	if res.Status != tool.StatusFailed || !strings.Contains(res.Text(), "database is down") {
		t.Errorf("%s %q", res.Status, res.Text())
	}
}

// boundText keeps any text within its bound, on a character boundary,
// whatever the bound: one too small for the note cuts the text bare.
func TestBoundText(t *testing.T) {
	long := strings.Repeat("aé中😀", 3000)
	for _, max := range []int{0, 1, 2, 3, 10, 100, 130, 256, 4 << 10, 1 << 20} {
		got := boundText(long, max, "description")
		if len(got) > max || !utf8.ValidString(got) {
			t.Errorf("bound %d: %d bytes, valid UTF-8 %v", max, len(got), utf8.ValidString(got))
		}
		if kept, note, ok := strings.Cut(got, " [… "); ok {
			if want := fmt.Sprintf("the last %d bytes were left out", len(long)-len(kept)); !strings.Contains(note, want) {
				t.Errorf("bound %d: note %q, want %q", max, note, want)
			}
		}
	}
	if got := boundText("short", 5, "title"); got != "short" {
		t.Errorf("a text within its bound changed: %q", got)
	}
}
