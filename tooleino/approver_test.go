package tooleino_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
	"github.com/toolbelt-go/tool/keyring"
	"github.com/toolbelt-go/tool/tooleino"
	"github.com/toolbelt-go/tool/tooleino/einotest"
)

// TestApprovalThroughInterrupt: a call the host's policy asks about, with
// tooleino.Approver chosen, interrupts the Eino run with the question;
// the run resumed with the person's decision runs the call, or not, as
// the decision says, and an edit is a new call, asked about again when it
// is of another class.
func TestApprovalThroughInterrupt(t *testing.T) {
	for _, tc := range []struct {
		name      string
		policy    tool.Policy
		first     tool.Decision // the answer to the first question; later ones are allowed
		wantRan   []string
		wantAsked []string // the commands shown, in order
		wantText  string   // in what the model read
	}{
		{name: "allowed", first: allow(),
			wantRan: []string{"touch a.txt"}, wantAsked: []string{"touch a.txt"}, wantText: "ran touch a.txt"},
		{name: "denied", first: tool.Decision{Kind: tool.DecisionDeny, Reason: "not now"},
			wantAsked: []string{"touch a.txt"}, wantText: "not now"},
		{name: "edited, same class", first: tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(`{"command":"touch b.txt"}`)},
			wantRan: []string{"touch b.txt"}, wantAsked: []string{"touch a.txt"}, wantText: "ran touch b.txt"},
		{name: "edited into a delete, asked again", first: tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(`{"command":"rm -rf build"}`)},
			wantRan: []string{"rm -rf build"}, wantAsked: []string{"touch a.txt", "rm -rf build"}, wantText: "ran rm -rf build"},
		{name: "edited into a delete the policy denies", policy: tool.DenyDestructivePolicy(),
			first:     tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(`{"command":"rm -rf build"}`)},
			wantAsked: []string{"touch a.txt"}, wantText: "not allowed to run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, hostOptions{approver: tooleino.Approver(), policy: tc.policy})
			var asked []string
			res := h.run(einotest.RunConfig{Answer: func(q *tooleino.Question) tool.Decision {
				var in shellArgs
				if err := json.Unmarshal(q.Request.Args, &in); err != nil {
					t.Fatal(err)
				}
				asked = append(asked, in.Command)
				if len(asked) == 1 {
					return tc.first
				}
				return allow()
			}}, shellCall("call-1", "touch a.txt"))
			if ran := h.commands(); !slices.Equal(ran, tc.wantRan) {
				t.Errorf("ran %q, want %q", ran, tc.wantRan)
			}
			if !slices.Equal(asked, tc.wantAsked) {
				t.Errorf("asked about %q, want %q", asked, tc.wantAsked)
			}
			if len(res.Outputs) != 1 || !strings.Contains(res.Outputs[0].Text, tc.wantText) {
				t.Fatalf("the model read %+v, want one result saying %q", res.Outputs, tc.wantText)
			}
			if out := res.Outputs[0]; len(tc.wantRan) == 0 && !strings.Contains(out.Text, "did not run") {
				t.Errorf("nothing ran, and the model read %q", out.Text)
			}
			if res.Final != "done" {
				t.Errorf("the agent ended with %q", res.Final)
			}
		})
	}
}

// TestQuestionShown: the interrupt carries what an approver is shown, with
// the call's Eino ID, and says it in one line for a UI that prints it.
func TestQuestionShown(t *testing.T) {
	h := newHost(t, hostOptions{approver: tooleino.Approver()})
	res := h.run(einotest.RunConfig{}, shellCall("call-7", "rm -rf build"))
	if len(res.Waiting) != 1 || len(res.Questions) != 1 {
		t.Fatalf("waiting on %d questions, asked %d, want 1", len(res.Waiting), len(res.Questions))
	}
	q := res.Waiting[0].Question
	if q.Request.Tool != "shell" || q.Request.CallID != "call-7" || q.Request.Session != "conv-1" ||
		string(q.Request.Args) != `{"command":"rm -rf build"}` || q.Request.Safety != tool.SafetyDestructive || q.Expires.IsZero() {
		t.Errorf("the question: %+v", q)
	}
	if s := q.String(); s != `approve shell {"command":"rm -rf build"} (destructive)?` {
		t.Errorf("String() = %q", s)
	}
	if ran := h.commands(); len(ran) != 0 {
		t.Errorf("ran %q before an answer", ran)
	}
}

