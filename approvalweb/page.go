package approvalweb

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolbelt-go/tool"
)

//go:embed assets
var assets embed.FS

var tmpl = template.Must(template.ParseFS(assets, "assets/page.html"))

// assetHandler serves the style sheet and the script. The page's
// Content-Security-Policy allows no other script or style.
func assetHandler() http.Handler {
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	return http.StripPrefix("/assets/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, ".js") && !strings.HasSuffix(r.URL.Path, ".css") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
}

// pageData is what the page template shows.
type pageData struct {
	Items  []item
	Notice string // what happened, for the status line
	Alert  string // a refused answer, or why nothing can be shown
	Cut    bool   // more sessions than are shown
	Shown  int
	// Total approvals wait for the person; the list shows those From to
	// To (counted from 1) on page Page; Prev is the page before it (0 when
	// there is none), Next the one after, which HasNext says there is.
	Total, From, To  int
	Page, Prev, Next int
	HasNext          bool
	Size             int // approvals per page of the list
	// Single is set on the page of one approval (?id=); Gone when it no
	// longer waits. ID is its id.
	Single, Gone bool
	ID           string
}

// notices are what the page says after an answer sent without the
// script (the answer redirects to ?answered=decision).
var notices = map[string]string{
	"allow_once":   "Your answer was sent: allowed once.",
	"allow_always": "Your answer was sent: allowed always.",
	"deny":         "Your answer was sent: denied.",
	"edit":         "Your answer was sent: run with your arguments.",
}

func (h *Handler) servePage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, pageData{Notice: notices[r.URL.Query().Get("answered")]})
}

