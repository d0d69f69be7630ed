package tooladk_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	adktool "google.golang.org/adk/tool"
	"google.golang.org/adk/tool/functiontool"
	"google.golang.org/adk/tool/toolconfirmation"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
	"github.com/toolbelt-go/tool/tooladk"
	"github.com/toolbelt-go/tool/tooladk/adktest"
)

// A destructive call through ADK's runner is asked about through ADK's
// confirmation, and runs once the user confirms.
func TestConfirmThroughADK(t *testing.T) {
	reg, fs := newRegistry(t, tooladk.Approver(), nil)
	r := newRunner(tooladk.New(reg, stateFromADK()))
	ctx := context.Background()

	turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	c := turn.Confirmation()
	if c == nil {
		t.Fatalf("ADK asked nothing; the call answered %v", turn.Response("c1"))
	}
	if got := fs.Deleted(); len(got) != 0 {
		t.Fatalf("deleted %v before the user confirmed", got)
	}
	contains(t, "the awaiting answer", errorText(turn.Response("c1")), "needs the user's approval", "has not run")
	q, orig, err := adktest.Question(c)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "the hint", q.Hint, "Allow delete_file to run?", "destructive", `"path":"notes.txt"`)
	if orig.ID != "c1" || orig.Name != "delete_file" {
		t.Errorf("the question is about %s %s, want c1 delete_file", orig.ID, orig.Name)
	}

	turn, err = r.Confirm(ctx, c, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputText(turn.Response("c1")); got != "deleted notes.txt" {
		t.Errorf("after the confirmation the call answered %v", turn.Response("c1"))
	}
	if got := fs.Deleted(); len(got) != 1 || got[0] != "notes.txt" {
		t.Errorf("deleted %v, want [notes.txt]", got)
	}
}

// The answers ADK's confirmation can carry, and what each does.
func TestConfirmationAnswers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		confirmed bool
		payload   any
		runs      bool
		want      []string
	}{
		{"confirmed", true, nil, true, []string{"deleted notes.txt"}},
		{"confirmed, payload echoed back", true, map[string]any{"tool": "delete_file", "args": map[string]any{"path": "other"}}, true, []string{"deleted notes.txt"}},
		{"confirmed, allow once", true, map[string]any{"decision": "allow_once"}, true, []string{"deleted notes.txt"}},
		{"rejected", false, nil, false, []string{"was not allowed to run", "no reason given", "did not run"}},
		{"rejected with a reason", false, map[string]any{"reason": "keep it"}, false, []string{"the user said: keep it"}},
		{"confirmed, but the payload denies", true, map[string]any{"decision": "deny", "reason": "changed my mind"}, false, []string{"changed my mind"}},
		{"rejected, but the payload allows", false, map[string]any{"decision": "allow_once"}, false, []string{"was not allowed to run"}},
		{"payload not an object", true, "yes", true, []string{"deleted notes.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, fs := newRegistry(t, tooladk.Approver(), nil)
			r := newRunner(tooladk.New(reg, stateFromADK()))
			ctx := context.Background()
			turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
			if err != nil {
				t.Fatal(err)
			}
			turn, err = r.Confirm(ctx, turn.Confirmation(), tc.confirmed, tc.payload)
			if err != nil {
				t.Fatal(err)
			}
			resp := turn.Response("c1")
			got := outputText(resp) + errorText(resp)
			contains(t, "the answer", got, tc.want...)
			if ran := len(fs.Deleted()) == 1; ran != tc.runs {
				t.Errorf("ran = %v, want %v (%v)", ran, tc.runs, resp)
			}
		})
	}
}