// TestResumeAlteredArguments: what the person answers is bound to the
// arguments shown. A run resumed with other arguments, whether its
// checkpoint was altered or the resumed tools are handed others, runs
// nothing, and the model is told.
func TestResumeAlteredArguments(t *testing.T) {
	for _, tc := range []struct {
		name string
		// alter changes the run between the question and the answer.
		alter func(t *testing.T, store *tamperable) (resumeWith func([]einotool.BaseTool) []einotool.BaseTool)
	}{
		{name: "the checkpoint altered", alter: func(t *testing.T, store *tamperable) func([]einotool.BaseTool) []einotool.BaseTool {
			if n := store.replace("touch a.txt", "touch b.txt"); n == 0 {
				t.Fatal("the checkpoint does not hold the arguments")
			}
			return nil
		}},
		{name: "other arguments handed to the tool", alter: func(*testing.T, *tamperable) func([]einotool.BaseTool) []einotool.BaseTool {
			return func(ts []einotool.BaseTool) []einotool.BaseTool {
				out := make([]einotool.BaseTool, len(ts))
				for i, t := range ts {
					out[i] = alteredArgs{t.(einotool.InvokableTool), "touch a.txt", "touch b.txt"}
				}
				return out
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, hostOptions{approver: tooleino.Approver()})
			store := &tamperable{m: map[string][]byte{}}
			cfg := einotest.RunConfig{Store: store}
			res := h.run(cfg, shellCall("call-1", "touch a.txt"))
			if len(res.Waiting) != 1 {
				t.Fatalf("waiting on %d questions, want 1", len(res.Waiting))
			}
			if wrap := tc.alter(t, store); wrap != nil {
				cfg.ResumeTools = wrap(h.tools(nil))
			} else {
				cfg.ResumeTools = h.tools(nil)
			}
			cfg.Model, cfg.CheckPointID, cfg.Session = einotest.NewModel(einotest.Text("done")), res.CheckPointID, "conv-1"
			res, err := einotest.Resume(context.Background(), cfg, map[string]any{res.Waiting[0].ID: allow()})
			if err != nil {
				t.Fatal(err)
			}
			if ran := h.commands(); len(ran) != 0 {
				t.Errorf("ran %q with an answer given for other arguments", ran)
			}
			if len(res.Outputs) != 1 || !strings.Contains(res.Outputs[0].Text, "given for other arguments") ||
				!strings.Contains(res.Outputs[0].Text, "did not run") {
				t.Errorf("the model read %+v", res.Outputs)
			}
			if last := h.last(); last.Status != tool.StatusDenied || !errors.Is(last.Err, tool.ErrApprovalState) || !errors.Is(last.Err, keyring.ErrOtherDigest) {
				t.Errorf("the host saw %v, %v", last.Status, last.Err)
			}
		})
	}
}

// tamperable is a checkpoint store whose checkpoints a test can alter.
type tamperable struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *tamperable) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *tamperable) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = b
	return nil
}

// replace replaces old with repl (of the same length, so that gob's
// lengths still hold) in every checkpoint, and says how many it replaced.
func (s *tamperable) replace(old, repl string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, b := range s.m {
		n += bytes.Count(b, []byte(old))
		s.m[id] = bytes.ReplaceAll(b, []byte(old), []byte(repl))
	}
	return n
}

// alteredArgs hands the tool other arguments than Eino gives it.
type alteredArgs struct {
	einotool.InvokableTool
	old, repl string
}

func (a alteredArgs) InvokableRun(ctx context.Context, args string, opts ...einotool.Option) (string, error) {
	return a.InvokableTool.InvokableRun(ctx, strings.ReplaceAll(args, a.old, a.repl), opts...)
}

