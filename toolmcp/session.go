package toolmcp

import (
	"crypto/rand"
	"runtime"
	"sync"
	"weak"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionID returns the ID toolmcp gives the MCP session req belongs to:
// the one [Options.SessionEnded] is called with when that session ends,
// and the default [Options.Session]. Key per-session host state by it in
// [Options.State], and drop the state in [Options.SessionEnded].
//
//   - A session MCP names (streamable HTTP with sessions, SSE): its ID.
//   - A request over HTTP without one (a stateless server, or protocol
//     2026-07-28, where each request stands alone): "", no session. Who
//     sent it is for the host to say, from its authentication: "" is the
//     same for every such client, so never key one client's state by it.
//   - Any other connection (stdio, in-memory, a pipe): the connection
//     itself, which serves one client for as long as it lasts. Its calls
//     share an ID made for it ("connection-" and random letters), which
//     holds for no other connection.
func SessionID(req *sdk.CallToolRequest) string {
	if req == nil {
		return ""
	}
	return sessionIDOf(req.Session, req.Extra)
}

func sessionIDOf(ss *sdk.ServerSession, extra *sdk.RequestExtra) string {
	if ss == nil {
		return ""
	}
	if id := ss.ID(); id != "" {
		return id
	}
	if extra != nil && extra.Header != nil {
		return ""
	}
	return connectionIDs.of(ss)
}

// connectionIDs holds the IDs made for connections MCP gives none.
var connectionIDs connectionIDMap

// connectionIDMap maps a live server session to a random ID. It holds the
// sessions weakly, and an entry is dropped once its session is collected,
// so a server that takes connections for months keeps no memory of those
// that ended.
type connectionIDMap struct {
	m sync.Map // weak.Pointer[sdk.ServerSession] -> string
}

func (c *connectionIDMap) of(ss *sdk.ServerSession) string {
	key := weak.Make(ss)
	if id, ok := c.m.Load(key); ok {
		return id.(string)
	}
	id, loaded := c.m.LoadOrStore(key, "connection-"+rand.Text())
	if !loaded {
		runtime.AddCleanup(ss, func(key weak.Pointer[sdk.ServerSession]) { c.m.Delete(key) }, key)
	}
	return id.(string)
}

// sessionWatch tells the host when the sessions it has seen end
// ([Options.SessionEnded]): one goroutine per live session waits for it to
// close. Only sessions with an ID are watched; a stateless HTTP request is
// a session of its own that ends with the request, and no one's.
type sessionWatch struct {
	ended func(id string)
	live  sync.Map // *sdk.ServerSession -> struct{}

	mu      sync.Mutex
	stopped bool
}

// see starts watching ss, if it is not watched yet.
func (w *sessionWatch) see(ss *sdk.ServerSession, extra *sdk.RequestExtra) {
	if _, ok := w.live.Load(ss); ok {
		return
	}
	id := sessionIDOf(ss, extra)
	if id == "" {
		return
	}
	if _, loaded := w.live.LoadOrStore(ss, struct{}{}); loaded {
		return
	}
	go func() {
		_ = ss.Wait()
		w.live.Delete(ss)
		w.mu.Lock()
		stopped := w.stopped
		w.mu.Unlock()
		if !stopped {
			// The host's hook runs on this goroutine, which no caller
			// waits for: a panic in it would end the process.
			defer func() { _ = recover() }()
			w.ended(id)
		}
	}()
}

// stop ends the calls to the host; the watching goroutines end with their
// sessions.
func (w *sessionWatch) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}
