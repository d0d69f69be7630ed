package toolmcp

import (
	"crypto/rand"
	"runtime"
	"sync"
	"weak"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionOf is the default [Options.Session]: the conversation a call
// belongs to, as far as MCP itself can tell.
//
//   - A session MCP names (streamable HTTP with sessions, SSE): its ID.
//   - A request over HTTP without one (a stateless server, or protocol
//     2026-07-28, where each request stands alone): no conversation. Who
//     sent it is for the host to say, from its authentication.
//   - Any other connection (stdio, in-memory, a pipe): the connection
//     itself, which serves one client for as long as it lasts. Its calls
//     share an ID made for it, so cursors, read_output and "allow always"
//     work there, and hold for no other connection.
func sessionOf(req *sdk.CallToolRequest) string {
	if req.Session == nil {
		return ""
	}
	if id := req.Session.ID(); id != "" {
		return id
	}
	if req.Extra != nil && req.Extra.Header != nil {
		return ""
	}
	return connectionIDs.of(req.Session)
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