// TestResumeOnReplica: the run is resumed on another replica, whose
// registry shares the keyring and the approval store; the call runs there.
// The same answer resumed again runs nothing: from the record of the
// call's ID, when the registry keeps records, or refused as used.
func TestResumeOnReplica(t *testing.T) {
	for _, records := range []bool{false, true} {
		name := "no records"
		if records {
			name = "records"
		}
		t.Run(name, func(t *testing.T) {
			keys, approvals := sharedKeys(t), tool.NewMemoryApprovalStore(0)
			opts := &tool.RegistryOptions{Keyring: keys}
			if records {
				opts.Records = tool.NewMemoryRecordStore(0)
			}
			a := newHost(t, hostOptions{approver: tooleino.Approver(), reg: opts, store: approvals})
			b := newHost(t, hostOptions{approver: tooleino.Approver(), reg: opts, store: approvals})
			res := a.run(einotest.RunConfig{ResumeTools: b.tools(nil), Answer: answer(allow())}, shellCall("call-1", "touch a.txt"))
			if ranA, ranB := a.commands(), b.commands(); len(ranA) != 0 || !slices.Equal(ranB, []string{"touch a.txt"}) {
				t.Fatalf("ran %q on the first replica and %q on the second", ranA, ranB)
			}
			if len(res.Outputs) != 1 || res.Outputs[0].Text != "ran touch a.txt" {
				t.Fatalf("the model read %+v", res.Outputs)
			}

			// The checkpoint of the question is still in the store: resume it again.
			cfg := einotest.RunConfig{Tools: b.tools(nil), Store: res.Store, CheckPointID: res.CheckPointID, Session: "conv-1",
				Model: einotest.NewModel(einotest.Text("done again"))}
			again, err := einotest.Resume(context.Background(), cfg, map[string]any{res.Questions[0].ID: allow()})
			if err != nil {
				t.Fatal(err)
			}
			if ran := b.commands(); len(ran) != 1 {
				t.Errorf("ran %q: the answer ran twice", ran)
			}
			if len(again.Outputs) != 1 {
				t.Fatalf("the model read %+v", again.Outputs)
			}
			last := b.last()
			switch text := again.Outputs[0].Text; {
			case records && (text != "ran touch a.txt" || !last.FromRecord):
				t.Errorf("with records, the model read %q (from the record: %v)", text, last.FromRecord)
			case !records && (!strings.Contains(text, "already used") || !errors.Is(last.Err, tool.ErrApprovalState)):
				t.Errorf("without records, the model read %q, the host saw %v", text, last.Err)
			}
		})
	}
}

// TestResumeWithoutAnswer: a run resumed without answering its question
// (Runner.Resume, or another question answered) asks it again, and runs
// nothing; resume data that is not a decision is the host's mistake, an
// error of the run, and runs nothing either; the question is still there
// to answer.
func TestResumeWithoutAnswer(t *testing.T) {
	h := newHost(t, hostOptions{approver: tooleino.Approver()})
	res := h.run(einotest.RunConfig{}, shellCall("call-1", "touch a.txt"))
	if len(res.Waiting) != 1 {
		t.Fatalf("waiting on %d questions, want 1", len(res.Waiting))
	}
	cfg := einotest.RunConfig{Tools: h.tools(nil), Store: res.Store, CheckPointID: res.CheckPointID, Session: "conv-1",
		Model: einotest.NewModel(einotest.Text("done"))}

	again, err := einotest.Resume(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Waiting) != 1 || string(again.Waiting[0].Question.Request.Args) != `{"command":"touch a.txt"}` {
		t.Fatalf("resumed without an answer, the run waits on %+v", again.Waiting)
	}

	_, err = einotest.Resume(context.Background(), cfg, map[string]any{again.Waiting[0].ID: "yes"})
	if err == nil || !strings.Contains(err.Error(), "must be a tool.Decision") {
		t.Errorf("resumed with a string: %v", err)
	}
	if ran := h.commands(); len(ran) != 0 {
		t.Fatalf("ran %q without an answer", ran)
	}

	done, err := einotest.Resume(context.Background(), cfg, map[string]any{again.Waiting[0].ID: &tool.Decision{Kind: tool.DecisionAllowOnce}})
	if err != nil {
		t.Fatal(err)
	}
	if ran := h.commands(); !slices.Equal(ran, []string{"touch a.txt"}) || len(done.Outputs) != 1 || done.Outputs[0].Text != "ran touch a.txt" {
		t.Errorf("ran %q; the model read %+v", ran, done.Outputs)
	}
}

// TestAnswerTooLate: an answer after the question expired runs nothing.
func TestAnswerTooLate(t *testing.T) {
	h := newHost(t, hostOptions{approver: tooleino.Approver(), timeout: 50 * time.Millisecond})
	res := h.run(einotest.RunConfig{Answer: func(*tooleino.Question) tool.Decision {
		time.Sleep(100 * time.Millisecond)
		return allow()
	}}, shellCall("call-1", "touch a.txt"))
	if ran := h.commands(); len(ran) != 0 {
		t.Errorf("ran %q", ran)
	}
	if len(res.Outputs) != 1 || !strings.Contains(res.Outputs[0].Text, "too late") {
		t.Errorf("the model read %+v", res.Outputs)
	}
}