// "Allow always" in the payload holds for the rest of the session: the
// next delete is not asked about.
func TestConfirmAllowAlways(t *testing.T) {
	reg, fs := newRegistry(t, tooladk.Approver(), nil)
	r := newRunner(tooladk.New(reg, stateFromADK()))
	ctx := context.Background()
	turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	q, _, err := adktest.Question(turn.Confirmation())
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := q.Payload.(tooladk.Question); !p.AllowAlways || p.Tool != "delete_file" || string(p.Args) != `{"path":"a"}` || p.Safety != "destructive" {
		t.Errorf("the question's payload is %#v", q.Payload)
	}
	if _, err = r.Confirm(ctx, turn.Confirmation(), true, map[string]any{"decision": "allow_always"}); err != nil {
		t.Fatal(err)
	}
	turn, err = r.Run(ctx, adktest.Call("c2", "delete_file", `{"path":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := turn.Confirmation(); c != nil {
		t.Errorf("asked again after allow_always: %v", c.Args)
	}
	if got := fs.Deleted(); len(got) != 2 {
		t.Errorf("deleted %v, want [a b]", got)
	}
}

// The answer is bound to the arguments the question showed: a resume that
// carries other arguments (the session store altered, so that ADK resumes
// the call with them) does not run. ADK's own functiontool, asked the same
// way, runs them: the binding is the toolset's, not ADK's.
func TestConfirmAlteredArgs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		native bool
		runs   bool
	}{{"tooladk", false, false}, {"ADK's functiontool", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			reg, fs := newRegistry(t, tooladk.Approver(), nil)
			cfg := adktest.Config{Toolsets: []adktool.Toolset{tooladk.New(reg, stateFromADK())}}
			if tc.native {
				ft, err := functiontool.New(functiontool.Config{Name: "delete_file", Description: "Delete a file.", RequireConfirmation: true},
					func(_ agent.ToolContext, in struct {
						Path string `json:"path"`
					}) (string, error) {
						fs.delete(in.Path)
						return "deleted " + in.Path, nil
					})
				if err != nil {
					t.Fatal(err)
				}
				cfg = adktest.Config{Tools: []adktool.Tool{ft}}
			}
			r := adktest.NewRunner(cfg)
			ctx := context.Background()
			turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
			if err != nil {
				t.Fatal(err)
			}
			forged, err := r.Forge(ctx, turn.Confirmation(), `{"path":"/etc/passwd"}`)
			if err != nil {
				t.Fatal(err)
			}
			turn, err = r.Confirm(ctx, forged, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := fs.Deleted()
			if ran := len(got) == 1 && got[0] == "/etc/passwd"; ran != tc.runs {
				t.Fatalf("deleted %v (answer %v); want the forged arguments run: %v", got, turn.Response("c1"), tc.runs)
			}
			if !tc.runs {
				contains(t, "the altered resume", errorText(turn.Response("c1")), "given for other arguments", "did not run")
				if len(got) != 0 {
					t.Errorf("deleted %v", got)
				}
			}
		})
	}
}

// An answer resumes its call once: the same confirmation sent again runs
// nothing more, with records (the call's record answers) or without.
func TestConfirmReplayed(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *tool.RegistryOptions
		want string
	}{
		{"records", nil, "deleted notes.txt"},
		{"no records", &tool.RegistryOptions{}, "its approval answer was already used"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, fs := newRegistry(t, tooladk.Approver(), tc.opts)
			r := newRunner(tooladk.New(reg, stateFromADK()))
			ctx := context.Background()
			turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
			if err != nil {
				t.Fatal(err)
			}
			c := turn.Confirmation()
			if _, err := r.Confirm(ctx, c, true, nil); err != nil {
				t.Fatal(err)
			}
			turn, err = r.Confirm(ctx, c, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp := turn.Response("c1")
			contains(t, "the second answer", outputText(resp)+errorText(resp), tc.want)
			if got := fs.Deleted(); len(got) != 1 {
				t.Errorf("deleted %v: the answer ran twice (second answer: %v)", got, resp)
			}
		})
	}
}

// A client that removes the kept state from the session (runner
// WithStateDelta, which ADK's REST server passes on) and confirms runs
// nothing: without the state there is no answer to resume, and ADK shows
// no new question while it resumes, so the model is told.
func TestConfirmStateRemoved(t *testing.T) {
	reg, fs := newRegistry(t, tooladk.Approver(), &tool.RegistryOptions{})
	r := newRunner(tooladk.New(reg, stateFromADK()))
	ctx := context.Background()
	turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Sessions.Get(ctx, &session.GetRequest{AppName: adktest.AppName, UserID: adktest.UserID, SessionID: r.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	if kept, err := got.Session.State().Get("tooladk:approval:c1"); err != nil || kept == "" {
		t.Fatalf("no signed state kept in the session's state: %v %v", kept, err)
	}
	c := turn.Confirmation()
	var resp map[string]any
	for ev, err := range r.Runner.Run(ctx, adktest.UserID, r.SessionID, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		ID: c.ID, Name: toolconfirmation.FunctionCallName, Response: map[string]any{"confirmed": true}}}}},
		agent.RunConfig{}, runner.WithStateDelta(map[string]any{"tooladk:approval:c1": nil})) {
		if err != nil {
			t.Fatal(err)
		}
		if r := (&adktest.Turn{Events: []*session.Event{ev}}).Response("c1"); r != nil {
			resp = r
		}
	}
	contains(t, "the answer without its state", errorText(resp), "could not be asked for in this conversation", "did not run")
	if got := fs.Deleted(); len(got) != 0 {
		t.Errorf("deleted %v without a kept state", got)
	}
}

// ADK's own confirmation wrapped around the toolset (tool.WithConfirmation)
// is ADK's question, not the host's approver: after it, the host's
// approver still decides. The page is asked and its answer holds; a call
// tooladk.Approver would ask about cannot be asked while ADK resumes it,
// and does not run.
func TestWrappedInADKConfirmation(t *testing.T) {
	for _, approver := range []string{"page", "adk"} {
		t.Run(approver, func(t *testing.T) {
			store := tool.NewMemoryPendingApprovalStore(0)
			page, err := approvalweb.New(&approvalweb.Options{
				Sessions: func(*http.Request) ([]string, error) { return []string{"s1"}, nil }, Store: store})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = page.Close() })
			var reg *tool.Registry[host]
			var fs *files
			if approver == "page" {
				reg, fs = newRegistry(t, page.Approver(), nil)
				go answerOnPage(t, page, store, "s1", tool.Decision{Kind: tool.DecisionDeny, Reason: "the page says no"})
			} else {
				reg, fs = newRegistry(t, tooladk.Approver(), nil)
			}
			opts := stateFromADK()
			opts.Session = func(agent.ToolContext) string { return "s1" }
			r := newRunner(adktool.WithConfirmation(tooladk.New(reg, opts), true, nil))
			resp, turns, err := r.Drive(context.Background(), adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`),
				func(*toolconfirmation.ToolConfirmation) (bool, any) { return true, nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(turns) != 2 {
				t.Errorf("%d turns, want ADK's own question and its answer", len(turns))
			}
			want := map[string]string{"page": "the page says no", "adk": "could not be asked for in this conversation"}[approver]
			contains(t, "the answer", errorText(resp), want)
			if got := fs.Deleted(); len(got) != 0 {
				t.Errorf("deleted %v", got)
			}
		})
	}
}

