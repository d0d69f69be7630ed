// Package approvalweb is a page where a person answers an agent's
// approvals in a browser: an [http.Handler] a host mounts under a path of
// its choosing, and the approver that sends calls to it.
//
// The page lists the calls waiting for an answer in the sessions the
// person may see, each with what an approver is shown: the tool, its
// safety class and why it asks, the preview (a diff for a file edit, the
// command for a shell call, the arguments otherwise) and when the offer
// expires. The person allows once, allows always (the page says what that
// will cover), denies with a reason the model reads, or edits the
// arguments where the host allows it. New approvals appear without a
// reload, and one answered elsewhere (another tab, another replica, the
// terminal) leaves the page. The page reads without JavaScript, and its
// forms work without it; its script adds the live updates.
//
// # Wiring
//
// The approver defers ([tool.DecisionDefer]): the call ends at once,
// unrun, with a state signed by the registry's keyring. The agent loop
// offers it on the page, waits for the answer and resumes the call with
// it:
//
//	page, err := approvalweb.New(&approvalweb.Options{
//		Sessions: func(r *http.Request) ([]string, error) { return sessionsOf(userOf(r)), nil },
//	})
//	mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
//	reg.Use(tool.Approval(&tool.ApprovalOptions[State]{Approver: page.Approver()}))
//
//	res := reg.Call(ctx, state, req)
//	if res.Status == tool.StatusAwaitingApproval {
//		answer, err := page.Await(ctx, res.Pending)
//		if err != nil {
//			return err
//		}
//		req.Approval = answer
//		res = reg.Call(ctx, state, req)
//	}
//
// # Who may answer
//
// Options.Sessions is the host's answer to "whose approvals may the
// person making this request see and answer?"; [New] refuses to build a
// handler without it. An answer is bound to the state the page showed: it
// must name an approval that waits, in a session the person may answer,
// unanswered and unexpired. Exactly one answer counts, recorded once in
// the store; a replayed answer (a second tab, a resubmitted form), a
// forged or altered one, one from another site ([http.CrossOriginProtection])
// and a late one are refused, the page says which, and nothing changes.
// The registry checks again when the call resumes: the state's signature,
// tool, arguments, session and expiry, and its one-time claim in the
// [tool.ApprovalStore].
//
// # Replicas
//
// The waiting approvals and their answers live in a
// [tool.PendingApprovalStore]. In memory by default, for one process; on
// Redis ([toolredis.PendingApprovalStore]) a person answers on any replica
// and the waiting call, on whichever replica it waits, reads the answer.
// Changes made through one handler show on its pages at once; those made
// on other replicas within Options.Poll.
//
// # Bounds
//
// A request body is bounded by the largest answer (Options.MaxArgsBytes
// and Options.MaxReasonBytes); the open live-update streams by
// Options.MaxStreams, each for 5 minutes at most (the browser reconnects);
// a page to the first 50 sessions of the person, 100 unanswered approvals
// per session ([tool.MaxPendingPerSession]), 20 file changes per approval
// and 2,000 lines per diff. The page sends a Content-Security-Policy that
// allows only its own script and style, and cannot be framed.
//
// # HTTP
//
// Under the mounted path: GET / (the page), GET /events (server-sent
// events: "add", "remove", "trouble", "ok"), GET /pending.json (the same
// approvals for programs, each with its state), POST /answer (a form:
// state, decision — allow_once, allow_always, deny or edit —, reason,
// args). An answer sent with Accept: application/json gets JSON back:
// {"ok", "code", "message"}, code being the decision or why it was
// refused (forged, replayed, expired, too_large, malformed, not_offered,
// cross_origin, forbidden, unavailable).
//
// [toolredis.PendingApprovalStore]: https://pkg.go.dev/github.com/toolbelt-go/tool/toolredis#PendingApprovalStore
package approvalweb