// render writes the page of the approvals r's person may see, with d's
// notice or alert, under status: a page of the list (?page=, pageSize
// approvals, each up to inlineBytes of its body), or one approval whole
// (?id=).
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, d pageData) {
	sessions, cut, why := h.sessionsOf(r)
	switch {
	case why != nil:
		status, d.Alert = why.status, why.message
	default:
		ps, err := h.waiting(r.Context(), sessions)
		if err != nil {
			status, d.Alert = refusedUnavailable.status, refusedUnavailable.message
			break
		}
		d.Cut, d.Shown, d.Total = cut, len(sessions), len(ps)
		q := r.URL.Query()
		if id := q.Get("id"); id != "" && r.Method == http.MethodGet {
			d.Single, d.Gone, d.ID = true, true, id
			for _, p := range ps {
				if idOf(p.State) == id {
					d.Items, d.Gone = []item{h.view(p, true)}, false
					break
				}
			}
			break
		}
		d.Page, d.From, d.To = window(len(ps), q.Get("page"))
		for _, p := range ps[d.From:d.To] {
			d.Items = append(d.Items, h.view(p, false))
		}
		d.From++
		if d.Page > 1 {
			d.Prev = d.Page - 1
		}
		d.Next, d.HasNext = d.Page+1, d.To < len(ps)
	}
	d.Size = pageSize
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "page", d); err != nil {
		http.Error(w, "approvalweb: the page could not be written", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// window returns the page of a list of n approvals that ?page= asks for
// (the last one past the end, the first one when it is not a number), and
// the part of the list it shows, ps[from:to].
func window(n int, page string) (p, from, to int) {
	p, err := strconv.Atoi(page)
	last := max(1, (n+pageSize-1)/pageSize)
	switch {
	case err != nil || p < 1:
		p = 1
	case p > last:
		p = last
	}
	from = (p - 1) * pageSize
	return p, from, min(from+pageSize, n)
}

// PendingJSON is one waiting approval as GET /pending.json lists it, and
// as [Handler.Pending] returns it: what the page shows of it, and what a
// program needs to answer it (POST /answer with its State).
type PendingJSON struct {
	// ID names the approval on the page (the element a-ID, ?id=ID).
	ID string `json:"id"`
	// State is what an answer names: the form field state of POST /answer,
	// or [Handler.Answer]'s state.
	State string `json:"state"`
	// Session is the session the call belongs to, as it was given (not
	// escaped; compare it with your own session names).
	Session string `json:"session"`
	// Tool is the tool's name; DisplayName its title, or its name.
	Tool        string `json:"tool"`
	DisplayName string `json:"display_name"`
	CallID      string `json:"call_id"`
	// Safety is the call's class: read-only, mutating, destructive or
	// network. Reason says why the call is asked about; Scope, for a
	// scoped requirement, what "allow always" covers.
	Safety string `json:"safety"`
	Reason string `json:"reason,omitempty"`
	Scope  string `json:"scope,omitempty"`
	// Title, Summary, Edits and Locations are the call's preview.
	Title     string     `json:"title"`
	Summary   string     `json:"summary,omitempty"`
	Edits     []EditJSON `json:"edits,omitempty"`
	Locations []string   `json:"locations,omitempty"`
	// Args is the call's arguments, as canonical JSON: exactly what runs
	// when it is allowed.
	Args json.RawMessage `json:"args"`
	// Expires is when the approval stops waiting (it is then denied).
	Expires time.Time `json:"expires"`
	// Offers lists the answers the page accepts for this call, each a
	// decision of POST /answer: allow_once, allow_always, deny, edit.
	Offers []string `json:"offers"`
	// AllowAlways says in words what "allow always" will cover; empty
	// when it is not offered. Editable reports whether edit is offered.
	AllowAlways string `json:"allow_always,omitempty"`
	Editable    bool   `json:"editable"`
}

// EditJSON is one file change of a [PendingJSON]: the file and the diff
// ("- " removed, "+ " added, two spaces for context, "@@ line N" before
// each hunk).
type EditJSON struct {
	Path string `json:"path"`
	Diff string `json:"diff"`
}

// pendingJSON is what /pending.json and Pending say of p. Its strings are
// those of the approval request: control and invisible characters
// written as escapes, and a run of backslashes before text that reads as
// an escape doubled, so that they read back exactly; Session and Args are
// as given.
func (h *Handler) pendingJSON(p *tool.PendingApproval) PendingJSON {
	r := &p.Request
	class, _ := safety(r.Safety)
	o := h.offerFor(p)
	a := PendingJSON{
		ID: idOf(p.State), State: p.State, Session: p.Session, Tool: r.Tool, DisplayName: r.DisplayName, CallID: r.CallID,
		Safety: class, Reason: r.Requirement.Reason, Scope: r.Requirement.Scope,
		Title: cmp.Or(r.Preview.Title, r.DisplayName, r.Tool), Summary: r.Preview.Summary, Locations: r.Preview.Locations,
		Args: r.Args, Expires: p.Expires, Editable: o.Edit, Offers: []string{},
	}
	for name, k := range decisionOrder {
		if o.offers(k) {
			a.Offers = append(a.Offers, decisionNames[name])
		}
	}
	if o.AllowAlways {
		a.AllowAlways = alwaysText(p)
	}
	for _, e := range r.Preview.Edits[:min(len(r.Preview.Edits), maxEdits)] {
		a.Edits = append(a.Edits, EditJSON{Path: e.Path, Diff: e.Diff()})
	}
	return a
}

// decisionOrder and decisionNames list the decisions in the order
// pending.json names them.
var (
	decisionOrder = []tool.DecisionKind{tool.DecisionAllowOnce, tool.DecisionAllowAlways, tool.DecisionDeny, tool.DecisionEdit}
	decisionNames = []string{"allow_once", "allow_always", "deny", "edit"}
)

func (h *Handler) serveJSON(w http.ResponseWriter, r *http.Request) {
	sessions, _, why := h.sessionsOf(r)
	if why != nil {
		h.refuse(w, r, *why)
		return
	}
	ps, err := h.waiting(r.Context(), sessions)
	if err != nil {
		h.refuse(w, r, refusedUnavailable)
		return
	}
	out := make([]PendingJSON, 0, len(ps))
	for _, p := range ps {
		out = append(out, h.pendingJSON(p))
	}
	writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "approvalweb: the answer could not be written", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// wantsJSON reports whether the client asked for JSON rather than a page:
// the page's script, or a program.
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// itemHTML renders one approval as the list shows it, for a live update;
// whole on the page of one approval.
func (h *Handler) itemHTML(p *tool.PendingApproval, whole bool) (string, error) {
	var b strings.Builder
	err := tmpl.ExecuteTemplate(&b, "item", h.view(p, whole))
	return b.String(), err
}
