package approvalweb

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
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
// notice or alert, under status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, d pageData) {
	sessions, cut, err := h.sessionsOf(r)
	switch {
	case err != nil:
		status, d.Alert = refusedForbidden.status, refusedForbidden.message
	default:
		ps, err := h.waiting(r.Context(), sessions)
		if err != nil {
			status, d.Alert = refusedUnavailable.status, refusedUnavailable.message
			break
		}
		for _, p := range ps {
			d.Items = append(d.Items, h.view(p))
		}
		d.Cut, d.Shown = cut, len(sessions)
	}
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "page", d); err != nil {
		http.Error(w, "approvalweb: the page could not be written", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// jsonApproval is one waiting approval in pending.json.
type jsonApproval struct {
	ID          string          `json:"id"`
	State       string          `json:"state"`
	Session     string          `json:"session"`
	Tool        string          `json:"tool"`
	DisplayName string          `json:"display_name"`
	CallID      string          `json:"call_id"`
	Safety      string          `json:"safety"`
	Reason      string          `json:"reason,omitempty"`
	Scope       string          `json:"scope,omitempty"`
	Title       string          `json:"title"`
	Summary     string          `json:"summary,omitempty"`
	Edits       []jsonEdit      `json:"edits,omitempty"`
	Locations   []string        `json:"locations,omitempty"`
	Args        json.RawMessage `json:"args"`
	Expires     time.Time       `json:"expires"`
	AllowAlways string          `json:"allow_always,omitempty"`
	Editable    bool            `json:"editable"`
}

type jsonEdit struct {
	Path string `json:"path"`
	Diff string `json:"diff"`
}

func (h *Handler) serveJSON(w http.ResponseWriter, r *http.Request) {
	sessions, _, err := h.sessionsOf(r)
	if err != nil {
		h.refuse(w, r, refusedForbidden)
		return
	}
	ps, err := h.waiting(r.Context(), sessions)
	if err != nil {
		h.refuse(w, r, refusedUnavailable)
		return
	}
	out := make([]jsonApproval, 0, len(ps))
	for _, p := range ps {
		it, req := h.view(p), &p.Request
		a := jsonApproval{
			ID: it.ID, State: p.State, Session: p.Session, Tool: req.Tool, DisplayName: req.DisplayName, CallID: req.CallID,
			Safety: it.SafetyClass, Reason: it.Reason, Scope: it.Scope, Title: it.Title, Summary: it.Summary,
			Locations: it.Locations, Args: req.Args, Expires: p.Expires, AllowAlways: it.Always, Editable: it.Editable,
		}
		for _, e := range req.Preview.Edits[:min(len(req.Preview.Edits), maxEdits)] {
			a.Edits = append(a.Edits, jsonEdit{Path: e.Path, Diff: e.Diff()})
		}
		out = append(out, a)
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

// itemHTML renders one approval as the page shows it, for a live update.
func (h *Handler) itemHTML(p *tool.PendingApproval) (string, error) {
	var b strings.Builder
	err := tmpl.ExecuteTemplate(&b, "item", h.view(p))
	return b.String(), err
}
