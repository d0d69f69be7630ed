package toolmcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// serveHTTP serves reg over NewHTTPHandler on a loopback port, and returns
// the endpoint and the SDK server.
func serveHTTP[C any](t *testing.T, reg *tool.Registry[C], opts *Options[C], hopts *HTTPOptions) (string, *sdk.Server) {
	t.Helper()
	server := serve(t, reg, opts)
	hs := httptest.NewServer(NewHTTPHandler(server, hopts))
	t.Cleanup(func() {
		// Sessions first: their open streams hold requests Close waits for.
		for ss := range server.Sessions() {
			_ = ss.Close()
		}
		hs.Close()
	})
	return hs.URL, server
}

// initializeBody is a client's first message, as an MCP client POSTs it.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// post sends one JSON-RPC message the way a streamable HTTP client does,
// with extra headers, and returns the response with its body read.
func post(t *testing.T, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// deleteSession ends a session the way a client that says goodbye does.
func deleteSession(t *testing.T, url, id string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func TestHTTPOrigin(t *testing.T) {
	url, _ := serveHTTP(t, sessionProbe(t), nil, &HTTPOptions{AllowedOrigins: []string{"https://app.example.com"}})
	host := strings.TrimPrefix(url, "http://")
	tests := []struct {
		name   string
		method string
		header map[string]string
		want   int
	}{
		{"a program: no Origin, no Sec-Fetch-Site", "POST", nil, http.StatusOK},
		{"the endpoint's own origin", "POST", map[string]string{"Origin": url}, http.StatusOK},
		{"same-origin fetch", "POST", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": url}, http.StatusOK},
		{"an allowed origin", "POST", map[string]string{"Origin": "https://app.example.com", "Sec-Fetch-Site": "cross-site"}, http.StatusOK},
		{"another origin", "POST", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"another port of the same host", "POST", map[string]string{"Origin": "http://" + strings.Split(host, ":")[0] + ":1"}, http.StatusForbidden},
		{"Origin: null (a sandboxed page, a file)", "POST", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"cross-site fetch without Origin", "POST", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"same-site is another origin too", "POST", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://other.localhost"}, http.StatusForbidden},
		{"a GET (the session's stream) from another origin", "GET", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		{"a DELETE from another origin", "DELETE", map[string]string{"Origin": "http://evil.example", "Mcp-Session-Id": "x"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp *http.Response
			var body string
			if tt.method == "POST" {
				resp, body = post(t, url, initializeBody, tt.header)
			} else {
				req, _ := http.NewRequest(tt.method, url, nil)
				req.Header.Set("Accept", "text/event-stream")
				for k, v := range tt.header {
					req.Header.Set(k, v)
				}
				var err error
				if resp, err = http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if tt.want == http.StatusForbidden && tt.method == "POST" && !strings.Contains(body, "AllowedOrigins") {
				t.Errorf("the refusal does not say how to allow an origin: %s", body)
			}
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				deleteSession(t, url, id)
			}
		})
	}
}

func TestHTTPOriginOptionChecked(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "toolmcp: HTTPOptions.AllowedOrigins") {
			t.Errorf("recovered %v, want a panic naming the option", r)
		}
	}()
	NewHTTPHandler(sdk.NewServer(&sdk.Implementation{Name: "x", Version: "0"}, nil), &HTTPOptions{AllowedOrigins: []string{"app.example.com/path"}})
}

// Clients that go away without DELETE leave sessions behind: the handler
// closes them once idle, and the memory and goroutines they held return.
// Every session here initialized, called a tool, and was abandoned; half
// of them left their stream (a GET) open on a connection the client never
// reads again.
func TestHTTPIdleSessionsReclaimed(t *testing.T) {
	const sessions = 300
	var ended atomic.Int32
	reg := sessionProbe(t)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC() // the second empties sync.Pools' victim caches
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	baseGoroutines, baseHeap := runtime.NumGoroutine(), heap()
	url, server := serveHTTP(t, reg, &Options[struct{}]{SessionEnded: func(string) { ended.Add(1) }},
		&HTTPOptions{IdleTimeout: time.Second})
	open := func() (n int) {
		for range server.Sessions() {
			n++
		}
		return n
	}

	var mu sync.Mutex
	var streams []io.Closer
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range sessions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			resp, body := post(t, url, initializeBody, nil)
			id := resp.Header.Get("Mcp-Session-Id")
			if resp.StatusCode != http.StatusOK || id == "" {
				t.Errorf("initialize: %d %s", resp.StatusCode, body)
				return
			}
			h := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
			post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
			if resp, body := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"numbers","arguments":{}}}`, h); !strings.Contains(body, "next_cursor") {
				t.Errorf("call: %d %s", resp.StatusCode, body)
			}
			if i%2 == 0 {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Accept", "text/event-stream")
				for k, v := range h {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				streams = append(streams, resp.Body)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d sessions open, %d goroutines (%d before), %d KB more heap", open(), runtime.NumGoroutine(), baseGoroutines, (int64(heap())-int64(baseHeap))>>10)

	deadline := time.Now().Add(30 * time.Second)
	for (open() > 0 || ended.Load() < sessions) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := open(); n > 0 {
		t.Fatalf("%d of %d abandoned sessions still open on the server", n, sessions)
	}
	if n := ended.Load(); n != sessions {
		t.Errorf("SessionEnded called %d times for %d sessions", n, sessions)
	}
	// The client goes away: its connections close.
	for _, s := range streams {
		s.Close()
	}
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	var goroutines int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if goroutines = runtime.NumGoroutine(); goroutines <= baseGoroutines+4 {
			break
		}
	}
	if goroutines > baseGoroutines+4 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines, %d before the sessions:\n%s", goroutines, baseGoroutines, buf[:runtime.Stack(buf, true)])
	}
	// What is left on the heap is the handler and the server, not the
	// sessions (each holds tens of KB).
	if grown := int64(heap()) - int64(baseHeap); grown > 2<<20 {
		t.Errorf("the heap grew by %d KB and stayed", grown>>10)
	}
}

func TestHTTPMaxSessions(t *testing.T) {
	url, _ := serveHTTP(t, sessionProbe(t), nil, &HTTPOptions{MaxSessions: 3})
	var ids []string
	for i := range 3 {
		resp, body := post(t, url, initializeBody, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("session %d: %d %s", i, resp.StatusCode, body)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	resp, body := post(t, url, initializeBody, nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a fourth session: %d %q, want 503 with Retry-After", resp.StatusCode, body)
	}
	// Requests of the sessions already open still work.
	resp, body = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": ids[0], "Mcp-Protocol-Version": "2025-11-25"})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a request of an open session: %d %s", resp.StatusCode, body)
	}
	// So do requests of 2026-07-28, which open no session.
	cs := connectHTTP(t, url, nil, mrtrProtocol)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("a 2026-07-28 client when the sessions are full: %v", err)
	}
	deleteSession(t, url, ids[0])
	if resp, body := post(t, url, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("after one ended: %d %s", resp.StatusCode, body)
	} else {
		deleteSession(t, url, resp.Header.Get("Mcp-Session-Id"))
	}
	for _, id := range ids[1:] {
		deleteSession(t, url, id)
	}
}

func TestHTTPMaxBody(t *testing.T) {
	url, _ := serveHTTP(t, sessionProbe(t), nil, &HTTPOptions{MaxBodyBytes: 1 << 10})
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` +
		strings.Repeat("x", 2<<10) + `","version":"0"}}}`
	for _, protocol := range []string{"", mrtrProtocol} {
		resp, body := post(t, url, big, map[string]string{"Mcp-Protocol-Version": protocol})
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("protocol %q: %d %s, want 413", protocol, resp.StatusCode, body)
		}
	}
}

