package approvalweb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
)

// refusal is why an answer (or a page) was refused: the status, a code a
// program can read, and what the person is told.
type refusal struct {
	status  int
	code    string
	message string
}

// The refusals, each with what the person reads. None of them changes
// anything: a refused answer is not recorded, and the call it names
// still waits (or is gone).
var (
	refusedCrossOrigin = refusal{http.StatusForbidden, "cross_origin",
		"This answer came from another site and was refused. Answer from the approvals page itself."}
	refusedForbidden = refusal{http.StatusForbidden, "forbidden",
		"You may not see or answer approvals here."}
	refusedForged = refusal{http.StatusForbidden, "forged",
		"This answer was refused: it is not for an approval waiting for you. It may have been altered. Nothing ran."}
	refusedReplayed = refusal{http.StatusConflict, "replayed",
		"This approval was already answered (in another tab, on another device, or by the agent). Your answer was not used."}
	refusedExpired = refusal{http.StatusGone, "expired",
		"This approval expired before your answer came. Your answer was not used, and the call does not run."}
	refusedTooLarge = refusal{http.StatusRequestEntityTooLarge, "too_large",
		"This answer is too large and was refused: shorten the reason or the edited arguments."}
	refusedMalformed = refusal{http.StatusBadRequest, "malformed",
		"This answer was not understood and was refused: answer with one of the page's buttons."}
	refusedNotOffered = refusal{http.StatusBadRequest, "not_offered",
		"This answer is not offered for this call and was refused."}
	refusedUnavailable = refusal{http.StatusServiceUnavailable, "unavailable",
		"The approvals cannot be reached right now. Nothing was changed; try again in a moment."}
)

// with returns r with a message of its own.
func (r refusal) with(message string) refusal {
	r.message = message
	return r
}

// answerJSON is the answer to an answer sent by the page's script or a
// program (Accept: application/json).
type answerJSON struct {
	OK      bool   `json:"ok"`
	Code    string `json:"code"` // the decision, or why it was refused
	Message string `json:"message"`
}

// refuse tells the person why their request was refused: as JSON to the
// page's script, else as the page itself with the refusal at its top.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, why refusal) {
	if why.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	if wantsJSON(r) || r.Method != http.MethodPost && r.URL.Path != "/" {
		writeJSON(w, why.status, answerJSON{Code: why.code, Message: why.message})
		return
	}
	h.render(w, r, why.status, pageData{Alert: why.message})
}

// The decisions a form sends.
var decisions = map[string]tool.DecisionKind{
	"allow_once":   tool.DecisionAllowOnce,
	"allow_always": tool.DecisionAllowAlways,
	"deny":         tool.DecisionDeny,
	"edit":         tool.DecisionEdit,
}

// form is an answer as the form sent it, checked for shape and size.
type form struct {
	state    string
	decision string
	reason   string
	args     json.RawMessage
}

// serveAnswer records a person's answer. It is bound to the state the
// page showed: the state must name an approval that waits, in a session
// the person may answer, unanswered and unexpired; the one-time answer in
// the store makes a replay, or a race with another tab or replica, lose.
func (h *Handler) serveAnswer(w http.ResponseWriter, r *http.Request) {
	f, why := h.readForm(w, r)
	if why != nil {
		h.refuse(w, r, *why)
		return
	}
	if h.sessions != nil { // a person the host does not know is told so first
		if _, err := h.sessions(r); err != nil {
			h.refuse(w, r, refusedForbidden)
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	p, answered, err := h.store.Get(ctx, f.state)
	if err == nil && p.State != f.state {
		err = tool.ErrPendingGone
	}
	var mine bool
	if err == nil {
		var why *refusal
		if mine, why = h.may(r, p.Session); why != nil {
			h.refuse(w, r, *why)
			return
		}
	}
	switch {
	case errors.Is(err, tool.ErrPendingGone):
		h.refuse(w, r, refusedForged)
		return
	case err != nil:
		h.refuse(w, r, refusedUnavailable)
		return
	case !mine:
		// Not the person's to answer: said as for a state never offered,
		// so that the answer does not tell whether it exists.
		h.refuse(w, r, refusedForged)
		return
	case answered != nil:
		h.refuse(w, r, refusedReplayed)
		return
	case !time.Now().Before(p.Expires):
		h.refuse(w, r, refusedExpired)
		return
	}
	d, why := h.decision(f, p)
	if why != nil {
		h.refuse(w, r, *why)
		return
	}
	first, err := h.store.Answer(ctx, f.state, d)
	switch {
	case errors.Is(err, tool.ErrPendingGone):
		h.refuse(w, r, refusedExpired)
		return
	case err != nil:
		h.refuse(w, r, refusedUnavailable)
		return
	case !first:
		h.refuse(w, r, refusedReplayed)
		return
	}
	h.changed()
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, answerJSON{OK: true, Code: f.decision, Message: notices[f.decision]})
		return
	}
	// Post, then redirect: reloading the page that follows sends nothing.
	// Relative to where the browser is (http.Redirect would resolve it
	// against the path with the host's prefix stripped).
	w.Header().Set("Location", "./?answered="+f.decision)
	w.WriteHeader(http.StatusSeeOther)
}

