package toolmcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// sessionProbe is a registry with one paginated tool, whose first page
// says whether the call had a session: a next_cursor, or a note.
func sessionProbe(t *testing.T) *tool.Registry[struct{}] {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(numbersTool())
	return reg
}

func numbersTool() tool.AnyTool {
	return tool.NewPaginated(tool.Definition{Name: "numbers", Description: "Numbers, a page at a time.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, _ listArgs, page tool.Page) ([]int, []byte, error) {
			return []int{1}, []byte("next"), nil
		})
}

func TestDefaultSession(t *testing.T) {
	tests := []struct {
		name       string
		stateless  bool
		wantCursor bool
	}{
		{"streamable HTTP with sessions: the MCP session", false, true},
		{"stateless HTTP: none, the host must name one", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := serve(t, sessionProbe(t), nil)
			hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
				&sdk.StreamableHTTPOptions{Stateless: tt.stateless}))
			t.Cleanup(hs.Close)
			client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
			cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: hs.URL}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			got := text(call(t, cs, "numbers", `{}`))
			if hasCursor := strings.Contains(got, "next_cursor"); hasCursor != tt.wantCursor {
				t.Errorf("next_cursor given: %v, want %v: %s", hasCursor, tt.wantCursor, got)
			}
		})
	}
}

// The IDs made for connections are dropped with the connections.
func TestConnectionIDsAreForgotten(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	var keys []weak.Pointer[sdk.ServerSession]
	for range 20 {
		_, st := sdk.NewInMemoryTransports()
		ss, err := server.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		if id := connectionIDs.of(ss); id == "" || id != connectionIDs.of(ss) {
			t.Fatal("a connection's ID must be one, and not empty")
		}
		keys = append(keys, weak.Make(ss))
		ss.Close()
	}
	left := func() (n int) {
		for _, k := range keys {
			if _, ok := connectionIDs.m.Load(k); ok {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(10 * time.Second); left() > 0 && time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := left(); n > 0 {
		t.Errorf("%d of 20 IDs left of closed connections", n)
	}
}

// Each connection's calls see its own SessionID, and SessionEnded tells
// the host, with that ID, when the connection ends.
func TestSessionEnded(t *testing.T) {
	ended := make(chan string, 2)
	reg := tool.NewRegistry[string](nil)
	reg.MustAdd(tool.NewFor(tool.Definition{Name: "whoami", Description: "The session's ID.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, call *tool.Call[string], _ struct{}) (string, error) { return call.State, nil }))
	server := serve(t, reg, &Options[string]{
		State:        func(_ context.Context, req *sdk.CallToolRequest) (string, error) { return SessionID(req), nil },
		SessionEnded: func(id string) { ended <- id },
	})
	a := connect(t, server, nil, legacyProtocol)
	b := connect(t, server, nil, legacyProtocol)
	idA, idB := text(call(t, a, "whoami", `{}`)), text(call(t, b, "whoami", `{}`))
	if !strings.HasPrefix(idA, "connection-") || idA == idB || text(call(t, a, "whoami", `{}`)) != idA {
		t.Fatalf("session IDs %q and %q: want one per connection, the same for each of its calls", idA, idB)
	}
	a.Close()
	select {
	case id := <-ended:
		if id != idA {
			t.Errorf("SessionEnded(%q), want %q", id, idA)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SessionEnded was not called for the closed connection")
	}
	select {
	case id := <-ended:
		t.Errorf("SessionEnded(%q) for a connection still open", id)
	case <-time.After(50 * time.Millisecond):
	}
	if got := text(call(t, b, "whoami", `{}`)); got != idB {
		t.Errorf("the other connection: %q", got)
	}
}
