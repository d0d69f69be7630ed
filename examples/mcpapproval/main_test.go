package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool/approvalweb"
)

// bearer sends every request with a bearer token.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// person uses the approval page through its HTTP API, with a token.
type person struct {
	t      *testing.T
	url    string
	client *http.Client
}

func (p person) pending() []approvalweb.PendingJSON {
	p.t.Helper()
	resp, err := p.client.Get(p.url + "/approvals/pending.json")
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []approvalweb.PendingJSON
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		p.t.Fatalf("pending.json: %d, %v", resp.StatusCode, err)
	}
	return out
}

func (p person) answer(state, decision string) (int, string) {
	p.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.url+"/approvals/answer", strings.NewReader(url.Values{"state": {state}, "decision": {decision}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// The recipe end to end, with the official Go SDK client at 2026-07-28
// (no MCP session) and at 2025-11-25 (a session): the client
// authenticates with ada's bearer token; its delete_note call waits on
// the page in ada's session; grace does not see it and cannot answer it;
// ada allows it through the page's HTTP API, and the client gets the
// result. The client is never asked (it has no elicitation handler).
func TestRecipe(t *testing.T) {
	app, err := newApp()
	if err != nil {
		t.Fatal(err)
	}
	defer app.page.Close()
	srv := httptest.NewServer(app.handler)
	defer srv.Close()
	ada := person{t, srv.URL, &http.Client{Transport: bearer{"ada-token"}}}
	grace := person{t, srv.URL, &http.Client{Transport: bearer{"grace-token"}}}

	for i, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: ada.client},
				&mcp.ClientSessionOptions{ProtocolVersion: protocol})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != protocol {
				t.Fatalf("negotiated %s, want %s", got, protocol)
			}
			name := []string{"todo", "shopping"}[i]
			results := make(chan *mcp.CallToolResult, 1)
			go func() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_note", Arguments: map[string]any{"name": name}})
				if err != nil {
					t.Error(err)
				}
				results <- res
			}()

			var waiting []approvalweb.PendingJSON
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if waiting = ada.pending(); len(waiting) > 0 && waiting[0].Tool == "delete_note" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the call never waited on ada's page")
				}
			}
			p := waiting[0]
			if p.Session != "ada" || string(p.Args) != `{"name":"`+name+`"}` || p.Safety != "destructive" {
				t.Fatalf("ada's page shows %+v", p)
			}
			if got := grace.pending(); len(got) != 0 {
				t.Fatalf("grace sees ada's approvals: %+v", got)
			}
			if status, body := grace.answer(p.State, "allow_once"); status != http.StatusForbidden {
				t.Fatalf("grace's answer to ada's call: %d %s", status, body)
			}
			if status, body := ada.answer(p.State, "allow_once"); status != http.StatusOK {
				t.Fatalf("ada's answer: %d %s", status, body)
			}
			select {
			case res := <-results:
				if res == nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "deleted "+name {
					t.Fatalf("the allowed call: %+v", res)
				}
			case <-ctx.Done():
				t.Fatal("the call did not finish after ada allowed it")
			}
		})
	}
}

// Without a token, neither the MCP endpoint nor the page answers.
func TestNoTokenNoEntry(t *testing.T) {
	app, err := newApp()
	if err != nil {
		t.Fatal(err)
	}
	defer app.page.Close()
	srv := httptest.NewServer(app.handler)
	defer srv.Close()
	for _, path := range []string{"/mcp", "/approvals/", "/approvals/pending.json"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: %d, want 401", path, resp.StatusCode)
		}
	}
}