// TestCallsAtOnce: of calls made at once, the one asked about waits for
// its answer, the others run once; two questions are asked in one
// interrupt and answered each by its own ID.
func TestCallsAtOnce(t *testing.T) {
	h := newHost(t, hostOptions{approver: tooleino.Approver()})
	res := h.run(einotest.RunConfig{Answer: func(q *tooleino.Question) tool.Decision {
		if strings.Contains(string(q.Request.Args), "b.txt") {
			return tool.Decision{Kind: tool.DecisionDeny, Reason: "not b"}
		}
		return allow()
	}}, shellCall("call-1", "ls"), shellCall("call-2", "touch a.txt"), shellCall("call-3", "touch b.txt"), call("call-4", "search", `{"query":"x"}`))
	ran := h.commands()
	slices.Sort(ran)
	if !slices.Equal(ran, []string{"ls", "touch a.txt"}) || h.searches() != 1 {
		t.Errorf("ran %q and %d searches", ran, h.searches())
	}
	if len(res.Questions) != 2 {
		t.Errorf("asked %d questions, want 2 in one interrupt", len(res.Questions))
	}
	want := map[string]string{"call-1": "ran ls", "call-2": "ran touch a.txt", "call-3": "not b", "call-4": "found x"}
	if len(res.Outputs) != len(want) {
		t.Fatalf("the model read %+v", res.Outputs)
	}
	for _, o := range res.Outputs {
		if !strings.Contains(o.Text, want[o.CallID]) {
			t.Errorf("%s: the model read %q, want %q", o.CallID, o.Text, want[o.CallID])
		}
	}
}

// TestOtherApproverHolds: when the host chose another approver, that one
// answers, and Eino's interrupt is never used: the approval page (the call
// waits for the page, tool.Awaiter), a terminal (answers at once), the
// host's own deferring approver (the model is told it cannot be answered
// here), and no approver (the policy denies).
func TestOtherApproverHolds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		approver func(t *testing.T, answer tool.Decision) tool.Approver
		answer   tool.Decision
		wantRan  bool
		wantText string
		// wantPending is who the host sees the call waiting for, if anyone.
		wantPending string
	}{
		{name: "the page allows", approver: page, answer: allow(), wantRan: true, wantText: "ran touch a.txt"},
		{name: "the page denies", approver: page, answer: tool.Decision{Kind: tool.DecisionDeny, Reason: "seen on the page"},
			wantText: "seen on the page"},
		{name: "a terminal", approver: func(_ *testing.T, d tool.Decision) tool.Approver {
			return tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) { return d, nil })
		}, answer: allow(), wantRan: true, wantText: "ran touch a.txt"},
		{name: "the host's deferring approver", approver: func(*testing.T, tool.Decision) tool.Approver {
			return tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
				return tool.Decision{Kind: tool.DecisionDefer, Answerer: "host"}, nil
			})
		}, wantText: "asked for outside this conversation", wantPending: "host"},
		{name: "none", approver: func(*testing.T, tool.Decision) tool.Approver { return nil }, wantText: "did not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, hostOptions{approver: tc.approver(t, tc.answer)})
			res := h.run(einotest.RunConfig{Answer: func(q *tooleino.Question) tool.Decision {
				t.Errorf("Eino's interrupt asked %v, in place of the approver the host chose", q)
				return allow()
			}}, shellCall("call-1", "touch a.txt"))
			if ran := len(h.commands()) > 0; ran != tc.wantRan {
				t.Errorf("ran %q, want ran=%v", h.commands(), tc.wantRan)
			}
			if len(res.Questions) != 0 {
				t.Errorf("the run was interrupted with %d questions", len(res.Questions))
			}
			if len(res.Outputs) != 1 || !strings.Contains(res.Outputs[0].Text, tc.wantText) {
				t.Errorf("the model read %+v, want %q", res.Outputs, tc.wantText)
			}
			if !tc.wantRan && !strings.Contains(res.Outputs[0].Text, "not run") {
				t.Errorf("nothing ran, and the model read %q", res.Outputs[0].Text)
			}
			if last := h.last(); tc.wantPending != "" && (last.Pending == nil || last.Pending.Answerer != tc.wantPending) {
				t.Errorf("the host saw %v, %+v", last.Status, last.Pending)
			}
		})
	}
}

