package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	toolmcp "github.com/toolbelt-go/tool/toolmcp"
)

// The search tool served over MCP's streamable HTTP, through toolmcp and
// directly on the MCP Go SDK, for the same client load: calls per second,
// latency, and what an idle session costs the server.

// A ServeCase is one way of serving the search tool over streamable HTTP.
type ServeCase struct {
	ID   string // short name, for sub-benchmarks
	Name string // as the table names it
	Path string // what one call goes through on the server

	open func(stateless bool) (url string, server *mcp.Server, closeFn func(), err error)
}

// ServeCases returns the bare SDK (the floor) and toolmcp.
func ServeCases() []ServeCase {
	return []ServeCase{
		{ID: "sdk", Name: "MCP Go SDK", Path: "mcp.AddTool typed handler (input schema validated, output schema checked), mcp.NewStreamableHTTPHandler", open: openServeSDK},
		{ID: "toolmcp", Name: "toolmcp", Path: "toolmcp.AddTools (Registry.Call: preflight, deadline, output cap), toolmcp.NewHTTPHandler", open: openServeToolmcp},
	}
}

func openServeSDK(stateless bool) (string, *mcp.Server, func(), error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: toolName, Description: toolDesc, InputSchema: inputSchema()},
		func(ctx context.Context, _ *mcp.CallToolRequest, in searchArgs) (*mcp.CallToolResult, searchOut, error) {
			out, err := search(ctx, in)
			return nil, out, err
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: stateless, PropagateRequestCancellation: stateless})
	return serveHTTP(s, h)
}

func openServeToolmcp(stateless bool) (string, *mcp.Server, func(), error) {
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(tool.New(tool.Definition{Name: toolName, Description: toolDesc}, search)); err != nil {
		return "", nil, nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	toolmcp.AddTools(s, reg, nil)
	return serveHTTP(s, toolmcp.NewHTTPHandler(s, &toolmcp.HTTPOptions{Stateless: stateless}))
}

func serveHTTP(s *mcp.Server, h http.Handler) (string, *mcp.Server, func(), error) {
	hs := httptest.NewServer(h)
	return hs.URL, s, func() {
		for ss := range s.Sessions() {
			_ = ss.Close()
		}
		hs.Close()
	}, nil
}

// A Served is a ServeCase being served.
type Served struct {
	ServeCase
	URL    string
	server *mcp.Server
	close  func()
}

// Open serves c; stateless serves every request on its own (protocol
// 2026-07-28) rather than in sessions.
func (c ServeCase) Open(stateless bool) (*Served, error) {
	url, s, closeFn, err := c.open(stateless)
	if err != nil {
		return nil, err
	}
	return &Served{ServeCase: c, URL: url, server: s, close: closeFn}, nil
}

// Close stops serving.
func (s *Served) Close() { s.close() }

// LoadResult is what a load run measured.
type LoadResult struct {
	Calls    int
	Elapsed  time.Duration
	P50, P99 time.Duration
	// CPU is the process's CPU time over the run (client and server: the
	// client is the same for every server), which a busy shared machine
	// disturbs much less than the wall-clock rates.
	CPU time.Duration
}

// CPUPerCall is the CPU time of one call, client and server.
func (r LoadResult) CPUPerCall() time.Duration { return r.CPU / time.Duration(max(r.Calls, 1)) }

// PerSecond is calls per second.
func (r LoadResult) PerSecond() float64 { return float64(r.Calls) / r.Elapsed.Seconds() }

// Clients are MCP client sessions connected to one server, each with its
// own HTTP connections, as separate clients would be.
type Clients struct {
	sessions  []*mcp.ClientSession
	transport *http.Transport
}

// Connect connects n client sessions (the SDK's client, at protocol) to s.
func (s *Served) Connect(ctx context.Context, n int, protocol string) (*Clients, error) {
	c := &Clients{transport: &http.Transport{MaxIdleConnsPerHost: n + 1, MaxConnsPerHost: 0}}
	client := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1.0.0"}, nil)
	for range n {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: &http.Client{Transport: c.transport}},
			&mcp.ClientSessionOptions{ProtocolVersion: protocol})
		if err != nil {
			c.Close()
			return nil, err
		}
		c.sessions = append(c.sessions, cs)
	}
	return c, nil
}

// Close ends the sessions.
func (c *Clients) Close() {
	for _, cs := range c.sessions {
		_ = cs.Close()
	}
	c.transport.CloseIdleConnections()
}

// Call makes one call of the search tool on session i and checks its
// result.
func (c *Clients) Call(ctx context.Context, i int) error {
	res, err := c.sessions[i].CallTool(ctx, &mcp.CallToolParams{Name: toolName, Arguments: rawJSON(ValidArgs)})
	if err != nil {
		return err
	}
	var text strings.Builder
	for _, b := range res.Content {
		if t, ok := b.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError || text.String() != wantText {
		return fmt.Errorf("unexpected result: isError=%v %q", res.IsError, text.String())
	}
	return nil
}

type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

// Load has every session call the tool in a loop, one call at a time,
// for d, and measures.
func (c *Clients) Load(ctx context.Context, d time.Duration) (LoadResult, error) {
	var (
		mu        sync.Mutex
		latencies []time.Duration
		firstErr  error
		wg        sync.WaitGroup
	)
	start, cpu := time.Now(), CPUTime()
	stop := start.Add(d)
	for i := range c.sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(stop) {
				t := time.Now()
				if err := c.Call(ctx, i); err != nil {
					mu.Lock()
					firstErr = cmpOr(firstErr, err)
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r := LoadResult{Calls: len(latencies), Elapsed: time.Since(start), CPU: CPUTime() - cpu}
	if firstErr != nil {
		return r, firstErr
	}
	if len(latencies) == 0 {
		return r, errors.New("no call finished")
	}
	slices.Sort(latencies)
	r.P50 = latencies[len(latencies)/2]
	r.P99 = latencies[len(latencies)*99/100]
	return r, nil
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// IdleSessionCost opens n sessions on s the way a client does (initialize,
// initialized, one call), leaves them idle, and returns the heap and
// goroutines they hold per session. The requests are made by hand, so that
// nothing of a client is on the heap.
func (s *Served) IdleSessionCost(n int) (bytes float64, goroutines float64, err error) {
	transport := &http.Transport{MaxIdleConnsPerHost: 4}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	baseHeap, baseG := heap(), runtime.NumGoroutine()
	var ids []string
	for range n {
		id, err := openSession(hc, s.URL)
		if err != nil {
			return 0, 0, err
		}
		ids = append(ids, id)
	}
	transport.CloseIdleConnections()
	time.Sleep(100 * time.Millisecond) // let the connections' goroutines end
	grown, g := float64(int64(heap())-int64(baseHeap)), runtime.NumGoroutine()-baseG
	for _, id := range ids {
		req, _ := http.NewRequest(http.MethodDelete, s.URL, nil)
		req.Header.Set("Mcp-Session-Id", id)
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	return grown / float64(n), float64(g) / float64(n), nil
}

// openSession opens a session by hand: initialize, initialized, one call.
func openSession(hc *http.Client, url string) (string, error) {
	post := func(body string, header map[string]string) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp, nil
	}
	resp, err := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"idle","version":"0"}}}`, nil)
	if err != nil {
		return "", err
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		return "", fmt.Errorf("initialize: %s, no session", resp.Status)
	}
	h := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
	if _, err := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, h); err != nil {
		return "", err
	}
	if _, err := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":`+string(ValidArgs)+`}}`, h); err != nil {
		return "", err
	}
	return id, nil
}
