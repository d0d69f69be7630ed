package tooladk_test

import (
	"context"
	"net/http"
	"testing"

	"google.golang.org/adk/agent"
	adktool "google.golang.org/adk/tool"
	"google.golang.org/adk/tool/toolconfirmation"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
	"github.com/toolbelt-go/tool/tooladk"
	"github.com/toolbelt-go/tool/tooladk/adktest"
)

// adkPath is ADK as a frontend, as the promise table
// (internal/promises, frontend_adk_test.go) drives it too: it makes a call
// the way an ADK agent's model does (through ADK's runner, an llmagent on an
// in-memory session, the registry's tools as a tooladk.Toolset with the
// given host state and session), and answers each question ADK's
// confirmation puts with d, as ADK's UIs send it (adktest.Answer). It
// returns what the model read and how many questions ADK put. The
// registry's approver is the one under test: tooladk.Approver() to answer
// through ADK's confirmation, another (the page, a terminal) to check that
// ADK's confirmation is then never used.
func adkPath[C any](t testing.TB, reg *tool.Registry[C], state C, session string) func(ctx context.Context, id, name, args string, d tool.Decision) (map[string]any, int) {
	ts := tooladk.New(reg, &tooladk.Options[C]{
		State:   func(agent.ToolContext) (C, error) { return state, nil },
		Session: func(agent.ToolContext) string { return session },
	})
	r := adktest.NewRunner(adktest.Config{Toolsets: []adktool.Toolset{ts}})
	return func(ctx context.Context, id, name, args string, d tool.Decision) (map[string]any, int) {
		asked := 0
		resp, _, err := r.Drive(ctx, adktest.Call(id, name, args), func(*toolconfirmation.ToolConfirmation) (bool, any) {
			asked++
			confirmed, payload, ok := adktest.Answer(d)
			if !ok {
				t.Fatalf("ADK's confirmation cannot carry %v", d.Kind)
			}
			return confirmed, payload
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp, asked
	}
}

// One approver on every path, ADK's included: whoever the host chose
// answers, and only they. Through ADK, tooladk.Approver asks through ADK's
// confirmation; the page asks on the page, never through ADK; a policy
// that asks nobody asks nobody.
func TestOneApproverThroughADK(t *testing.T) {
	for _, approver := range []string{"adk", "page", "policy"} {
		for _, d := range []tool.Decision{{Kind: tool.DecisionAllowOnce}, {Kind: tool.DecisionDeny, Reason: "not this one"}} {
			t.Run(approver+"/"+d.Kind.String(), func(t *testing.T) {
				store := tool.NewMemoryPendingApprovalStore(0)
				page, err := approvalweb.New(&approvalweb.Options{
					Sessions: func(*http.Request) ([]string, error) { return []string{"s1"}, nil }, Store: store})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = page.Close() })
				var reg *tool.Registry[host]
				var fs *files
				switch approver {
				case "adk":
					reg, fs = newRegistry(t, tooladk.Approver(), nil)
				case "page":
					reg, fs = newRegistry(t, page.Approver(), nil)
					go answerOnPage(t, page, store, "s1", d)
				case "policy":
					reg, fs = newRegistry(t, nil, nil)
					policy := tool.DenyAllPolicy()
					if d.Kind == tool.DecisionAllowOnce {
						policy = tool.AllowAllPolicy()
					}
					reg.Use(tool.Approval(&tool.ApprovalOptions[host]{Policy: policy}))
				}
				call := adkPath(t, reg, host{User: "ana"}, "s1")
				resp, asked := call(context.Background(), "c1", "delete_file", `{"path":"notes.txt"}`, d)
				if want := map[string]int{"adk": 1}[approver]; asked != want {
					t.Errorf("ADK's confirmation asked %d times, want %d", asked, want)
				}
				ran := len(fs.Deleted()) == 1
				if want := d.Kind == tool.DecisionAllowOnce; ran != want {
					t.Errorf("ran = %v, want %v (%v)", ran, want, resp)
				}
				if !ran && errorText(resp) == "" {
					t.Errorf("refused without an error for the model: %v", resp)
				}
			})
		}
	}
}
