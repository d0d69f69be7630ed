package toolmcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewClient is [sdk.NewClient] with [ClientMiddleware] added, so that the
// progress a server reports for calls of [RemoteTools] reaches the tools'
// callers as [tool.ReportProgress], and with the tasks extension's methods,
// so that [RemoteTools] can follow a tool the server runs only as a task.
// Every other notification reaches the handlers in opts as usual.
func NewClient(impl *sdk.Implementation, opts *sdk.ClientOptions) *sdk.Client {
	c := sdk.NewClient(impl, opts)
	c.AddReceivingMiddleware(ClientMiddleware())
	addTaskMethods(c) // tasks/get, tasks/update, tasks/cancel for remote tasks (task_remote.go)
	return c
}

// ClientMiddleware returns a receiving middleware for an [sdk.Client] that
// delivers notifications/progress for calls made by [RemoteTools] to those
// calls, and passes everything else on. Add it with
// client.AddReceivingMiddleware, or use [NewClient].
func ClientMiddleware() sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "notifications/progress" {
				if p, ok := req.GetParams().(*sdk.ProgressNotificationParams); ok && p != nil {
					if deliverProgress(req.GetSession(), p) {
						return nil, nil
					}
				}
			}
			return next(ctx, method, req)
		}
	}
}

// progressRoutes maps the progress tokens of remote calls in flight to
// where their progress goes. Tokens are random, and a route answers only
// notifications from the session the call went to.
var progressRoutes sync.Map // string -> progressRoute

type progressRoute struct {
	session sdk.Session
	deliver func(*sdk.ProgressNotificationParams)
}

// routeProgress registers a new progress token for one call on cs.
func routeProgress(cs *sdk.ClientSession, deliver func(*sdk.ProgressNotificationParams)) (token string, release func()) {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	token = "toolbelt-" + hex.EncodeToString(b[:])
	progressRoutes.Store(token, progressRoute{session: cs, deliver: deliver})
	return token, func() { progressRoutes.Delete(token) }
}

func deliverProgress(from sdk.Session, p *sdk.ProgressNotificationParams) bool {
	token, ok := p.ProgressToken.(string)
	if !ok {
		return false
	}
	v, ok := progressRoutes.Load(token)
	if !ok {
		return false
	}
	r := v.(progressRoute)
	if r.session != from {
		return false
	}
	r.deliver(p)
	return true
}
