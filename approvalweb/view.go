package approvalweb

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
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
	// inlineBytes bounds the body of one approval in the list (its
	// summary, diffs, locations and arguments): a larger approval is
	// listed without its body, and opens on a page of its own (?id=), where
	// it is shown whole and can be allowed. So a page of the list is
	// bounded, however large the calls that wait.
	inlineBytes = 16 << 10
	// inlineHTMLBytes bounds the HTML of one approval's body in the list:
	// a body within inlineBytes whose HTML is larger (thousands of
	// characters that do not show, each a mark of its own) is folded too,
	// so that what a page of the list weighs does not depend on what a
	// model hides in its calls.
	inlineHTMLBytes = 128 << 10
	// pageSize is how many approvals one page of the list shows, those
	// that expire first first; the rest are on the next pages (?page=).
	pageSize = 20
)

// item is one waiting approval as the page shows it. The HTML fields are
// written by show.go: escaped, with the characters that do not show
// marked; the template escapes the strings.
type item struct {
	ID          string // the element id: a hash of the state
	State       string
	Tool        string
	DisplayName template.HTML
	OtherName   bool // DisplayName is not the tool's name
	Session     template.HTML
	Safety      string // in words
	SafetyClass string // for the style sheet
	Reason      template.HTML
	Scope       template.HTML
	Title       template.HTML
	TitleText   string // for labels
	Summary     template.HTML
	Basic       bool // the preview is the arguments
	Edits       []editView
	EditsLeft   int // edits not shown
	Locations   []template.HTML
	Args        template.HTML // the arguments, indented, whole
	ArgsOpen    bool          // the arguments are shown open
	Expires     time.Time
	// Offer is what the person may answer; Always says what "allow
	// always" will cover, in words.
	Offer  offer
	Always template.HTML
	// AskAlways is set when the call is asked about every time.
	AskAlways bool
	// EditArgs is what the edit box starts with, when Offer.Edit.
	EditArgs string
	// MaxArgs and MaxReason are the bounds the forms declare.
	MaxArgs, MaxReason int
	// Folded is set when the list shows the approval without its body
	// (over inlineBytes): it is read whole, and allowed, on its own page.
	// Size says how large the body is.
	Folded bool
	Size   string
	// ManyHidden is set when the approval is folded for the marks of its
	// characters that do not show, though its body is within inlineBytes.
	ManyHidden bool
}

// ExpiresISO is the expiry as the HTML time element wants it.
func (it item) ExpiresISO() string { return it.Expires.UTC().Format(time.RFC3339) }

// ExpiresText is the expiry in words, in UTC; the page's script rewrites
// it in the reader's time zone.
func (it item) ExpiresText() string { return it.Expires.UTC().Format("15:04:05 UTC, Jan 2") }

// editView is one file change, as lines of a diff.
type editView struct {
	Path      template.HTML
	PathText  string
	Lines     []diffLine
	LinesLeft int
}

type diffLine struct {
	Kind string // "add", "del", "ctx", "hunk"
	Sign string // "- ", "+ ", "  ", or "" for a hunk
	Text template.HTML
}

// idOf is the page's name for the approval of state: short, and safe in
// an element id and an event.
func idOf(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:16])
}

// bodySize is how many bytes the body of p's approval shows.
func bodySize(p *tool.PendingApproval) int {
	r := &p.Request
	n := len(r.Preview.Summary) + len(r.Args)
	for _, e := range r.Preview.Edits[:min(len(r.Preview.Edits), maxEdits)] {
		n += len(e.Old) + len(e.New)
	}
	for _, l := range r.Preview.Locations {
		n += len(l)
	}
	return n
}

