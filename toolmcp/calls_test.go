package toolmcp

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// gate is a tool whose calls wait until the test opens it.
type gate struct {
	started chan struct{}
	open    chan struct{}
}

func newGate() *gate {
	return &gate{started: make(chan struct{}, 1<<16), open: make(chan struct{})}
}

func (g *gate) tool() tool.AnyTool {
	return tool.New(tool.Definition{Name: "gate", Description: "Waits for the test.", Safety: tool.SafetyReadOnly},
		func(ctx context.Context, _ struct{}) (string, error) {
			g.started <- struct{}{}
			select {
			case <-g.open:
				return "passed", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})
}

// startCalls starts n calls to the gate over cs and waits until those that
// start have started; it returns their errors' channel.
func startCalls(cs *sdk.ClientSession, n int) chan error {
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "gate", Arguments: map[string]any{}})
			errs <- err
		}()
	}
	return errs
}

// One session's calls in progress are bounded; past the bound a call is
// refused at once with CodeTooManyCalls, and another session's calls start
// as usual.
func TestSessionCallsBounded(t *testing.T) {
	tests := []struct {
		name    string
		max     int
		calls   int
		refused int
	}{
		{"under the bound", 4, 4, 0},
		{"over the bound", 4, 10, 6},
		{"default", 0, DefaultMaxSessionCalls + 3, 3},
		{"no bound", -1, DefaultMaxSessionCalls + 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate()
			reg := tool.NewRegistry[state](nil)
			reg.MustAdd(g.tool())
			server := serve(t, reg, &Options[state]{MaxSessionCalls: tt.max})
			flooder := connect(t, server, nil, legacyProtocol)
			other := connect(t, server, nil, legacyProtocol)

			errs := startCalls(flooder, tt.calls)
			for range tt.calls - tt.refused {
				<-g.started
			}
			for range tt.refused {
				var we *jsonrpc.Error
				select {
				case err := <-errs:
					if !errors.As(err, &we) || we.Code != CodeTooManyCalls || !strings.Contains(we.Message, "too many tool calls") {
						t.Fatalf("a call past the bound: %v, want a JSON-RPC error %d", err, CodeTooManyCalls)
					}
				case <-time.After(10 * time.Second):
					close(g.open)
					t.Fatalf("a call past the bound of %d was not refused", tt.max)
				}
			}
			// Another session is not held up by the first one's calls.
			otherErrs := startCalls(other, 1)
			select {
			case <-g.started:
			case err := <-otherErrs:
				t.Fatalf("another session's call: %v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("another session's call did not start")
			}
			close(g.open)
			for range tt.calls - tt.refused {
				if err := <-errs; err != nil {
					t.Errorf("a call within the bound: %v", err)
				}
			}
			if err := <-otherErrs; err != nil {
				t.Errorf("the other session's call: %v", err)
			}
			// The session's calls ended: it may call again.
			if res := call(t, flooder, "gate", `{}`); text(res) != "passed" {
				t.Errorf("a call after the others ended: %q", text(res))
			}
		})
	}
}

// A JSON-RPC batch of protocol 2025-03-26 holds tens of thousands of calls
// in one request body within the 4 MiB bound: it starts at most the
// session's bound of them, and the rest are refused with an error each,
// not left to start a goroutine each (before: 46,211 calls, 15,835
// goroutines 3 s in and growing, 130 s to close the session).
func TestHTTPBatchOfCallsBounded(t *testing.T) {
	g := newGate()
	reg := tool.NewRegistry[state](nil)
	reg.MustAdd(g.tool())
	const max = 10
	server := serve(t, reg, &Options[state]{MaxSessionCalls: max})
	var refused atomic.Int64
	server.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if we := (*jsonrpc.Error)(nil); errors.As(err, &we) && we.Code == CodeTooManyCalls {
				refused.Add(1)
			}
			return res, err
		}
	})
	srv := httptest.NewServer(NewHTTPHandler(server, nil))
	t.Cleanup(func() {
		for ss := range server.Sessions() {
			_ = ss.Close()
		}
		srv.Close()
	})
	hs := srv.URL

	resp, _ := post(t, hs, strings.Replace(initializeBody, legacyProtocol, "2025-03-26", 1), nil)
	header := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-03-26"}
	post(t, hs, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header)

	const n = 5000
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"gate","arguments":{}}}`, i+10)
	}
	b.WriteString("]")
	before := runtime.NumGoroutine()
	done := make(chan string, 1)
	go func() {
		_, body := post(t, hs, b.String(), header)
		done <- body
	}()
	for range max {
		<-g.started
	}
	// The rest are refused while those run.
	for deadline := time.Now().Add(30 * time.Second); refused.Load() < n-max && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine()-before > 20*max && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if grew := runtime.NumGoroutine() - before; grew > 20*max {
		t.Errorf("a batch of %d calls holds %d more goroutines, want at most %d", n, grew, 20*max)
	}
	if len(g.started) != 0 {
		t.Errorf("%d calls started past the bound of %d", len(g.started), max)
	}
	close(g.open)
	select {
	case body := <-done:
		if got := strings.Count(body, `"code":-32000`); got != n-max {
			t.Errorf("%d calls refused with %d, want %d", got, CodeTooManyCalls, n-max)
		}
		if got := strings.Count(body, "passed"); got != max {
			t.Errorf("%d calls ran, want %d", got, max)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the batch got no answer")
	}
}
