package toolmcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// pageServed is a registry whose approvals the host gave to the approval
// page, served over MCP to a client that would answer approvals itself if
// it were asked (it answers "allow_once" to everything).
type pageServed struct {
	reg   *tool.Registry[state]
	page  *approvalweb.Handler
	store tool.PendingApprovalStore
	runs  *atomic.Int32
	el    *elicitor
}

func newPageServed(t *testing.T) *pageServed {
	t.Helper()
	p := &pageServed{store: tool.NewMemoryPendingApprovalStore(0), runs: new(atomic.Int32)}
	page, err := approvalweb.New(&approvalweb.Options{
		Sessions: func(*http.Request) ([]string, error) { return []string{"user-1"}, nil },
		Store:    p.store,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = page.Close() })
	p.page = page
	p.reg = tool.NewRegistry[state](nil)
	p.reg.MustAdd(tool.New(tool.Definition{Name: "write_note", Description: "Write a note.", Safety: tool.SafetyMutating},
		func(_ context.Context, in noteArgs) (string, error) {
			p.runs.Add(1)
			return "wrote " + in.Text, nil
		}))
	p.reg.Use(tool.Approval(&tool.ApprovalOptions[state]{Approver: page.Approver()}))
	p.el = &elicitor{answers: []*sdk.ElicitResult{accept("allow_once", ""), accept("allow_once", ""), accept("allow_once", "")}}
	return p
}

// answerOnPage waits for the call's approval on the page, and answers it.
func (p *pageServed) answerOnPage(t *testing.T, d tool.Decision) *tool.PendingApproval {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		ps, err := p.store.List(context.Background(), "user-1")
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) > 0 {
			if err := p.page.Answer(context.Background(), ps[0].State, d); err != nil {
				t.Fatal(err)
			}
			return ps[0]
		}
	}
	t.Fatal("the call was never offered on the page")
	return nil
}

// The host chose the approval page: an MCP client is never asked, on any
// transport at any protocol version; the call waits on the page, and the
// page's answer decides.
func TestApprovalPageServedOverMCP(t *testing.T) {
	user := &Options[state]{Session: func(*sdk.CallToolRequest) string { return "user-1" }}
	transports := []struct {
		name    string
		connect func(t *testing.T, p *pageServed, protocol string) *sdk.ClientSession
	}{
		{"stdio", func(t *testing.T, p *pageServed, protocol string) *sdk.ClientSession {
			return connect(t, serve(t, p.reg, user), &sdk.ClientOptions{ElicitationHandler: p.el.handle}, protocol)
		}},
		{"http", func(t *testing.T, p *pageServed, protocol string) *sdk.ClientSession {
			url, _ := serveHTTP(t, p.reg, user, nil)
			return connectHTTP(t, url, &sdk.ClientOptions{ElicitationHandler: p.el.handle}, protocol)
		}},
		{"http stateless", func(t *testing.T, p *pageServed, protocol string) *sdk.ClientSession {
			url, _ := serveHTTP(t, p.reg, user, &HTTPOptions{Stateless: true})
			return connectHTTP(t, url, &sdk.ClientOptions{ElicitationHandler: p.el.handle}, protocol)
		}},
	}
	for _, tr := range transports {
		for _, protocol := range []string{legacyProtocol, mrtrProtocol} {
			for _, answer := range []tool.Decision{{Kind: tool.DecisionAllowOnce}, {Kind: tool.DecisionDeny, Reason: "not today"}} {
				t.Run(fmt.Sprintf("%s/%s/%s", tr.name, protocol, answer.Kind), func(t *testing.T) {
					p := newPageServed(t)
					cs := tr.connect(t, p, protocol)
					results := make(chan *sdk.CallToolResult, 1)
					go func() {
						res, err := callErr(cs, "write_note", `{"text":"hi"}`)
						if err != nil {
							res = &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}
						}
						results <- res
					}()
					p.answerOnPage(t, answer)
					res := <-results
					if p.el.count() != 0 {
						t.Errorf("the MCP client was asked %d times; the host chose the page", p.el.count())
					}
					switch answer.Kind {
					case tool.DecisionAllowOnce:
						if res.IsError || text(res) != "wrote hi" || p.runs.Load() != 1 {
							t.Errorf("allowed on the page: isError=%v runs=%d %q", res.IsError, p.runs.Load(), text(res))
						}
					default:
						if !res.IsError || !strings.Contains(text(res), "not today") || p.runs.Load() != 0 {
							t.Errorf("denied on the page: isError=%v runs=%d %q", res.IsError, p.runs.Load(), text(res))
						}
					}
				})
			}
		}
	}
}

