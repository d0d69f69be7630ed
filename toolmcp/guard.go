package toolmcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// GuardOptions bound what [Guard] lets through from a server. A nil
// *GuardOptions means the defaults.
type GuardOptions struct {
	// MaxResultBytes bounds the content kept of one tools/call result:
	// text is cut on a character boundary where it runs out, an image,
	// audio or blob that does not fit is left out, and so is a
	// structuredContent larger than this. A note at the end of the
	// content says what was left out. The rest is read and dropped, never
	// held. (The registry then cuts the result to the tool's output cap,
	// as it does any tool's.) Zero means 1 MiB.
	MaxResultBytes int
	// MaxResultBlocks bounds the content blocks kept of one result; the
	// others are counted in the note. Zero means 1,000.
	MaxResultBlocks int
	// MaxMessageBytes bounds any other message, a page of tools/list
	// included: a response over it becomes an error response to its
	// request, a notification or request from the server over it is
	// dropped, and a tool of a list page past it is left out, counted.
	// Each tool of a page counts as at least 1 KiB (what the SDK spends
	// on one is not in proportion to its bytes), and the messages of a
	// batch share the bound of one. Zero means 8 MiB.
	MaxMessageBytes int
	// MaxDepth bounds the nesting of any value (a tool of a list, and its
	// schemas, count from the tool). A tool nested deeper is kept by name
	// only, for [RemoteTools] to leave out saying why; any other message
	// is treated as too large. Zero means 128.
	MaxDepth int
}

// Defaults of [GuardOptions].
const (
	DefaultMaxResultBytes  = 1 << 20
	DefaultMaxResultBlocks = 1000
	DefaultMaxMessageBytes = 8 << 20
	DefaultMaxDepth        = 128
)

func (o *GuardOptions) limits() *limits {
	l := &limits{resultBytes: DefaultMaxResultBytes, resultBlocks: DefaultMaxResultBlocks, messageBytes: DefaultMaxMessageBytes, depth: DefaultMaxDepth}
	if o != nil {
		if o.MaxResultBytes > 0 {
			l.resultBytes = o.MaxResultBytes
		}
		if o.MaxResultBlocks > 0 {
			l.resultBlocks = o.MaxResultBlocks
		}
		if o.MaxMessageBytes > 0 {
			l.messageBytes = o.MaxMessageBytes
		}
		if o.MaxDepth > 0 {
			l.depth = o.MaxDepth
		}
	}
	return l
}

// Guard returns a transport to an MCP server that reads what the server
// sends before the SDK does, and lets through only what fits in the
// bounds of opts: the SDK then decodes no message larger or deeper than
// those bounds. Connect to a server whose tools [RemoteTools] or
// [AddRemoteTools] will use through it; they refuse a session that was
// not:
//
//	cs, err := client.Connect(ctx, toolmcp.Guard(&mcp.CommandTransport{Command: cmd}, nil), nil)
//
// Without it, one tool whose schema nests deeper than the SDK accepts
// makes the whole list fail (and, over HTTP, the connection), a tool that
// can only run as a task cannot be seen as one, and a result of 100 MB is
// read whole, or ends the connection. Through it:
//
//   - each tool of a tools/list page is read within the bounds on its
//     own: one that does not fit is kept by name only, and RemoteTools
//     leaves it out saying why, keeping the others;
//   - a tools/call result keeps MaxResultBytes of its content, cut where
//     that runs out, with a note that says what was left out, which is
//     read and dropped as it arrives;
//   - any other message over the bounds is dropped, or, for a response,
//     replaced by an error response to its request.
//
// It guards [sdk.CommandTransport], [sdk.IOTransport],
// [sdk.StreamableClientTransport] and [sdk.SSEClientTransport] (for an
// in-process server, connect an IOTransport to each end of a net.Pipe);
// another transport fails to connect, saying so.
func Guard(t sdk.Transport, opts *GuardOptions) sdk.Transport {
	return &guarded{inner: t, limits: opts.limits()}
}