// The host chose the approval page: ADK's confirmation is not used; the
// call waits on the page, inside the toolset's Run, and the page's answer
// decides.
func TestPageChosenByHost(t *testing.T) {
	for _, answer := range []tool.Decision{{Kind: tool.DecisionAllowOnce}, {Kind: tool.DecisionDeny, Reason: "not today"}} {
		t.Run(answer.Kind.String(), func(t *testing.T) {
			store := tool.NewMemoryPendingApprovalStore(0)
			page, err := approvalweb.New(&approvalweb.Options{
				Sessions: func(*http.Request) ([]string, error) { return []string{"user-1"}, nil },
				Store:    store,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = page.Close() })
			reg, fs := newRegistry(t, page.Approver(), nil)
			opts := stateFromADK()
			opts.Session = func(agent.ToolContext) string { return "user-1" }
			r := newRunner(tooladk.New(reg, opts))

			turns := make(chan *adktest.Turn, 1)
			go func() {
				turn, err := r.Run(context.Background(), adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
				if err != nil {
					t.Error(err)
				}
				turns <- turn
			}()
			answerOnPage(t, page, store, "user-1", answer)
			turn := <-turns
			if c := turn.Confirmation(); c != nil {
				t.Fatalf("ADK's confirmation was used (%v); the host chose the page", c.Args)
			}
			resp := turn.Response("c1")
			switch answer.Kind {
			case tool.DecisionAllowOnce:
				if outputText(resp) != "deleted notes.txt" || len(fs.Deleted()) != 1 {
					t.Errorf("allowed on the page: %v, deleted %v", resp, fs.Deleted())
				}
			default:
				contains(t, "denied on the page", errorText(resp), "not today")
				if len(fs.Deleted()) != 0 {
					t.Errorf("denied on the page, deleted %v", fs.Deleted())
				}
			}
		})
	}
}

// answerOnPage waits for a call's approval on the page, and answers it.
// It may run on a goroutine of its own: it reports with t.Error.
func answerOnPage(t *testing.T, page *approvalweb.Handler, store tool.PendingApprovalStore, session string, d tool.Decision) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		ps, err := store.List(context.Background(), session)
		if err != nil {
			t.Error(err)
			return
		}
		if len(ps) > 0 {
			if err := page.Answer(context.Background(), ps[0].State, d); err != nil {
				t.Error(err)
			}
			return
		}
	}
	t.Error("the call was never offered on the page")
}

