package toolmcp

import (
	"context"
	"errors"
	"flag"
	"net"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
	"go.uber.org/goleak"
)

// -update rewrites golden files (tooltest.Golden honours it).
var _ = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestMain runs the tests through tooltest.Main, which fails the package
// at the end, naming them, if tests were skipped for want of the Node
// tools, and checks that no goroutine outlives them. A run of every test
// (the README's command) installs the Node tools first if they are
// missing, before the test binary's -timeout starts counting; a run of
// some (-run) installs them when a test needs them.
func TestMain(m *testing.M) {
	flag.Parse()
	if flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		_ = nodeSetup()
	}
	goleak.VerifyTestMain(tooltest.Main(m))
}

// The protocol versions the tests run at: the newest before multi
// round-trip requests, and the first with them.
const (
	legacyProtocol = "2025-11-25"
	mrtrProtocol   = "2026-07-28"
)

var protocols = []string{legacyProtocol, mrtrProtocol}

// serve starts an SDK server with reg's tools and returns the server, for
// connect.
func serve[C any](t *testing.T, reg *tool.Registry[C], opts *Options[C]) *sdk.Server {
	t.Helper()
	server := sdk.NewServer(&sdk.Implementation{Name: "toolbelt-test", Version: "v0.0.1"}, nil)
	t.Cleanup(AddTools(server, reg, opts))
	return server
}

// connect connects a client with copts to server over in-memory pipes at
// the given protocol version, and closes both ends when the test ends.
// What the server sends reaches the client through Guard, as RemoteTools
// requires: every test of the server checks that the guard lets its
// messages through as they are.
func connect(t *testing.T, server *sdk.Server, copts *sdk.ClientOptions, protocol string) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	c, s := net.Pipe()
	ct := Guard(&sdk.IOTransport{Reader: c, Writer: c}, nil)
	ss, err := server.Connect(ctx, &sdk.IOTransport{Reader: s, Writer: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewClient(&sdk.Implementation{Name: "test-client", Version: "v0.0.1"}, copts).
		Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, cs *sdk.ClientSession, name, args string) *sdk.CallToolResult {
	t.Helper()
	res, err := callErr(cs, name, args)
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

func callErr(cs *sdk.ClientSession, name, args string) (*sdk.CallToolResult, error) {
	p := &sdk.CallToolParams{Name: name}
	if args != "" {
		p.Arguments = rawArgs(args)
	}
	return cs.CallTool(context.Background(), p)
}

type rawArgs string

func (r rawArgs) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// text joins the text blocks of an MCP result.
func text(res *sdk.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			if s != "" {
				s += "\n"
			}
			s += tc.Text
		}
	}
	return s
}

// finished records the last result of each tool, from the registry's
// observer: the host view the MCP client never sees.
type finished struct {
	mu   sync.Mutex
	last map[string]*tool.Result
}

func (f *finished) Observe(e tool.Event) {
	if e.Kind != tool.EventFinished {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.last == nil {
		f.last = map[string]*tool.Result{}
	}
	f.last[e.Tool] = e.Result
}

func (f *finished) result(name string) *tool.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last[name]
}

// golden compares got with the golden file; -update (or -tooltest.update)
// rewrites it.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	tooltest.Golden(t, path, got)
}

// waiter is a tool that waits until its call is cancelled, and reports the
// cause its context ended with.
type waiter struct {
	started chan struct{}
	causes  chan error
}

func newWaiter() *waiter {
	return &waiter{started: make(chan struct{}, 1), causes: make(chan error, 1)}
}

func (w *waiter) tool() tool.AnyTool {
	return tool.New(tool.Definition{Name: "wait", Description: "Waits until cancelled.", Safety: tool.SafetyReadOnly},
		func(ctx context.Context, _ struct{}) (string, error) {
			w.started <- struct{}{}
			<-ctx.Done()
			w.causes <- context.Cause(ctx)
			return "", ctx.Err()
		})
}

// cancel calls the waiter over cs, cancels the call once the tool runs,
// and checks that the client gave up and the tool's context ended because
// the client cancelled it.
func (w *waiter) cancel(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		errc <- err
	}()
	<-w.started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v", err)
	}
	select {
	case cause := <-w.causes:
		if !errors.Is(cause, ErrCancelledByClient) {
			t.Errorf("the tool's context cause is %v, want ErrCancelledByClient", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call's context did not end")
	}
}
