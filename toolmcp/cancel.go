package toolmcp

import (
	"context"
	"errors"
	"fmt"
)

// ErrCancelledByClient is the context cause of a call whose request the
// MCP client cancelled (notifications/cancelled). A tool sees it with
// context.Cause; the host sees it in the result's Err.
var ErrCancelledByClient = errors.New("mcp: the client cancelled the request")

// ErrClientGone is the context cause of a call whose client went away (the
// connection closed or broke) while it ran. It wraps the SDK's reason.
var ErrClientGone = errors.New("mcp: the connection to the client ended")

// detach returns a context for one call that carries ctx's values and is
// cancelled when ctx is, with a cause that says why: the SDK cancels a
// request's context without one when the client sends
// notifications/cancelled, and with the read error when the connection
// ends. A call of a stateless HTTP request is cancelled too when the
// client closes that request (see withCarrier). done releases it.
func detach(ctx context.Context) (_ context.Context, done func()) {
	cctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		cause := context.Cause(ctx)
		switch {
		case cause == context.Canceled: // the SDK's cancel(nil): the client asked
			cancel(ErrCancelledByClient)
		case errors.Is(cause, context.DeadlineExceeded):
			cancel(cause) // a deadline set above the SDK; keep it as it is
		default:
			cancel(fmt.Errorf("%w: %w", ErrClientGone, cause))
		}
	})
	stopCarrier := func() bool { return false }
	if carrier, ok := ctx.Value(carrierKey{}).(context.Context); ok {
		stopCarrier = context.AfterFunc(carrier, func() { cancel(ErrCancelledByClient) })
	}
	return cctx, func() {
		stop()
		stopCarrier()
		cancel(context.Canceled)
	}
}
