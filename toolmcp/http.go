package toolmcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure [NewHTTPHandler]. A nil *HTTPOptions means the
// defaults, which are meant for an endpoint anyone can reach.
type HTTPOptions struct {
	// AllowedOrigins lists the origins, besides the endpoint's own, whose
	// web pages may call it ("https://app.example.com": scheme, host and
	// port, nothing else). A browser request from any other origin (an
	// Origin header naming another host, "Origin: null", or Sec-Fetch-Site
	// cross-site or same-site) is refused with 403, whatever its method, as
	// MCP requires of servers: otherwise any page the user opens could
	// drive the tools through the user's browser. Requests without those
	// headers (programs, not browsers) are not affected. NewHTTPHandler
	// panics on an origin that is not of that form.
	AllowedOrigins []string
	// IdleTimeout is how long a session may go without a request before
	// the handler closes it, and its memory and goroutines return: clients
	// that go away without ending their session (DELETE) are the rule, not
	// the exception. A request in progress keeps its session open. A client
	// that comes back after it gets 404 and starts a new session, as MCP
	// has clients do. Zero means 10 minutes; negative, never.
	IdleTimeout time.Duration
	// MaxSessions bounds the sessions open at once. A client that would
	// open one more gets 503 with Retry-After until one ends (or is
	// reclaimed as idle). A request that opens one counts from when its
	// body has been read, so clients that send their bodies slowly (or
	// never finish them) take no session away from others. Zero means
	// 10,000; negative, no bound. Requests on protocol 2026-07-28 and
	// later open no session.
	MaxSessions int
	// MaxBodyBytes bounds the body of each request; a larger one gets 413.
	// Zero means the SDK's default (4 MiB); negative, no bound.
	MaxBodyBytes int64
	// Stateless serves every request on its own, whatever its protocol
	// version: no sessions, so nothing to reclaim and any replica can
	// answer any request. Clients before 2026-07-28 then cannot be asked
	// anything during a call (no elicitation, so [Approver] cannot ask
	// them), and their calls have no session unless [Options.Session]
	// names one. A call ends with the request that carries it: a client
	// that closes the request cancels the call ([ErrCancelledByClient]),
	// at every version (a notifications/cancelled, which comes in a
	// request of its own, reaches no call). See the package
	// documentation.
	Stateless bool
	// Streamable gives the SDK's options for what HTTPOptions does not
	// decide: EventStore (resumable streams), JSONResponse, Logger,
	// DisableLocalhostProtection (DNS rebinding protection, on by
	// default: keep it on unless a proxy on the same host forwards other
	// host names). Its Stateless, SessionTimeout, MaxRequestBodyBytes,
	// CrossOriginProtection and PropagateRequestCancellation are ignored.
	Streamable *sdk.StreamableHTTPOptions
}

// Defaults of [HTTPOptions].
const (
	DefaultIdleTimeout = 10 * time.Minute
	DefaultMaxSessions = 10_000
)

// NewHTTPHandler returns an http.Handler that serves server over MCP's
// streamable HTTP transport, with defaults safe for an endpoint other
// parties can reach (see [HTTPOptions]): browser requests from other
// origins refused, idle sessions closed, sessions and request bodies
// bounded.
//
// It speaks every protocol version the SDK does. A request of protocol
// 2026-07-28 or later (SEP-2575: the version in the MCP-Protocol-Version
// header) is served on its own, without a session, as that version
// requires: input requests such as [Approver]'s are answered in a retried
// call (SEP-2322), and a client that abandons the request (closes it)
// cancels the call, with [ErrCancelledByClient] as its cause. Requests of
// earlier versions get a session (Mcp-Session-Id), within which the
// server may ask the client (elicitation) during a call, and
// notifications/cancelled cancels a call; with [HTTPOptions.Stateless],
// they are served on their own too, and closing the request cancels the
// call for them as well.
//
// Mount it where clients are told to connect:
//
//	http.Handle("/mcp", toolmcp.NewHTTPHandler(server, nil))
func NewHTTPHandler(server *sdk.Server, opts *HTTPOptions) http.Handler {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	h := &httpHandler{server: server, origins: http.NewCrossOriginProtection(), maxSessions: o.MaxSessions, maxBodyBytes: o.MaxBodyBytes}
	if h.maxBodyBytes == 0 {
		h.maxBodyBytes = sdk.DefaultMaxRequestBodyBytes
	}
	for _, origin := range o.AllowedOrigins {
		if err := h.origins.AddTrustedOrigin(origin); err != nil {
			panic("toolmcp: HTTPOptions.AllowedOrigins: " + err.Error())
		}
	}
	if h.maxSessions == 0 {
		h.maxSessions = DefaultMaxSessions
	}
	var base sdk.StreamableHTTPOptions
	if o.Streamable != nil {
		base = *o.Streamable
	}
	//lint:ignore SA1019 the origin is checked here, for every method; a caller's setting is dropped.
	base.CrossOriginProtection = nil
	base.MaxRequestBodyBytes = o.MaxBodyBytes
	getServer := func(*http.Request) *sdk.Server { return server }

	stateless := base
	stateless.Stateless = true
	stateless.SessionTimeout = 0
	// The POST is the whole life of a request from 2026-07-28 on: when the
	// client closes it, nothing can receive the result, and the call is
	// cancelled. (Off in the SDK by default, for compatibility.)
	stateless.PropagateRequestCancellation = true
	h.stateless = sdk.NewStreamableHTTPHandler(getServer, &stateless)

	if !o.Stateless {
		stateful := base
		stateful.Stateless = false
		switch {
		case o.IdleTimeout == 0:
			stateful.SessionTimeout = DefaultIdleTimeout
		case o.IdleTimeout > 0:
			stateful.SessionTimeout = o.IdleTimeout
		default:
			stateful.SessionTimeout = 0
		}
		h.stateful = sdk.NewStreamableHTTPHandler(getServer, &stateful)
	}
	return h
}

