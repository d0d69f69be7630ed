package promises

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
	"github.com/toolbelt-go/tool/tooladk"
	"github.com/toolbelt-go/tool/tooleino"
	"github.com/toolbelt-go/tool/toolmcp"
)

// approverKind is one choice a host makes of who answers approvals.
type approverKind struct {
	name string
	// edits says the person can edit the arguments through it.
	edits bool
	// viaClient says the MCP client is the approver: its questions go to
	// the client's user.
	viaClient bool
	// viaEino says Eino's interrupt and resume is the approver: its
	// questions go to the person behind the Eino host's UI.
	viaEino bool
	// viaADK says ADK's tool confirmation is the approver: its questions
	// go to the person behind the ADK agent's UI.
	viaADK bool
	// approver builds the approver for w, and whatever stands behind it
	// (the page and the person at its browser).
	approver func(t *testing.T, w *world, s *storeSet) tool.Approver
	// reachable reports whether a call arriving through fe can get an
	// answer from this approver.
	reachable func(fe frontend) bool
}

// hostAnswerer names the host's own deferring approver.
const hostAnswerer = "host"

func approvers() []approverKind {
	always := func(frontend) bool { return true }
	return []approverKind{
		{name: "policy alone",
			approver:  func(*testing.T, *world, *storeSet) tool.Approver { return nil },
			reachable: func(frontend) bool { return false }},
		{name: "terminal", edits: true, reachable: always,
			approver: func(_ *testing.T, w *world, _ *storeSet) tool.Approver {
				return tool.ApproverFunc(func(_ context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
					return w.person.answer(string(req.Args)).decision(), nil
				})
			}},
		{name: "approval page", edits: true, reachable: always, approver: pageApprover},
		{name: "MCP client", viaClient: true,
			approver:  func(*testing.T, *world, *storeSet) tool.Approver { return toolmcp.Approver(nil) },
			reachable: func(fe frontend) bool { return fe.clientCanAsk }},
		{name: "Eino interrupt", edits: true, viaEino: true,
			approver:  func(*testing.T, *world, *storeSet) tool.Approver { return tooleino.Approver() },
			reachable: func(fe frontend) bool { return fe.einoCanAsk }},
		{name: "ADK confirmation", viaADK: true,
			approver:  func(*testing.T, *world, *storeSet) tool.Approver { return tooladk.Approver() },
			reachable: func(fe frontend) bool { return fe.adkCanAsk }},
		// The MCP client for the calls that come from one, the page for
		// the others (toolmcp.ApproverOptions.Fallback). It offers no edit
		// on the MCP paths, so no edit scenario is played on it.
		{name: "MCP client, the page elsewhere", viaClient: true,
			approver: func(t *testing.T, w *world, s *storeSet) tool.Approver {
				return toolmcp.Approver(&toolmcp.ApproverOptions{Fallback: pageApprover(t, w, s)})
			},
			reachable: func(fe frontend) bool { return fe.mechanism != mcpClient || fe.clientCanAsk }},
		{name: "host deferring", edits: true,
			approver: func(*testing.T, *world, *storeSet) tool.Approver {
				return tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
					return tool.Decision{Kind: tool.DecisionDefer, Answerer: hostAnswerer}, nil
				})
			},
			reachable: func(fe frontend) bool { return fe.resumes }},
	}
}

// pageApprover serves the approval page on a loopback port, with a person
// at its browser who answers each approval of w's session through the
// page's HTTP interface, and returns the page's approver.
func pageApprover(t *testing.T, w *world, s *storeSet) tool.Approver {
	page, err := approvalweb.New(&approvalweb.Options{
		Sessions: func(*http.Request) ([]string, error) { return []string{w.session}, nil },
		Store:    s.pending,
		Editable: func(*tool.ApprovalRequest) bool { return true },
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
	srv := httptest.NewServer(mux)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		browse(ctx, srv.URL+"/approvals/", w)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = page.Close()
		srv.Close()
	})
	return page.Approver()
}

// browse is the person at the page: it reads what waits (pending.json, the
// page's own list) and answers each approval once, by the form the page
// posts.
func browse(ctx context.Context, base string, w *world) {
	answered := map[string]bool{}
	for ctx.Err() == nil {
		var waiting []struct {
			State string
			Args  json.RawMessage
		}
		if resp, err := http.Get(base + "pending.json"); err == nil {
			_ = json.NewDecoder(resp.Body).Decode(&waiting)
			resp.Body.Close()
		}
		for _, p := range waiting {
			if answered[p.State] {
				continue
			}
			answered[p.State] = true
			a := w.person.answer(string(p.Args))
			form := url.Values{"state": {p.State}, "decision": {pageDecision(a)}, "reason": {a.reason}}
			if a.kind == tool.DecisionEdit {
				form.Set("args", string(a.decision().Args))
			}
			for range sends(w) {
				if resp, err := http.Post(base+"answer", "application/x-www-form-urlencoded", strings.NewReader(form.Encode())); err == nil {
					resp.Body.Close()
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func pageDecision(a answer) string {
	switch a.kind {
	case tool.DecisionAllowOnce:
		return "allow_once"
	case tool.DecisionEdit:
		return "edit"
	}
	return "deny"
}

// sends is how many times the person's form is posted: twice when the
// scenario sends every answer again (a second click).
func sends(w *world) int {
	if w.resend {
		return 2
	}
	return 1
}