// The host chose an approver that defers to someone else and does not
// wait: ADK's user is not asked (they are not who the host chose), and
// the model is told the call needs an approval it cannot get here.
func TestDeferredToAnother(t *testing.T) {
	other := tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
		return tool.Decision{Kind: tool.DecisionDefer, Answerer: "ops-queue"}, nil
	})
	reg, fs := newRegistry(t, other, nil)
	r := newRunner(tooladk.New(reg, stateFromADK()))
	turn, err := r.Run(context.Background(), adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := turn.Confirmation(); c != nil {
		t.Fatalf("ADK's user was asked (%v); the call was deferred to ops-queue", c.Args)
	}
	contains(t, "the answer", errorText(turn.Response("c1")), "could not be asked for in this conversation", "did not run")
	if len(fs.Deleted()) != 0 {
		t.Errorf("deleted %v", fs.Deleted())
	}
}

// tooladk.Approver answers only calls that came through a Toolset: the
// same registry called by another loop does not run, and the model is not
// told that a user said anything.
func TestApproverOutsideADK(t *testing.T) {
	reg, fs := newRegistry(t, tooladk.Approver(), nil)
	res := reg.Call(context.Background(), host{}, tool.Request{ID: "1", Name: "delete_file", Args: []byte(`{"path":"x"}`), Session: "s"})
	if res.Status == tool.StatusOK || len(fs.Deleted()) != 0 || !errors.Is(res.Err, tooladk.ErrCannotAsk) {
		t.Fatalf("status %v, cause %v, deleted %v: %s", res.Status, res.Err, fs.Deleted(), res.Text())
	}
	contains(t, "the answer", res.Text(), "only the ADK agent can ask for", "tell the user it needs their approval")
	if strings.Contains(res.Text(), "the user said") {
		t.Errorf("the model is told a user said something: %s", res.Text())
	}
}