// A state deferred to the page, replayed by an MCP client as the answer
// to an input request (the client got it some other way), runs nothing:
// the client is not who the call was deferred to.
func TestApprovalPageStateRefusedFromMCP(t *testing.T) {
	p := newPageServed(t)
	res := p.reg.Call(context.Background(), state{}, tool.Request{Name: "write_note", Args: []byte(`{"text":"hi"}`), Session: "user-1", ReturnPending: true})
	if res.Status != tool.StatusAwaitingApproval || res.Pending.Answerer != approvalweb.Answerer {
		t.Fatalf("status %s, answerer %q", res.Status, res.Pending.Answerer)
	}
	user := &Options[state]{Session: func(*sdk.CallToolRequest) string { return "user-1" }}
	cs := manualClient(t, serve(t, p.reg, user))
	_, err := mrtrCall(cs, `{"text":"hi"}`, accept("allow_once", ""), res.Pending.State)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "someone other than the one asked") {
		t.Fatalf("err = %v, want the state refused as answered by someone else", err)
	}
	if p.runs.Load() != 0 {
		t.Fatal("the tool ran on the MCP client's answer")
	}
}

// A host approver that defers to someone else and cannot wait for the
// answer: the MCP client is not asked in its place, and the model is told
// the truth.
func TestApprovalDeferredElsewhereNotRelayed(t *testing.T) {
	var runs atomic.Int32
	reg := tool.NewRegistry[state](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "write_note", Description: "Write a note.", Safety: tool.SafetyMutating},
		func(_ context.Context, in noteArgs) (string, error) { runs.Add(1); return "wrote", nil }))
	reg.Use(tool.Approval(&tool.ApprovalOptions[state]{Approver: tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
		return tool.Decision{Kind: tool.DecisionDefer, Answerer: "slack"}, nil
	})}))
	for _, protocol := range []string{legacyProtocol, mrtrProtocol} {
		t.Run(protocol, func(t *testing.T) {
			el := &elicitor{answers: []*sdk.ElicitResult{accept("allow_once", "")}}
			cs := connect(t, serve(t, reg, nil), &sdk.ClientOptions{ElicitationHandler: el.handle}, protocol)
			res := call(t, cs, "write_note", `{"text":"hi"}`)
			if !res.IsError || res.NeedsInput() || el.count() != 0 || runs.Load() != 0 || !strings.Contains(text(res), "asked for outside this conversation") {
				t.Errorf("isError=%v needsInput=%v asked=%d runs=%d %q", res.IsError, res.NeedsInput(), el.count(), runs.Load(), text(res))
			}
		})
	}
}

// The host chose the MCP client, and the approval page for the calls that
// do not come from one (ApproverOptions.Fallback): a call made by the
// host's own loop waits on the page and the page's answer decides, while
// a call from an MCP client at 2026-07-28 is still asked through the
// client's retried call. The page's deferral was returned unwaited: the
// call ended "needs the user's approval, which has been asked for", and
// the page never showed it.
func TestApproverFallbackWaits(t *testing.T) {
	p := newPageServed(t)
	reg := tool.NewRegistry[state](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "write_note", Description: "Write a note.", Safety: tool.SafetyMutating},
		func(_ context.Context, in noteArgs) (string, error) {
			p.runs.Add(1)
			return "wrote " + in.Text, nil
		}))
	reg.Use(tool.Approval(&tool.ApprovalOptions[state]{Approver: Approver(&ApproverOptions{Fallback: p.page.Approver()})}))

	t.Run("a call of the host's own loop waits on the page", func(t *testing.T) {
		done := make(chan *tool.Result, 1)
		go func() {
			done <- reg.Call(context.Background(), state{}, tool.Request{Name: "write_note", Args: []byte(`{"text":"hi"}`), Session: "user-1"})
		}()
		p.answerOnPage(t, tool.Decision{Kind: tool.DecisionAllowOnce})
		res := <-done
		if res.Status != tool.StatusOK || p.runs.Load() != 1 {
			t.Fatalf("status %v, %q, runs %d: want it run once the page allowed it", res.Status, res.Text(), p.runs.Load())
		}
	})
	t.Run("a call from an MCP client is asked through the client", func(t *testing.T) {
		cs := manualClient(t, serve(t, reg, &Options[state]{Session: func(*sdk.CallToolRequest) string { return "user-1" }}))
		st := firstRound(t, cs, `{"text":"mcp"}`)
		res, err := mrtrCall(cs, `{"text":"mcp"}`, accept("allow_once", ""), st)
		if err != nil || res.IsError || p.runs.Load() != 2 {
			t.Fatalf("err=%v %q runs=%d", err, text(res), p.runs.Load())
		}
		if ps, _ := p.store.List(context.Background(), "user-1"); len(ps) != 0 {
			t.Fatalf("the page was offered the MCP client's call: %d waiting", len(ps))
		}
	})
}