// connectHTTP connects the SDK's client to url at protocol, and closes it
// when the test ends.
func connectHTTP(t *testing.T, url string, copts *sdk.ClientOptions, protocol string) *sdk.ClientSession {
	t.Helper()
	cs, err := NewClient(&sdk.Implementation{Name: "test-client", Version: "v0.0.1"}, copts).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Every protocol version the SDK speaks works over one handler: the
// client gets the version it asked for (not a fallback), approval works
// (by elicitation, or from 2026-07-28 by an input request answered in a
// retried call), and a call the client cancels is cancelled.
func TestHTTPEveryProtocol(t *testing.T) {
	w := newWaiter()
	reg, runs, _ := approvalRegistry(t, nil, nil)
	reg.MustAdd(w.tool())
	url, _ := serveHTTP(t, reg, nil, nil)
	versions := sdk.SupportedProtocolVersions()
	if !slices.Contains(versions, mrtrProtocol) {
		t.Fatalf("the SDK no longer speaks %s: %v", mrtrProtocol, versions)
	}
	for _, protocol := range versions {
		t.Run(protocol, func(t *testing.T) {
			el := &elicitor{answers: []*sdk.ElicitResult{accept("allow_once", "")}}
			cs := connectHTTP(t, url, &sdk.ClientOptions{ElicitationHandler: el.handle}, protocol)
			if got := cs.InitializeResult().ProtocolVersion; got != protocol {
				t.Fatalf("negotiated %s, want %s", got, protocol)
			}
			before := runs.Load()
			res := call(t, cs, "write_note", `{"text":"hi"}`)
			if res.IsError || runs.Load() != before+1 || el.count() != 1 {
				t.Errorf("approved write: isError=%v runs=%d asked=%d %q", res.IsError, runs.Load()-before, el.count(), text(res))
			}
			w.cancel(t, cs)
		})
	}
}

// Stateless serves clients before 2026-07-28 without sessions: calls work,
// and a call that needs approval is refused, since the client cannot be
// asked.
func TestHTTPStateless(t *testing.T) {
	reg, runs, _ := approvalRegistry(t, nil, nil)
	reg.MustAdd(numbersTool())
	url, server := serveHTTP(t, reg, nil, &HTTPOptions{Stateless: true})
	el := &elicitor{answers: []*sdk.ElicitResult{accept("allow_once", "")}}
	cs := connectHTTP(t, url, &sdk.ClientOptions{ElicitationHandler: el.handle}, legacyProtocol)
	if id := cs.ID(); id != "" {
		t.Errorf("a session ID over a stateless handler: %q", id)
	}
	res := call(t, cs, "write_note", `{"text":"hi"}`)
	if !res.IsError || runs.Load() != 0 || el.count() != 0 || !strings.Contains(text(res), "could not be asked") {
		t.Errorf("a write over stateless HTTP: isError=%v runs=%d asked=%d %q", res.IsError, runs.Load(), el.count(), text(res))
	}
	if got := text(call(t, cs, "numbers", `{}`)); strings.Contains(got, "next_cursor") {
		t.Errorf("a cursor without a session: %s", got)
	}
	// Each request's session ends with it (just after its response).
	left := func() (n int) {
		for range server.Sessions() {
			n++
		}
		return n
	}
	for deadline := time.Now().Add(10 * time.Second); left() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := left(); n > 0 {
		t.Errorf("%d sessions left open by stateless requests", n)
	}
}

// A stateless request is the whole life of its calls: a client that closes
// it cancels them, whatever its protocol version. Before 2026-07-28 the
// SDK cancels nothing when a stateless request is closed (and a
// notifications/cancelled comes in a request of its own, which reaches no
// call), so a client of 2025-11-25 that gave up left the call running to
// its end (20 s here). Real clients: the SDK's, whose cancelled call
// closes its POST, and a plain HTTP client that closes its connection.
func TestHTTPStatelessCancel(t *testing.T) {
	const slow = 20 * time.Second
	started, causes := make(chan struct{}, 1), make(chan error, 1)
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "slow", Description: "Takes 20 s unless cancelled.", Safety: tool.SafetyReadOnly, Timeout: time.Minute},
		func(ctx context.Context, _ struct{}) (string, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
				causes <- context.Cause(ctx)
				return "", ctx.Err()
			case <-time.After(slow):
				causes <- nil
				return "done", nil
			}
		}))
	url, _ := serveHTTP(t, reg, nil, &HTTPOptions{Stateless: true})
	wantCancelled := func(t *testing.T) {
		t.Helper()
		select {
		case cause := <-causes:
			if !errors.Is(cause, ErrCancelledByClient) {
				t.Errorf("the call ended with cause %v, want ErrCancelledByClient", cause)
			}
		case <-time.After(slow / 2):
			t.Errorf("the call still runs %v after its client closed the request", slow/2)
			<-causes
		}
	}
	for _, protocol := range protocols {
		t.Run("the SDK's client at "+protocol, func(t *testing.T) {
			cs := connectHTTP(t, url, nil, protocol)
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{}})
				errc <- err
			}()
			<-started
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("client: %v", err)
			}
			wantCancelled(t)
		})
		t.Run("a plain HTTP client at "+protocol, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}`
			if protocol >= mrtrProtocol {
				body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"` + protocol + `","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
			}
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", protocol)
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "slow")
			errc := make(chan error, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					err = fmt.Errorf("%s: %s", resp.Status, b)
				}
				errc <- err
			}()
			select {
			case <-started:
			case err := <-errc:
				t.Fatalf("the call did not start: %v", err)
			}
			cancel()
			<-errc
			wantCancelled(t)
		})
	}
}

// A request that opens a session takes its slot of MaxSessions once its
// body is read: connections that trickle their bodies (here as many as
// the bound, one byte every 50 ms) do not lock a new client out. They did,
// with 503, for as long as they trickled, and no session existed for the
// idle timeout to reclaim.
func TestHTTPSlowBodiesHoldNoSession(t *testing.T) {
	const max = 20
	url, _ := serveHTTP(t, sessionProbe(t), nil, &HTTPOptions{MaxSessions: max})
	addr := strings.TrimPrefix(url, "http://")
	done := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() { close(done); wg.Wait() })
	sent := make(chan struct{}, max)
	for range max {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n", addr, len(initializeBody))
			for i := range len(initializeBody) - 1 {
				if _, err := conn.Write([]byte{initializeBody[i]}); err != nil {
					return
				}
				if i == 0 {
					sent <- struct{}{}
				}
				select {
				case <-done:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
			<-done // the last byte never comes
		}()
	}
	for range max {
		<-sent
	}
	time.Sleep(100 * time.Millisecond) // the handler has every request
	cs := connectHTTP(t, url, nil, legacyProtocol)
	if cs.ID() == "" {
		t.Fatal("no session")
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("a new client while %d others trickle their bodies: %v", max, err)
	}
}