// readForm reads the answer's form, bounded: the body as a whole, then
// each field.
func (h *Handler) readForm(w http.ResponseWriter, r *http.Request) (form, *refusal) {
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/x-www-form-urlencoded" {
		why := refusedMalformed.with("This answer was refused: it must be sent as a form (application/x-www-form-urlencoded).")
		why.status = http.StatusUnsupportedMediaType
		return form{}, &why
	}
	// Percent-encoding triples a byte at most.
	r.Body = http.MaxBytesReader(w, r.Body, int64(3*(h.maxArgs+h.maxReason)+3*keyring.MaxTokenLen+1024))
	if err := r.ParseForm(); err != nil {
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			return form{}, &refusedTooLarge
		}
		return form{}, &refusedMalformed
	}
	one := func(name string) (string, bool) {
		v := r.PostForm[name]
		switch len(v) {
		case 0:
			return "", true
		case 1:
			return v[0], true
		}
		return "", false // two answers in one: neither is used
	}
	var f form
	var ok [4]bool
	var args string
	f.state, ok[0] = one("state")
	f.decision, ok[1] = one("decision")
	f.reason, ok[2] = one("reason")
	args, ok[3] = one("args")
	switch {
	case ok != [4]bool{true, true, true, true}, f.state == "":
		return f, &refusedMalformed
	case len(f.state) > keyring.MaxTokenLen:
		return f, &refusedForged
	case len(f.reason) > h.maxReason:
		why := refusedTooLarge.with(fmt.Sprintf("This answer was refused: a reason may be at most %d bytes, and this one is %d.", h.maxReason, len(f.reason)))
		return f, &why
	case len(args) > h.maxArgs:
		why := refusedTooLarge.with(fmt.Sprintf("This answer was refused: edited arguments may be at most %d bytes, and these are %d.", h.maxArgs, len(args)))
		return f, &why
	case !utf8.ValidString(f.reason) || !utf8.ValidString(args):
		return f, &refusedMalformed
	}
	if _, known := decisions[f.decision]; !known {
		return f, &refusedMalformed
	}
	if f.decision == "edit" {
		f.args = json.RawMessage(args)
	}
	return f, nil
}

// decision is the answer f gives to p, if it is one the page offers for
// it: the same rule ([Handler.offerFor]) decides what the page shows.
func (h *Handler) decision(f form, p *tool.PendingApproval) (tool.Decision, *refusal) {
	d := tool.Decision{Kind: decisions[f.decision]}
	if o := h.offerFor(p); !o.offers(d.Kind) {
		why := refusedNotOffered
		switch {
		case o.TooLarge != "":
			why = why.with("This answer was refused: this call cannot be allowed here. " + o.TooLarge)
		case d.Kind == tool.DecisionAllowAlways:
			why = why.with("This answer was refused: \"allow always\" is not offered for this call. Allow it once, or deny it.")
		case d.Kind == tool.DecisionEdit:
			why = why.with("This answer was refused: the arguments of this call may not be edited here.")
		}
		return d, &why
	}
	switch d.Kind {
	case tool.DecisionDeny:
		d.Reason = f.reason
	case tool.DecisionEdit:
		if err := checkArgs(f.args); err != nil {
			why := refusedMalformed.with("This answer was refused: the edited arguments " + err.Error() + ". Correct them and send again.")
			return d, &why
		}
		d.Args = f.args
	}
	return d, nil
}

// checkArgs says what is wrong with edited arguments that are not one
// JSON object. The registry validates them against the tool's schema when
// the call resumes; this is the check a person can act on at once.
func checkArgs(args json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("are not valid JSON (%v)", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("hold more than one JSON value")
	}
	if _, ok := v.(map[string]any); !ok {
		return errors.New("are not a JSON object")
	}
	return nil
}
