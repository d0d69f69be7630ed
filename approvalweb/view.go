package approvalweb

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolbelt-go/tool"
)

// Bounds of what one approval shows. The core already bounds each string
// of a preview; these bound how many of them a page holds.
const (
	maxEdits     = 20
	maxDiffLines = 2000
)

// item is one waiting approval as the page shows it. Every string comes
// from the approval step, which made control, bidirectional and
// zero-width characters visible; the template escapes them for HTML.
type item struct {
	ID          string // the element id: a hash of the state
	State       string
	Tool        string
	DisplayName string
	Session     string
	CallID      string
	Safety      string // in words
	SafetyClass string // for the style sheet
	Reason      string
	Scope       string
	Title       string
	Summary     string
	Basic       bool // the preview is the arguments
	Edits       []editView
	EditsLeft   int // edits not shown
	Locations   []string
	Args        string // the arguments, indented when they can be
	Expires     time.Time
	// Always says what "allow always" will cover, in words; empty when it
	// is not offered.
	Always string
	// AskAlways is set when the call is asked about every time.
	AskAlways bool
	// Editable is set when the person may edit the arguments; EditArgs is
	// what the editor starts with.
	Editable bool
	EditArgs string
	// MaxArgs and MaxReason are the bounds the forms declare.
	MaxArgs, MaxReason int
}

// ExpiresISO is the expiry as the HTML time element wants it.
func (it item) ExpiresISO() string { return it.Expires.UTC().Format(time.RFC3339) }

// ExpiresText is the expiry in words, in UTC; the page's script rewrites
// it in the reader's time zone.
func (it item) ExpiresText() string { return it.Expires.UTC().Format("15:04:05 UTC, Jan 2") }

// editView is one file change, as lines of a diff.
type editView struct {
	Path      string
	Lines     []diffLine
	LinesLeft int
}

type diffLine struct {
	Kind string // "add", "del", "ctx", "hunk"
	Text string
}

// idOf is the page's name for the approval of state: short, and safe in
// an element id and an event.
func idOf(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:16])
}

// view returns the page's item for p.
func (h *Handler) view(p *tool.PendingApproval) item {
	r := &p.Request
	class, words := safety(r.Safety)
	it := item{
		ID: idOf(p.State), State: p.State, Tool: r.Tool, DisplayName: r.DisplayName, Session: r.Session, CallID: r.CallID,
		Safety: words, SafetyClass: class, Reason: r.Requirement.Reason, Scope: r.Requirement.Scope,
		Title: cmp.Or(r.Preview.Title, r.DisplayName, r.Tool), Summary: r.Preview.Summary, Basic: r.Preview.Basic,
		Locations: r.Preview.Locations, Args: indent(r.ArgsText), Expires: p.Expires,
		AskAlways: r.Requirement.Mode == tool.RequireAskAlways,
		MaxArgs:   h.maxArgs, MaxReason: h.maxReason,
	}
	if it.Basic && it.Summary == r.ArgsText {
		it.Summary = "" // the arguments below are the preview
	}
	if alwaysOffered(r) {
		it.Always = alwaysWords(r)
	}
	edits := r.Preview.Edits
	if len(edits) > maxEdits {
		it.EditsLeft, edits = len(edits)-maxEdits, edits[:maxEdits]
	}
	for _, e := range edits {
		it.Edits = append(it.Edits, diffView(e))
	}
	if len(r.ArgsText) <= h.maxArgs && json.Valid([]byte(r.ArgsText)) && h.editable(r) {
		it.Editable, it.EditArgs = true, it.Args
	}
	return it
}

// alwaysOffered reports whether "allow always" can hold for the call: the
// core remembers nothing for a call without a session, nor for one asked
// about every time.
func alwaysOffered(r *tool.ApprovalRequest) bool {
	return r.Session != "" && r.Requirement.Mode != tool.RequireAskAlways
}

// alwaysWords says what "allow always" will cover, as the core remembers
// it: the tool and the call's safety class, in this session, and for a
// scoped requirement its scope only.
func alwaysWords(r *tool.ApprovalRequest) string {
	class, _ := safety(r.Safety)
	what := fmt.Sprintf("%s's %s calls", r.Tool, class)
	if r.Requirement.Mode == tool.RequireScoped {
		return fmt.Sprintf("From now on in session “%s”, %s within the scope “%s” run without asking. Other calls are still asked about.", r.Session, what, r.Requirement.Scope)
	}
	return fmt.Sprintf("From now on in session “%s”, %s run without asking. Its calls of another class are still asked about.", r.Session, what)
}

// safety names a call's class for the style sheet and says it in words.
func safety(s tool.Safety) (class, words string) {
	switch s {
	case tool.SafetyReadOnly:
		return "read-only", "read-only: it only reads"
	case tool.SafetyDestructive:
		return "destructive", "destructive: it may lose data"
	case tool.SafetyNetwork:
		return "network", "network: it reaches other machines"
	}
	return "mutating", "mutating: it changes things" // unspecified counts as mutating, as in the core
}

// diffView splits an edit's diff into lines the page colours, at most
// maxDiffLines of them.
func diffView(e tool.Edit) editView {
	v := editView{Path: e.Path}
	d := strings.TrimSuffix(e.Diff(), "\n")
	if d == "" {
		v.Lines = []diffLine{{Kind: "hunk", Text: "(no change)"}}
		return v
	}
	for l := range strings.SplitSeq(d, "\n") {
		if len(v.Lines) == maxDiffLines {
			v.LinesLeft++
			continue
		}
		kind := "ctx"
		switch {
		case strings.HasPrefix(l, "@@"):
			kind = "hunk"
		case strings.HasPrefix(l, "- "):
			kind = "del"
		case strings.HasPrefix(l, "+ "):
			kind = "add"
		}
		v.Lines = append(v.Lines, diffLine{Kind: kind, Text: l})
	}
	return v
}

// indent returns JSON text indented for reading, or s as it is when it is
// not whole JSON (the core cuts very long arguments).
func indent(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return b.String()
}

// waiting returns the approvals of sessions that wait for an answer: kept,
// unanswered and unexpired, each once, those that expire first first.
func (h *Handler) waiting(ctx context.Context, sessions []string) ([]*tool.PendingApproval, error) {
	var all []*tool.PendingApproval
	for _, s := range sessions {
		ps, err := h.list(ctx, s)
		if err != nil {
			return nil, err
		}
		all = append(all, ps...)
	}
	return sortWaiting(all, time.Now()), nil
}

// list returns the approvals the store lists for session that belong to
// it, bounded by the store's own bound per session.
func (h *Handler) list(ctx context.Context, session string) ([]*tool.PendingApproval, error) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	ps, err := h.store.List(ctx, session)
	if err != nil {
		return nil, err
	}
	ps = slices.DeleteFunc(ps, func(p *tool.PendingApproval) bool { return p == nil || p.Session != session })
	return ps[:min(len(ps), 2*tool.MaxPendingPerSession)], nil
}

// sortWaiting drops the expired and repeated approvals of ps and sorts
// the rest, those that expire first first.
func sortWaiting(ps []*tool.PendingApproval, now time.Time) []*tool.PendingApproval {
	ps = slices.DeleteFunc(ps, func(p *tool.PendingApproval) bool { return !now.Before(p.Expires) })
	slices.SortFunc(ps, func(a, b *tool.PendingApproval) int {
		return cmp.Or(a.Expires.Compare(b.Expires), strings.Compare(a.State, b.State))
	})
	return slices.CompactFunc(ps, func(a, b *tool.PendingApproval) bool { return a.State == b.State })
}