// view returns the page's item for p; whole, it shows p's body however
// large (on p's own page), else only up to inlineBytes (in the list).
func (h *Handler) view(p *tool.PendingApproval, whole bool) item {
	r := &p.Request
	class, words := safety(r.Safety)
	title := cmp.Or(r.Preview.Title, r.DisplayName, r.Tool)
	it := item{
		ID: idOf(p.State), State: p.State, Tool: r.Tool, DisplayName: shownHTML(r.DisplayName), OtherName: r.DisplayName != "" && r.DisplayName != r.Tool,
		Session: rawHTML(p.Session), Safety: words, SafetyClass: class, Reason: shownHTML(r.Requirement.Reason), Scope: shownHTML(r.Requirement.Scope),
		Title: shownHTML(title), TitleText: title, Basic: r.Preview.Basic, Expires: p.Expires,
		AskAlways: r.Requirement.Mode == tool.RequireAskAlways,
		MaxArgs:   h.maxArgs, MaxReason: h.maxReason,
		Offer: h.offerFor(p),
	}
	if it.Offer.AllowAlways {
		it.Always = alwaysWords(p)
	}
	n := bodySize(p)
	it.Size = size(n)
	if n > inlineBytes && (!whole || it.Offer.TooLarge != "") {
		it.Folded = true
		return it
	}
	// A call too large for the list is read on its own page: its preview
	// may be cut (the core bounds each of its strings), its arguments are
	// whole and shown open.
	it.ArgsOpen = r.Preview.Basic || n > inlineBytes
	if !r.Preview.Basic {
		it.Summary = shownHTML(r.Preview.Summary) // a basic preview's summary is the arguments, shown below
	}
	edits := r.Preview.Edits
	if len(edits) > maxEdits {
		it.EditsLeft, edits = len(edits)-maxEdits, edits[:maxEdits]
	}
	for _, e := range edits {
		it.Edits = append(it.Edits, diffView(e))
	}
	for _, l := range r.Preview.Locations {
		it.Locations = append(it.Locations, shownHTML(l))
	}
	it.Args = argsHTML(r.Args)
	if it.Offer.Edit {
		it.EditArgs = editJSON(r.Args)
	}
	if !whole && it.bodyHTMLSize() > inlineHTMLBytes {
		it = it.folded()
		it.ManyHidden = true
	}
	return it
}

// bodyHTMLSize is how many bytes of HTML the body of the approval takes.
func (it item) bodyHTMLSize() int {
	n := len(it.Summary) + len(it.Args) + len(it.EditArgs)
	for _, e := range it.Edits {
		n += len(e.Path)
		for _, l := range e.Lines {
			n += len(l.Text)
		}
	}
	for _, l := range it.Locations {
		n += len(l)
	}
	return n
}

// folded is the approval as the list shows it without its body.
func (it item) folded() item {
	it.Folded, it.ArgsOpen = true, false
	it.Summary, it.Edits, it.EditsLeft, it.Locations, it.Args, it.EditArgs = "", nil, 0, nil, "", ""
	return it
}

// alwaysWords says what "allow always" will cover, in words, as the core
// remembers it: the tool and the call's safety class, in this session,
// and for a scoped requirement its scope only.
func alwaysWords(p *tool.PendingApproval) template.HTML {
	r := &p.Request
	class, _ := safety(r.Safety)
	what := template.HTMLEscapeString(fmt.Sprintf("%s's %s calls", r.Tool, class))
	session := rawHTML(p.Session)
	if r.Requirement.Mode == tool.RequireScoped {
		return template.HTML(fmt.Sprintf("From now on in session “%s”, %s within the scope “%s” run without asking. Other calls are still asked about.", session, what, shownHTML(r.Requirement.Scope)))
	}
	return template.HTML(fmt.Sprintf("From now on in session “%s”, %s run without asking. Its calls of another class are still asked about.", session, what))
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
	v := editView{Path: shownHTML(e.Path), PathText: e.Path}
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
		line := diffLine{Kind: "ctx", Sign: "  "}
		switch {
		case strings.HasPrefix(l, "@@"):
			line = diffLine{Kind: "hunk", Text: shownHTML(l)}
		case strings.HasPrefix(l, "- "):
			line.Kind, line.Sign = "del", "- "
		case strings.HasPrefix(l, "+ "):
			line.Kind, line.Sign = "add", "+ "
		}
		if line.Kind != "hunk" {
			line.Text = shownHTML(strings.TrimPrefix(l, line.Sign))
		}
		v.Lines = append(v.Lines, line)
	}
	return v
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

// alwaysText is alwaysWords as plain text, for programs: the session and
// the scope as the approval request shows them.
func alwaysText(p *tool.PendingApproval) string {
	r := &p.Request
	class, _ := safety(r.Safety)
	what := fmt.Sprintf("%s's %s calls", r.Tool, class)
	if r.Requirement.Mode == tool.RequireScoped {
		return fmt.Sprintf("From now on in session “%s”, %s within the scope “%s” run without asking. Other calls are still asked about.", r.Session, what, r.Requirement.Scope)
	}
	return fmt.Sprintf("From now on in session “%s”, %s run without asking. Its calls of another class are still asked about.", r.Session, what)
}