type httpHandler struct {
	server    *sdk.Server
	origins   *http.CrossOriginProtection
	stateful  *sdk.StreamableHTTPHandler // nil: HTTPOptions.Stateless
	stateless *sdk.StreamableHTTPHandler

	maxSessions  int
	maxBodyBytes int64        // as the SDK bounds bodies; negative: no bound
	opening      atomic.Int64 // sessions being opened (their first POST in progress)
}

// protocolVersionHeader is the header that carries the protocol version of
// a request, on every request after initialize, and on every request from
// 2026-07-28 on.
const protocolVersionHeader = "Mcp-Protocol-Version"

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.checkOrigin(r); err != nil {
		http.Error(w, "Forbidden: "+err.Error(), http.StatusForbidden)
		return
	}
	if h.stateful == nil || r.Header.Get(protocolVersionHeader) >= protocolMultiRoundTrip {
		if !h.checkTaskRequest(w, r) {
			return
		}
		h.stateless.ServeHTTP(w, withCarrier(r))
		return
	}
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
		// This request opens a session (its initialize), unless it fails.
		// Its body is read first: a client that sends it slowly, or never
		// ends it, holds a connection (the http.Server's to bound) but no
		// session slot, which it held for as long as it took: 20 such
		// connections locked every new client out at MaxSessions 20.
		if !h.readBody(w, r) {
			return
		}
		if !h.reserveSession() {
			w.Header().Set("Retry-After", strconv.Itoa(60))
			http.Error(w, "Service Unavailable: this server has as many MCP sessions open as it allows; try again later", http.StatusServiceUnavailable)
			return
		}
		defer h.opening.Add(-1)
	}
	h.stateful.ServeHTTP(w, r)
}

// checkOrigin refuses a browser request from another origin than the
// endpoint's own or an allowed one. http.CrossOriginProtection decides
// (Sec-Fetch-Site, then Origin against Host); it lets safe methods pass,
// and a GET here opens a session's stream, so every request is checked
// as a POST would be.
func (h *httpHandler) checkOrigin(r *http.Request) error {
	if r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "" {
		return nil
	}
	checked := r
	if r.Method != http.MethodPost {
		checked = r.Clone(r.Context())
		checked.Method = http.MethodPost
	}
	if err := h.origins.Check(checked); err != nil {
		return fmt.Errorf("requests from origin %q are not allowed here (%v); a server that serves pages of that origin allows it with toolmcp.HTTPOptions.AllowedOrigins", r.Header.Get("Origin"), err)
	}
	return nil
}

// readBody reads the body of r into memory, within the bound on bodies,
// and leaves it there for the SDK to read. It answers the request itself
// (413, or 400) and reports false when the body cannot be read.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	body := io.Reader(r.Body)
	if h.maxBodyBytes > 0 {
		body = http.MaxBytesReader(w, r.Body, h.maxBodyBytes)
	}
	b, err := io.ReadAll(body)
	_ = r.Body.Close()
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return false
		}
		http.Error(w, "Bad Request: the request body could not be read", http.StatusBadRequest)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return true
}

// reserveSession counts one more session being opened, if the sessions
// open and being opened leave room for it.
func (h *httpHandler) reserveSession() bool {
	if h.maxSessions < 0 {
		h.opening.Add(1)
		return true
	}
	if h.opening.Add(1) > int64(h.maxSessions) {
		h.opening.Add(-1)
		return false
	}
	open := 0
	for ss := range h.server.Sessions() {
		// Sessions with an ID are those of streamable HTTP (and SSE);
		// stdio and stateless requests have none.
		if ss.ID() != "" {
			open++
		}
	}
	if int64(open)+h.opening.Load() > int64(h.maxSessions) {
		h.opening.Add(-1)
		return false
	}
	return true
}

// carrierKey is the context key of the HTTP request a stateless request's
// calls live in (see withCarrier).
type carrierKey struct{}

// withCarrier marks r as the whole life of the calls it carries: served
// without a session, no notifications/cancelled can reach them (it would
// come in a request of its own, served on its own), and nothing can
// receive their results once the client closes r, so closing r cancels
// them ([ErrCancelledByClient]). The SDK does this itself only from
// protocol 2026-07-28 on (StreamableHTTPOptions.PropagateRequestCancellation):
// a client of 2025-11-25 that closed its request left the call running to
// its end. The SDK gives a handler a context that carries the values of
// the request's (not its end), so the mark reaches [detach].
func withCarrier(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), carrierKey{}, r.Context()))
}
