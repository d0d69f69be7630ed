package toolmcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// UserSession is an [Options.Session] that names the session of each call
// after the user its bearer token authenticates: req.Extra.TokenInfo.UserID,
// as the TokenVerifier given to the SDK's auth.RequireBearerToken sets it.
// A request that carries none belongs to no session ("": no cursors, no
// "allow always", and no one's approvals).
//
// It is the first step of the path authentication → session → approval
// page: the same user, on the page, may answer the approvals of their
// session (approvalweb's Options.MayAnswer compares it with the page's
// login), on every protocol version, with or without MCP sessions. A
// host that wants a session per conversation rather than per user names
// both in its own Options.Session (the user, then [SessionID]), and lets
// MayAnswer match the user's part.
func UserSession(req *sdk.CallToolRequest) string {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil {
		return ""
	}
	return req.Extra.TokenInfo.UserID
}
