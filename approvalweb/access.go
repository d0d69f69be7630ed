package approvalweb

import (
	"context"
	"net/http"
	"slices"
)

// Who may see and answer what: Options.MayAnswer, or Options.Sessions.

// maxScan bounds the sessions with waiting approvals one view looks
// through for those Options.MayAnswer lets the person see.
const maxScan = 10_000

// sessionsOf returns the sessions whose approvals the person making r may
// see, at most maxSessions of them, and whether some were left out; or
// why the request is refused.
func (h *Handler) sessionsOf(r *http.Request) (sessions []string, cut bool, why *refusal) {
	if h.sessions != nil {
		s, err := h.sessions(r)
		if err != nil {
			return nil, false, &refusedForbidden
		}
		if len(s) > maxSessions {
			return s[:maxSessions], true, nil
		}
		return s, false, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	all, cut, err := h.waitingSessions(ctx)
	if err != nil {
		return nil, false, &refusedUnavailable
	}
	sessions, more := mayOf(all, func(s string) bool { return h.mayAnswer(r, s) })
	return sessions, cut || more, nil
}

// waitingSessions returns the sessions that have approvals waiting, as
// the store lists them, at most maxScan of them, and whether some were
// left out.
func (h *Handler) waitingSessions(ctx context.Context) ([]string, bool, error) {
	var out []string
	seen := map[string]bool{}
	cursor := ""
	for {
		page, next, err := h.store.Sessions(ctx, cursor, 1000)
		if err != nil {
			return nil, false, err
		}
		for _, s := range page {
			if !seen[s] {
				if len(out) == maxScan {
					return out, true, nil
				}
				seen[s] = true
				out = append(out, s)
			}
		}
		if next == "" || next == cursor {
			slices.Sort(out)
			return out, false, nil
		}
		cursor = next
	}
}

// mayOf returns the sessions of all that may allows, at most maxSessions
// of them, and whether some were left out.
func mayOf(all []string, may func(string) bool) ([]string, bool) {
	var out []string
	for _, s := range all {
		if may(s) {
			if len(out) == maxSessions {
				return out, true
			}
			out = append(out, s)
		}
	}
	return out, false
}

// may reports whether the person making r may answer the approvals of
// session.
func (h *Handler) may(r *http.Request, session string) (bool, *refusal) {
	if h.sessions == nil {
		return h.mayAnswer(r, session), nil
	}
	list, err := h.sessions(r)
	if err != nil {
		return false, &refusedForbidden
	}
	return slices.Contains(list, session), nil
}
