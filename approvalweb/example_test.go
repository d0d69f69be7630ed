package approvalweb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// An agent whose writes wait for a person's answer on the page. The
// person here is a program using the page's HTTP API, as its script does.
func Example() {
	page, err := approvalweb.New(&approvalweb.Options{
		// Who may see and answer which sessions: yours to say (a login
		// cookie, a header set by your proxy). Everyone sees conv-1 here.
		Sessions: func(*http.Request) ([]string, error) { return []string{"conv-1"}, nil },
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	type noteArgs struct {
		Path string `json:"path"`
		Text string `json:"text"`
	}
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "write_note", Description: "Writes a note.", Safety: tool.SafetyMutating},
		func(_ context.Context, in noteArgs) (string, error) { return "wrote " + in.Path, nil }))
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: page.Approver()}))

	// The agent loop: the call waits on the page until a person answers.
	results := make(chan *tool.Result, 1)
	go func() {
		req := tool.Request{ID: "call-1", Name: "write_note", Args: []byte(`{"path":"notes.md","text":"hello"}`), Session: "conv-1"}
		results <- reg.Call(context.Background(), struct{}{}, req)
	}()

	// The person reads what waits, and allows it.
	var waiting []struct{ State, Title, Safety string }
	for len(waiting) == 0 {
		resp, err := http.Get(srv.URL + "/approvals/pending.json")
		if err != nil {
			panic(err)
		}
		_ = json.NewDecoder(resp.Body).Decode(&waiting)
		resp.Body.Close()
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("person sees:", waiting[0].Title, "("+waiting[0].Safety+")")
	form := url.Values{"state": {waiting[0].State}, "decision": {"allow_once"}}
	resp, err := http.Post(srv.URL+"/approvals/answer", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()

	res := <-results
	fmt.Println("agent:", res.Status, res.Text())
	// Output:
	// person sees: write_note (mutating)
	// agent: ok wrote notes.md
}

// The host's own code lists what waits in a session, here a terminal
// beside the page, and answers it: the approval leaves every page at once,
// and the waiting call runs.
func ExampleHandler_Pending() {
	page, err := approvalweb.New(&approvalweb.Options{
		MayAnswer: func(*http.Request, string) bool { return false }, // no one, on the page
	})
	if err != nil {
		panic(err)
	}
	defer page.Close()
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "delete_note", Description: "Deletes a note.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in struct {
			Path string `json:"path"`
		}) (string, error) {
			return "deleted " + in.Path, nil
		}))
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: page.Approver()}))

	results := make(chan *tool.Result, 1)
	go func() {
		req := tool.Request{ID: "call-1", Name: "delete_note", Args: []byte(`{"path":"old.md"}`), Session: "conv-1"}
		results <- reg.Call(context.Background(), struct{}{}, req)
	}()

	ctx := context.Background()
	var waiting []*tool.PendingApproval
	for len(waiting) == 0 {
		if waiting, err = page.Pending(ctx, "conv-1"); err != nil {
			panic(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p := waiting[0]
	fmt.Printf("%s wants to run %s %s (%s)\n", p.Session, p.Request.Tool, p.Request.Args, p.Request.Safety)
	if err := page.Answer(ctx, p.State, tool.Decision{Kind: tool.DecisionAllowOnce}); err != nil {
		panic(err)
	}
	res := <-results
	fmt.Println("agent:", res.Status, res.Text())
	// Output:
	// conv-1 wants to run delete_note {"path":"old.md"} (destructive)
	// agent: ok deleted old.md
}
