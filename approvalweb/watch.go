package approvalweb

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/toolbelt-go/tool"
)

// unwatchedAfter is how long a call waits on the page with no page open
// that may answer it before the handler warns: long enough for a page to
// reconnect its live updates (2 s) or to be opened by the person a host
// just told.
var unwatchedAfter = 5 * time.Second

// Status is what a [Handler] sees now, on this replica.
type Status struct {
	// Pages is how many pages are open with live updates.
	Pages int
	// Waiting is how many calls wait here for an answer on the page
	// ([Handler.Await], and so every call of [Handler.Approver]).
	Waiting int
	// Unwatched is how many of them no open page may answer: no person
	// sees them now, and they are denied when they expire unless someone
	// opens the page, or the host answers them ([Handler.Answer]).
	Unwatched int
}

// Status reports the pages open on this handler and the calls waiting
// here, and how many of those no open page may answer. A page is open
// when its live updates are (the page's script keeps them while it is
// shown); pages open on other replicas are not counted.
func (h *Handler) Status() Status {
	h.waitingMu.Lock()
	waiting := make([]*tool.PendingApproval, 0, len(h.awaiting))
	for p := range h.awaiting {
		waiting = append(waiting, p)
	}
	h.waitingMu.Unlock()
	st := Status{Pages: h.openStreams(), Waiting: len(waiting)}
	for _, p := range waiting {
		if !h.watched(p.Session) {
			st.Unwatched++
		}
	}
	return st
}

func (h *Handler) openStreams() int {
	h.streamsMu.Lock()
	defer h.streamsMu.Unlock()
	return h.streamsOpen
}

// watched reports whether a page open on this handler may answer the
// approvals of session.
func (h *Handler) watched(session string) bool {
	b := &h.hub
	b.mu.Lock()
	subs := make([]*subscriber, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()
	for _, s := range subs {
		if s.r != nil && s.mayAnswer(h, session) || s.r == nil && slices.Contains(s.shows(), session) {
			return true
		}
	}
	return false
}

// watch counts p among the calls waiting here, until the returned func is
// called.
func (h *Handler) watch(p *tool.PendingApproval) (done func()) {
	h.waitingMu.Lock()
	defer h.waitingMu.Unlock()
	if h.awaiting == nil {
		h.awaiting = map[*tool.PendingApproval]struct{}{}
	}
	h.awaiting[p] = struct{}{}
	return func() {
		h.waitingMu.Lock()
		defer h.waitingMu.Unlock()
		delete(h.awaiting, p)
	}
}

// warnUnwatched says, once, that p waits on the page and no open page may
// answer it.
func (h *Handler) warnUnwatched(ctx context.Context, p *tool.PendingApproval) {
	r := &p.Request
	h.logger.LogAttrs(ctx, slog.LevelWarn, "approvalweb: a call waits for an answer on the approvals page, and no page that may answer it is open (on this replica); it is denied when it expires unless someone opens the page or the host answers it",
		slog.String("tool", r.Tool), slog.String("session", r.Session), slog.String("call_id", r.CallID),
		slog.Time("expires", p.Expires), slog.Duration("waited", unwatchedAfter))
}
