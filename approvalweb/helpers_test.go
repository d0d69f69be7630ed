package approvalweb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// fixture is an agent whose approvals are answered on a page served by a
// real HTTP server, and the person's side of it.
type fixture struct {
	t     testing.TB
	page  *approvalweb.Handler
	store tool.PendingApprovalStore
	reg   *tool.Registry[struct{}]
	srv   *httptest.Server
	url   string // the page, under its mount path
	notes *notes
	// returnPending makes call take each deferred call back and resume it
	// itself, as a host that ends the model's turn does; without it the
	// call waits on the page inside the pipeline.
	returnPending bool
}

// notes is what the tools wrote: the effect a test checks.
type notes struct {
	mu sync.Mutex
	m  map[string]string
}

func (n *notes) get(path string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.m[path]
}

type noteArgs struct {
	Path string `json:"path" jsonschema:"maxLength=64"`
	Text string `json:"text"`
}

// tools: write_note (mutating, with a diff), remove_note (destructive,
// asked about every time), fetch_url (network, no preview: the arguments
// are shown).
func (n *notes) tools() []tool.Definer {
	write := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "write_note", Title: "Write a note", Description: "Writes a note.", Safety: tool.SafetyMutating},
		func(_ context.Context, in noteArgs) (string, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.m[in.Path] = in.Text
			return "wrote " + in.Path, nil
		}), tool.ApprovalHooks[noteArgs]{
		Describe: func(_ context.Context, in noteArgs) (tool.Preview, error) {
			return tool.Preview{Title: "Write " + in.Path, Summary: "Replace the note's text.",
				Edits: []tool.Edit{{Path: in.Path, Old: n.get(in.Path), New: in.Text}}, Locations: []string{in.Path}}, nil
		},
	})
	remove := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "remove_note", Description: "Removes a note.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in noteArgs) (string, error) { return "removed " + in.Path, nil }),
		tool.ApprovalHooks[noteArgs]{Require: func(noteArgs) tool.Requirement {
			return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "removing cannot be undone"}
		}})
	fetch := tool.New(tool.Definition{Name: "fetch_url", Description: "Fetches a URL.", Safety: tool.SafetyNetwork},
		func(_ context.Context, in struct {
			URL string `json:"url"`
		}) (string, error) {
			return "fetched " + in.URL, nil
		})
	shell := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "run_shell", Description: "Runs a command.", Safety: tool.SafetyMutating},
		func(_ context.Context, in shellArgs) (string, error) { return "ran " + in.Command, nil }),
		tool.ApprovalHooks[shellArgs]{Describe: func(_ context.Context, in shellArgs) (tool.Preview, error) {
			return tool.Preview{Title: "Run a command", Summary: "$ " + in.Command}, nil // as codetools' run_shell shows it
		}})
	return []tool.Definer{write, remove, fetch, shell}
}

type shellArgs struct {
	Command string `json:"command"`
}

// person is who the page's Sessions function says the request comes
// from: a header, in these tests, as a host would read its login cookie.
const personHeader = "X-Test-Person"

// people maps each person to the sessions they may see.
var people = map[string][]string{
	"ada":   {"conv-ada", "conv-shared"},
	"grace": {"conv-grace", "conv-shared"},
}

func sessionsOf(r *http.Request) ([]string, error) {
	s, ok := people[r.Header.Get(personHeader)]
	if !ok {
		return nil, fmt.Errorf("no such person")
	}
	return s, nil
}

func newFixture(t testing.TB, opts *approvalweb.Options) *fixture {
	t.Helper()
	return newFixtureOf(t, opts, nil)
}

// newFixtureOf is newFixture with a registry made with regOpts.
func newFixtureOf(t testing.TB, opts *approvalweb.Options, regOpts *tool.RegistryOptions) *fixture {
	t.Helper()
	f := &fixture{t: t, notes: &notes{m: map[string]string{"todo.md": "- milk\n- eggs\n"}}}
	o := approvalweb.Options{Sessions: sessionsOf, Editable: func(r *tool.ApprovalRequest) bool { return r.Tool == "write_note" }}
	if opts != nil {
		o = *opts
		if o.Sessions == nil && o.MayAnswer == nil {
			o.Sessions = sessionsOf
		}
	}
	if o.Store == nil {
		o.Store = tool.NewMemoryPendingApprovalStore(0)
	}
	f.store = o.Store
	page, err := approvalweb.New(&o)
	require.NoError(t, err)
	f.page = page
	t.Cleanup(func() { _ = page.Close() })
	f.reg = tool.NewRegistry[struct{}](regOpts)
	f.reg.MustAdd(f.notes.tools()...)
	f.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: page.Approver()}))
	mux := http.NewServeMux()
	mux.Handle("/approvals/", http.StripPrefix("/approvals", page))
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	f.url = f.srv.URL + "/approvals/"
	return f
}