type guarded struct {
	inner  sdk.Transport
	limits *limits
}

func (g *guarded) Connect(ctx context.Context) (sdk.Connection, error) {
	switch t := g.inner.(type) {
	case *sdk.CommandTransport:
		return g.command(ctx, t)
	case *sdk.IOTransport:
		c := *t
		c.Reader = newGuardReader(t.Reader, g.limits)
		return c.Connect(ctx)
	case *sdk.StreamableClientTransport:
		c := *t
		c.HTTPClient = g.httpClient(t.HTTPClient)
		return c.Connect(ctx)
	case *sdk.SSEClientTransport:
		c := *t
		c.HTTPClient = g.httpClient(t.HTTPClient)
		return c.Connect(ctx)
	}
	return nil, fmt.Errorf("toolmcp: Guard cannot read what comes through a %T; it guards CommandTransport, IOTransport, StreamableClientTransport and SSEClientTransport", g.inner)
}

// command starts the server as the SDK's CommandTransport does, with its
// standard output read through the guard, and stops it as that does too.
func (g *guarded) command(ctx context.Context, t *sdk.CommandTransport) (sdk.Connection, error) {
	stdout, err := t.Command.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.Command.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.Command.Start(); err != nil {
		return nil, err
	}
	td := t.TerminateDuration
	if td <= 0 {
		td = 5 * time.Second
	}
	// The connection is closed by closing stdin, then waiting for the
	// server to exit; stdout ends when it does.
	reader := newGuardReader(io.NopCloser(stdout), g.limits)
	reader.process = true
	return (&sdk.IOTransport{Reader: reader, Writer: &processInput{WriteCloser: stdin, cmd: t.Command, terminate: td}}).Connect(ctx)
}

// processInput is a server's standard input, whose Close stops the server
// the way MCP asks of stdio clients: close its input, wait, SIGTERM, wait,
// SIGKILL.
type processInput struct {
	io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
	once      sync.Once
	err       error
}

func (p *processInput) Close() error {
	p.once.Do(func() { p.err = p.stop() })
	return p.err
}

func (p *processInput) stop() error {
	if err := p.WriteCloser.Close(); err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	wait := func() (error, bool) {
		select {
		case err := <-exited:
			return err, true
		case <-time.After(p.terminate):
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := p.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("unresponsive subprocess")
}

// guardReader is a stream of newline-delimited messages from a server,
// read through the guard.
type guardReader struct {
	src     io.ReadCloser
	scan    *jsonScanner
	limits  *limits
	buf     bytes.Buffer
	err     error
	process bool // src is a server program's standard output
}

func newGuardReader(src io.ReadCloser, l *limits) *guardReader {
	return &guardReader{src: src, scan: newJSONScanner(src), limits: l}
}

func (r *guardReader) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.buf.Reset()
		r.err = r.limits.readMessages(r.scan, &r.buf)
		if nj := (*notJSON)(nil); errors.As(r.err, &nj) {
			nj.process = r.process
		}
	}
	return r.buf.Read(p)
}

func (r *guardReader) Close() error { return r.src.Close() }

// httpClient returns c (or the default client) with every response body
// read through the guard.
func (g *guarded) httpClient(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	cc := *c
	rt := cc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	cc.Transport = &guardRoundTripper{inner: rt, limits: g.limits}
	return &cc
}

type guardRoundTripper struct {
	inner  http.RoundTripper
	limits *limits
}

func (g *guardRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.inner.RoundTrip(withTaskName(req))
	if err != nil || resp.Body == nil {
		return resp, err
	}
	switch baseMediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		resp.Body = newGuardReader(resp.Body, g.limits)
	case "text/event-stream":
		resp.Body = newSSEGuard(resp.Body, g.limits)
	default:
		return resp, nil
	}
	// The length the server gave is no longer the length of the body.
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}
