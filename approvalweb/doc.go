// Package approvalweb is a page where a person answers an agent's
// approvals in a browser: an [http.Handler] a host mounts under a path of
// its choosing, and the approver that sends calls to it.
//
// The page lists the calls waiting for an answer in the sessions the
// person may answer, each with what an approver is shown: the tool, its
// safety class and why it asks, the preview (a diff for a file edit, the
// command for a shell call) and the arguments, whole, and when the offer
// expires. The person allows once, allows always (the page says what that
// will cover), denies with a reason the model reads, or edits the
// arguments where the host allows it. New approvals appear without a
// reload, and one answered elsewhere (another tab, another replica, the
// terminal) leaves the page. The page reads without JavaScript, and its
// forms work without it; its script adds the live updates.
//
// # Wiring
//
// The page's approver offers each call it is asked about on the page, and
// the call waits there, inside the pipeline, for a person's answer on any
// replica (within the approval timeout), then runs or not, however it
// arrived: a direct call, a batch, a provider loop, an MCP client. No
// other frontend answers in its place.
//
//	page, err := approvalweb.New(&approvalweb.Options{
//		MayAnswer: func(r *http.Request, session string) bool { return session == userOf(r) },
//	})
//	mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
//	reg.Use(tool.Approval(&tool.ApprovalOptions[State]{Approver: page.Approver()}))
//
// A host that ends the model's turn instead of holding the call sets
// [tool.Request.ReturnPending], and resumes the call with the answer of
// [Handler.Await], here or on another replica.
//
// # Who may answer
//
// Options.MayAnswer is the host's answer to "may the person making this
// request see and answer the approvals of this session?" (or
// Options.Sessions, the list of a person's sessions, for a host that keeps
// one); [New] refuses to build a handler without one of them. Sessions are
// compared as they were given to the calls, byte for byte, never as the
// page shows them. examples/mcpapproval shows the path from a bearer token
// to the session (toolmcp.UserSession) to the page. An answer is bound to
// the state the page showed: it must name an approval that waits, in a
// session the person may answer, unanswered and unexpired, and be one the
// page offers for that call (one rule decides what the page shows and
// what it accepts). Exactly one answer counts, recorded once in the store;
// a replayed answer (a second tab, a resubmitted form), a forged or
// altered one, one from another site ([http.CrossOriginProtection]) and a
// late one are refused, the page says which, and nothing changes. The
// registry checks again when the call resumes: the state's signature,
// tool, arguments, session and expiry, and its one-time claim in the
// [tool.ApprovalStore].
//
// # What the page shows is what runs
//
// A character that does not show (a control, a bidirectional or
// zero-width character) is shown as a mark of its own, its code point
// boxed and labelled, which no text can reproduce: a real U+202E and the
// six characters \u202e never look the same. Lines wrap, and a run of
// spaces inside a line is counted, so a command shows whole however wide.
// A person allows only what they can read: a call too large for the list
// (over 16 KiB) is read whole, and allowed, on a page of its own; one
// whose arguments are larger than the page shows whole (1 MiB) can only be
// denied there.
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
// # When no one looks
//
// A call that has waited 5 seconds with no page open (on this replica)
// that may answer it is said to Options.Logger, at level Warn, once;
// [Handler.Status] counts such calls. [Handler.Pending] lists what waits
// in a session, for the host's own code, and [Handler.Answer] answers it.
//
// # Bounds
//
// A request body is bounded by the largest answer (Options.MaxArgsBytes
// and Options.MaxReasonBytes); the open live-update streams by
// Options.MaxStreams, each for 5 minutes at most (the browser reconnects);
// a page of the list to 20 approvals (the rest on the next pages), of the
// first 50 sessions of the person; 100 unanswered approvals per session
// ([tool.MaxPendingPerSession]), 20 file changes per approval and 2,000
// lines per diff. The page sends a Content-Security-Policy that allows
// only its own script and style, and cannot be framed.
//
// # HTTP
//
// Under the mounted path: GET / (the page: ?page=N of the list, ?id= one
// approval whole), GET /events (server-sent events: "add", "remove",
// "count", "trouble", "ok"), GET /pending.json (the same approvals for
// programs, each a [PendingJSON]), POST /answer (a form: state, decision —
// allow_once, allow_always, deny or edit —, reason, args). An answer sent
// with Accept: application/json gets JSON back: {"ok", "code",
// "message"}, code being the decision or why it was refused (forged,
// replayed, expired, too_large, malformed, not_offered, cross_origin,
// forbidden, unavailable).
//
// [toolredis.PendingApprovalStore]: https://pkg.go.dev/github.com/toolbelt-go/tool/toolredis#PendingApprovalStore
package approvalweb