// call makes one call as the agent loop would: it waits for the answer on
// the page when the call is deferred, and resumes the call with it. The
// result comes on the channel.
func (f *fixture) call(ctx context.Context, session, name, args string) <-chan *tool.Result {
	out := make(chan *tool.Result, 1)
	go func() {
		req := tool.Request{ID: "call-" + name, Name: name, Args: json.RawMessage(args), Session: session, ReturnPending: f.returnPending}
		res := f.reg.Call(ctx, struct{}{}, req)
		if res.Status == tool.StatusAwaitingApproval {
			answer, err := f.page.Await(ctx, res.Pending)
			if err != nil {
				out <- &tool.Result{Status: tool.StatusCanceled, Err: err}
				return
			}
			req.Approval = answer
			res = f.reg.Call(ctx, struct{}{}, req)
		}
		out <- res
	}()
	return out
}

// deferred makes a call and returns its pending approval, offered on the
// page, without waiting for the answer.
func (f *fixture) deferred(session, name, args string) *tool.PendingApproval {
	f.t.Helper()
	res := f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "call-" + name, Name: name, Args: json.RawMessage(args), Session: session, ReturnPending: true})
	require.Equal(f.t, tool.StatusAwaitingApproval, res.Status, res.Text())
	require.NoError(f.t, f.page.Offer(context.Background(), res.Pending))
	return res.Pending
}

// waiting returns the approval of session the page lists, once it does.
func (f *fixture) waiting(session string) *tool.PendingApproval {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ps, err := f.store.List(context.Background(), session)
		require.NoError(f.t, err)
		if len(ps) > 0 {
			return ps[0]
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("no approval of %s was offered", session)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// answerOf returns the answer the store recorded for state, nil if none.
func (f *fixture) answerOf(state string) *tool.Decision {
	f.t.Helper()
	_, d, err := f.store.Get(context.Background(), state)
	require.NoError(f.t, err)
	return d
}

// answerResponse is the page's JSON answer to an answer.
type answerResponse struct {
	OK      bool   `json:"ok"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// post sends an answer as person, as the page's script does (JSON back),
// with extra headers.
func (f *fixture) post(person string, form url.Values, header map[string]string) (int, answerResponse) {
	f.t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.url+"answer", strings.NewReader(form.Encode()))
	require.NoError(f.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set(personHeader, person)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := f.srv.Client().Do(req)
	require.NoError(f.t, err)
	defer resp.Body.Close()
	var a answerResponse
	body, _ := io.ReadAll(resp.Body)
	require.NoError(f.t, json.Unmarshal(body, &a), "%s", body)
	return resp.StatusCode, a
}

// get fetches path under the page as person, and returns the status and
// body.
func (f *fixture) get(person, path string) (*http.Response, string) {
	f.t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.url+path, nil)
	require.NoError(f.t, err)
	req.Header.Set(personHeader, person)
	resp, err := f.srv.Client().Do(req)
	require.NoError(f.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(f.t, err)
	return resp, string(body)
}

// result waits for an agent call's result.
func result(t *testing.T, ch <-chan *tool.Result) *tool.Result {
	t.Helper()
	select {
	case res := <-ch:
		return res
	case <-time.After(10 * time.Second):
		t.Fatal("the agent's call did not finish")
		return nil
	}
}

var (
	idRE       = regexp.MustCompile(`<li id="a-([0-9a-f]{32})"`)
	decisionRE = regexp.MustCompile(`name="decision" value="([a-z_]+)"`)
)

// onlyID returns the id of the one approval on page.
func onlyID(t *testing.T, page string) string {
	t.Helper()
	m := idRE.FindAllStringSubmatch(page, -1)
	require.Len(t, m, 1, "one approval on the page")
	return m[0][1]
}

// offered returns the decisions the page shows buttons for.
func offered(page string) []string {
	var out []string
	for _, m := range decisionRE.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// has fails the test unless page holds s, without printing the page.
func has(t *testing.T, page, s string, why ...any) {
	t.Helper()
	if !strings.Contains(page, s) {
		t.Errorf("the page (%d bytes) has no %q %v", len(page), s, why)
	}
}