// page serves the approval page on a loopback port, with a person at it
// who answers every approval with d through the page's own forms, and
// returns the page's approver.
func page(t *testing.T, d tool.Decision) tool.Approver {
	p, err := approvalweb.New(&approvalweb.Options{Sessions: func(*http.Request) ([]string, error) { return []string{"conv-1"}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		answered := map[string]bool{}
		for ctx.Err() == nil {
			var waiting []struct{ State string }
			if resp, err := http.Get(srv.URL + "/pending.json"); err == nil {
				_ = json.NewDecoder(resp.Body).Decode(&waiting)
				resp.Body.Close()
			}
			for _, w := range waiting {
				if answered[w.State] {
					continue
				}
				answered[w.State] = true
				form := url.Values{"state": {w.State}, "decision": {"deny"}, "reason": {d.Reason}}
				if d.Kind == tool.DecisionAllowOnce {
					form.Set("decision", "allow_once")
				}
				if resp, err := http.Post(srv.URL+"/answer", "application/x-www-form-urlencoded", strings.NewReader(form.Encode())); err == nil {
					resp.Body.Close()
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = p.Close()
		srv.Close()
	})
	return p.Approver()
}

// TestApproverOutsideEino: a call that did not come through an Eino tool of
// tooleino does not run when tooleino.Approver is asked about it: no
// interrupt can ask there, and the model is told so (not that the user
// said no).
func TestApproverOutsideEino(t *testing.T) {
	h := newHost(t, hostOptions{approver: tooleino.Approver()})
	res := h.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "shell", Args: json.RawMessage(`{"command":"touch a.txt"}`), Session: "conv-1"})
	if res.Status != tool.StatusDenied || !strings.Contains(res.Text(), "only the Eino agent can ask for") || strings.Contains(res.Text(), "the user said") ||
		!errors.Is(res.Err, tooleino.ErrCannotAsk) || len(h.commands()) != 0 {
		t.Errorf("%v, %v: %q; ran %q", res.Status, res.Err, res.Text(), h.commands())
	}
}

// TestComposeGraph: the same question in a graph of Eino's compose package
// (a ToolsNode in a graph with a checkpoint store), answered with
// compose.ResumeWithData.
func TestComposeGraph(t *testing.T) {
	h := newHost(t, hostOptions{approver: tooleino.Approver()})
	ctx := tooleino.WithSession(context.Background(), "conv-1")
	node, err := compose.NewToolNode(ctx, &compose.ToolsNodeConfig{Tools: h.tools(nil)})
	if err != nil {
		t.Fatal(err)
	}
	g := compose.NewGraph[*schema.Message, []*schema.Message]()
	if err := g.AddToolsNode("tools", node); err != nil {
		t.Fatal(err)
	}
	_ = g.AddEdge(compose.START, "tools")
	_ = g.AddEdge("tools", compose.END)
	run, err := g.Compile(ctx, compose.WithCheckPointStore(&tamperable{m: map[string][]byte{}}))
	if err != nil {
		t.Fatal(err)
	}
	in := schema.AssistantMessage("", []schema.ToolCall{{ID: "call-1", Function: schema.FunctionCall{Name: "shell", Arguments: `{"command":"touch a.txt"}`}}})
	_, err = run.Invoke(ctx, in, compose.WithCheckPointID("graph-1"))
	info, ok := compose.ExtractInterruptInfo(err)
	if !ok {
		t.Fatalf("not interrupted: %v", err)
	}
	qs := tooleino.Questions(info.InterruptContexts)
	if len(qs) != 1 || len(h.commands()) != 0 {
		t.Fatalf("questions %+v; ran %q", qs, h.commands())
	}
	out, err := run.Invoke(compose.ResumeWithData(ctx, qs[0].ID, allow()), in, compose.WithCheckPointID("graph-1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Content != "ran touch a.txt" || out[0].ToolCallID != "call-1" {
		t.Errorf("the graph answered %+v", out)
	}
}

// TestAllowAlways: "allow always", answered through the interrupt, is
// remembered for the session: the next write of the conversation runs
// without a question; another conversation's is asked about.
func TestAllowAlways(t *testing.T) {
	h := newHost(t, hostOptions{approver: tooleino.Approver()})
	res := h.run(einotest.RunConfig{Answer: answer(tool.Decision{Kind: tool.DecisionAllowAlways})}, shellCall("call-1", "touch a.txt"))
	if len(res.Questions) != 1 {
		t.Fatalf("asked %d questions", len(res.Questions))
	}
	res = h.run(einotest.RunConfig{}, shellCall("call-2", "touch b.txt"))
	if len(res.Questions) != 0 || len(res.Outputs) != 1 || res.Outputs[0].Text != "ran touch b.txt" {
		t.Errorf("the same conversation: %d questions; the model read %+v", len(res.Questions), res.Outputs)
	}
	res = h.run(einotest.RunConfig{Session: "conv-2"}, shellCall("call-3", "touch c.txt"))
	if len(res.Waiting) != 1 {
		t.Errorf("another conversation: waiting on %d questions", len(res.Waiting))
	}
	if ran := h.commands(); !slices.Equal(ran, []string{"touch a.txt", "touch b.txt"}) {
		t.Errorf("ran %q", ran)
	}
}
