package approvalweb_test

import (
	"context"
	"net/http"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// State is a host's per-call state, for the examples.
type State struct{ User string }

// Wiring the page into a server and a registry. MayAnswer is yours to
// write: whether the person making the request may see and answer the
// approvals of a session (here: the sessions are named after their user,
// as toolmcp.UserSession names them, and the page's login says who the
// person is).
func ExampleNew() {
	var (
		mux   = http.NewServeMux()
		srv   = &http.Server{Handler: mux}
		reg   = tool.NewRegistry[State](nil)
		store tool.PendingApprovalStore // toolredis.NewPendingApprovalStore(rdb, nil) across replicas; nil: in memory
	)
	page, err := approvalweb.New(&approvalweb.Options{
		MayAnswer: func(r *http.Request, session string) bool { return userOf(r) != "" && session == userOf(r) },
		Store:     store,
		Editable:  func(req *tool.ApprovalRequest) bool { return req.Tool == "edit_file" },
	})
	if err != nil {
		panic(err) // no MayAnswer: the handler refuses to start
	}
	mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
	srv.RegisterOnShutdown(func() { page.Close() }) // ends the live-update streams

	reg.Use(tool.Approval(&tool.ApprovalOptions[State]{Approver: page.Approver()}))
}

// The agent loop's part, for a host that does not hold the call while the
// person decides: ReturnPending ends the call at once, unrun; the pending
// approval is offered on the page, and the call resumed with the answer
// (here, or on another replica, in a later request).
func ExampleHandler_Await() {
	var (
		page  *approvalweb.Handler
		reg   *tool.Registry[State]
		ctx   = context.Background()
		state State
		req   tool.Request // what the model asked for
	)
	req.ReturnPending = true // without it, reg.Call waits on the page itself
	res := reg.Call(ctx, state, req)
	if res.Status == tool.StatusAwaitingApproval {
		answer, err := page.Await(ctx, res.Pending)
		if err != nil {
			return // ctx done (the approval is withdrawn from the page), or the store refused it
		}
		req.Approval = answer
		res = reg.Call(ctx, state, req) // runs, or tells the model why not
	}
	_ = res
}

func userOf(r *http.Request) string { return r.Header.Get("X-User") }