// Two calls of one response that both need approval are asked about
// apart, and each answer resumes its own call with its own arguments.
func TestConfirmTwoCallsOfOneResponse(t *testing.T) {
	reg, fs := newRegistry(t, tooladk.Approver(), nil)
	r := newRunner(tooladk.New(reg, stateFromADK()))
	ctx := context.Background()
	turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"a"}`), adktest.Call("c2", "delete_file", `{"path":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	cs := turn.Confirmations()
	if len(cs) != 2 {
		t.Fatalf("%d confirmations, want 2", len(cs))
	}
	for i, c := range cs {
		_, orig, err := adktest.Question(c)
		if err != nil {
			t.Fatal(err)
		}
		confirmed := orig.ID == "c2"
		turn, err = r.Confirm(ctx, c, confirmed, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp := turn.Response(orig.ID)
		if confirmed != (errorText(resp) == "") {
			t.Errorf("answer %d (%s, confirmed %v): %v", i, orig.ID, confirmed, resp)
		}
	}
	if got := fs.Deleted(); len(got) != 1 || got[0] != "b" {
		t.Errorf("deleted %v, want [b]", got)
	}
}

// An answer given after ApprovalOptions.Timeout runs nothing, and the
// model is told it came too late.
func TestConfirmTooLate(t *testing.T) {
	reg := tool.NewRegistry[host](nil)
	fs := &files{}
	reg.MustAdd(tool.New(tool.Definition{Name: "delete_file", Description: "Delete a file.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in deleteArgs) (string, error) {
			fs.delete(in.Path)
			return "deleted " + in.Path, nil
		}))
	reg.Use(tool.Approval(&tool.ApprovalOptions[host]{Approver: tooladk.Approver(), Timeout: time.Second}))
	r := newRunner(tooladk.New(reg, stateFromADK()))
	ctx := context.Background()
	turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	turn, err = r.Confirm(ctx, turn.Confirmation(), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "the late answer", errorText(turn.Response("c1")), "came too late", "did not run")
	if got := fs.Deleted(); len(got) != 0 {
		t.Errorf("deleted %v after the question expired", got)
	}
}

// ADK's confirmation hint shows the arguments that will run whole, after
// the tool's preview however long (cut, saying so), and once.
func TestConfirmationHintShowsTheArgumentsWhole(t *testing.T) {
	longPath := strings.Repeat("notes/", 2000) + "x; rm -rf src"
	for _, tc := range []struct {
		name     string
		describe bool
	}{
		{"after a preview of 24 KiB", true},
		{"with a preview made from them", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := tool.NewRegistry[host](&tool.RegistryOptions{Records: tool.NewMemoryRecordStore(0)})
			del := tool.New(tool.Definition{Name: "delete_file", Description: "Delete a file.", Safety: tool.SafetyDestructive},
				func(_ context.Context, in deleteArgs) (string, error) { return "deleted", nil })
			if tc.describe {
				del = tool.WithApprovalHooks(del, tool.ApprovalHooks[deleteArgs]{
					Describe: func(_ context.Context, in deleteArgs) (tool.Preview, error) {
						return tool.Preview{Title: "Delete a file", Summary: strings.Repeat(in.Path, 2)}, nil
					},
				})
			}
			reg.MustAdd(del)
			reg.Use(tool.Approval(&tool.ApprovalOptions[host]{Approver: tooladk.Approver()}))
			r := newRunner(tooladk.New(reg, stateFromADK()))
			args := `{"path":"` + longPath + `"}`
			turn, err := r.Run(context.Background(), adktest.Call("c1", "delete_file", args))
			if err != nil {
				t.Fatal(err)
			}
			q, _, err := adktest.Question(turn.Confirmation())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(q.Hint, "\n\nArguments: "+args) {
				t.Errorf("the hint does not end with the arguments whole: …%q", q.Hint[max(0, len(q.Hint)-200):])
			}
			if n := strings.Count(q.Hint, args); n != 1 {
				t.Errorf("the arguments are shown %d times", n)
			}
			if cut := strings.Contains(q.Hint, "[… the preview is cut here: "); cut != tc.describe {
				t.Errorf("the preview said cut: %v, want %v", cut, tc.describe)
			}
		})
	}
}
