package toolmcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type requestKey struct{}

// RequestFromContext returns the MCP tools/call request that a call served
// by [AddTools] came from, so a tool or an approver can reach the client:
// its session (to log, or to elicit on protocol versions before
// 2026-07-28), its capabilities, its progress token, its auth info in
// req.Extra. It reports false outside such a call.
func RequestFromContext(ctx context.Context) (*sdk.CallToolRequest, bool) {
	req, ok := ctx.Value(requestKey{}).(*sdk.CallToolRequest)
	return req, ok && req != nil
}

func withRequest(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	return context.WithValue(ctx, requestKey{}, req)
}

// protocolMultiRoundTrip is the first protocol version whose clients
// answer input requests in a retried call (SEP-2322) and whose servers may
// not send requests of their own during a call.
const protocolMultiRoundTrip = "2026-07-28"

// multiRoundTrip reports whether the client of req answers input requests
// by retrying the call (protocol 2026-07-28 and later) rather than by
// answering an elicitation sent during the call. It is the SDK's own test
// (the version the session was initialized with, or the newest when it
// was not), so that the two never disagree about which form is allowed.
func multiRoundTrip(req *sdk.CallToolRequest) bool {
	v := protocolMultiRoundTrip // the SDK assumes the newest without initialize params
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil {
			v = p.ProtocolVersion
		}
	}
	return v >= protocolMultiRoundTrip
}
