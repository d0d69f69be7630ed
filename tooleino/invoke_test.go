package tooleino_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooleino"
	"github.com/toolbelt-go/tool/tooleino/einotest"
	"github.com/toolbelt-go/tool/workspace"
)

// badArgs are argument sets the search tool's schema refuses, each kind
// once (the bench module's acceptance table has them all).
var badArgs = []struct{ name, args string }{
	{"lang not in the enum", `{"query":"x","lang":"golang"}`},
	{"limit above its maximum", `{"query":"x","limit":5000}`},
	{"limit below its minimum", `{"query":"x","limit":0}`},
	{"path not matching its pattern", `{"query":"x","path":"a b"}`},
	{"query empty", `{"query":""}`},
	{"query of 201 characters", `{"query":"` + strings.Repeat("q", 201) + `"}`},
	{"query missing", `{}`},
	{"unknown key", `{"query":"x","depth":2}`},
	{"key in another case", `{"Query":"x"}`},
	{"duplicate key", `{"query":"x","lang":"golang","lang":"go"}`},
	{"wrong type", `{"query":"x","limit":"50"}`},
	{"null for a string", `{"query":"x","lang":null}`},
	{"trailing data", `{"query":"x"} {}`},
	{"cut off", `{"query":"x","la`},
	{"a string holding the object", `"{\"query\":\"x\"}"`},
	{"an array", `[]`},
}

// TestRunnerDrivesTools: Eino's runner calls the tools; a valid call runs,
// and each argument set the schema refuses comes back to the model as the
// registry's retry hint, as the tool's result, without running the
// function and without ending the run. Eino's own InferTool, given the
// same calls, runs the function for most of them, and ends the run for
// the others.
func TestRunnerDrivesTools(t *testing.T) {
	h := newHost(t, hostOptions{})
	res := h.run(einotest.RunConfig{}, call("call-1", "search", `{"query":"NewRegistry","lang":"go"}`))
	if len(res.Outputs) != 1 || res.Outputs[0].Text != "found NewRegistry in main.go" || res.Outputs[0].CallID != "call-1" || res.Final != "done" {
		t.Fatalf("the model read %+v and ended with %q", res.Outputs, res.Final)
	}
	for _, tc := range badArgs {
		t.Run(tc.name, func(t *testing.T) {
			before := h.searches()
			res := h.run(einotest.RunConfig{}, call("call-2", "search", tc.args))
			if h.searches() != before {
				t.Errorf("the function ran")
			}
			if len(res.Outputs) != 1 || res.Final != "done" {
				t.Fatalf("the model read %+v and ended with %q", res.Outputs, res.Final)
			}
			if text := res.Outputs[0].Text; !strings.Contains(text, "search") || !strings.Contains(text, "again") {
				t.Errorf("the model read %q, not a retry hint", text)
			}
			if last := h.last(); last.Status != tool.StatusInvalid {
				t.Errorf("the host saw %v", last.Status)
			}
		})
	}

	// The same calls through Eino's own InferTool, for the record.
	var ran, ended int
	infer, err := utils.InferTool("search", "Searches the code base.", func(_ context.Context, in searchArgs) (string, error) {
		ran++
		return "found " + in.Query, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range badArgs {
		if _, err := einotest.Run(context.Background(), einotest.RunConfig{Tools: []einotool.BaseTool{infer},
			Call: call("call-2", "search", tc.args)}); err != nil {
			ended++
		}
	}
	t.Logf("InferTool ran the function for %d of the %d argument sets the schema refuses, and ended the run for %d", ran, len(badArgs), ended)
}

// TestRepeatedCallID: a call whose Eino tool-call ID already ran in the
// session is answered from its record, and does not run again; the model
// reads what it read the first time.
func TestRepeatedCallID(t *testing.T) {
	h := newHost(t, hostOptions{reg: &tool.RegistryOptions{Records: tool.NewMemoryRecordStore(0)}, policy: tool.AllowAllPolicy()})
	m := einotest.NewModel(
		einotest.Calls(shellCall("call-1", "touch a.txt")),
		einotest.Calls(shellCall("call-1", "touch a.txt")), // the model repeats the call, ID and all
		einotest.Text("done"))
	res := h.run(einotest.RunConfig{Model: m})
	if ran := h.commands(); !slices.Equal(ran, []string{"touch a.txt"}) {
		t.Errorf("ran %q", ran)
	}
	if len(res.Outputs) != 2 || res.Outputs[0].Text != "ran touch a.txt" || res.Outputs[1].Text != res.Outputs[0].Text {
		t.Errorf("the model read %+v", res.Outputs)
	}
	if last := h.last(); !last.FromRecord || last.CallID != "call-1" {
		t.Errorf("the second call: from the record %v, ID %q", last.FromRecord, last.CallID)
	}

	// A later turn of the same conversation (a resumed agent loop) with the ID.
	res = h.run(einotest.RunConfig{}, shellCall("call-1", "touch a.txt"))
	if ran := h.commands(); len(ran) != 1 || len(res.Outputs) != 1 || res.Outputs[0].Text != "ran touch a.txt" {
		t.Errorf("ran %q; the model read %+v", ran, res.Outputs)
	}
	// The same ID in another conversation is another call.
	h.run(einotest.RunConfig{Session: "conv-2"}, shellCall("call-1", "touch a.txt"))
	if ran := h.commands(); len(ran) != 2 {
		t.Errorf("ran %q", ran)
	}
}

// TestPipelineStays: what a call goes through stays when Eino runs it:
// limits, the deadline, the output cap with read_output, events with
// Eino's call IDs, host state and session from Eino's context.
func TestPipelineStays(t *testing.T) {
	type state struct{ user string }
	type userKey struct{}
	var (
		mu     sync.Mutex
		events []tool.Event
	)
	reg := tool.NewRegistry[state](&tool.RegistryOptions{
		Spill: tool.NewMemorySpillStore(0),
		Observer: tool.ObserverFunc(func(e tool.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e)
		}),
	})
	reg.MustAdd(
		tool.NewFor(tool.Definition{Name: "whoami", Description: "Says who asks.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, c *tool.Call[state], _ struct{}) (string, error) {
				info, _ := tool.CallInfoFrom(ctx)
				return c.State.user + " in " + info.Session, nil
			}),
		tool.New(tool.Definition{Name: "slow", Description: "Takes long.", Safety: tool.SafetyReadOnly, Timeout: 20 * time.Millisecond},
			func(ctx context.Context, _ struct{}) (string, error) {
				<-ctx.Done()
				return "", ctx.Err()
			}),
		tool.New(tool.Definition{Name: "once", Description: "One a minute.", Safety: tool.SafetyReadOnly, CallLimits: []tool.CallLimit{{Rate: 1}}},
			func(context.Context, struct{}) (string, error) { return "once", nil }),
		tool.New(tool.Definition{Name: "log", Description: "A long log.", Safety: tool.SafetyReadOnly, MaxOutputBytes: 1024},
			func(context.Context, struct{}) (string, error) {
				var b strings.Builder
				for i := range 500 {
					fmt.Fprintf(&b, "line %d\n", i)
				}
				return b.String(), nil
			}),
	)
	a := tooleino.New(reg, &tooleino.Options[state]{
		State: func(ctx context.Context) (state, error) {
			u, _ := ctx.Value(userKey{}).(string)
			return state{user: u}, nil
		},
	})
	ts, err := a.Tools()
	if err != nil {
		t.Fatal(err)
	}
	cursor := regexp.MustCompile(`\{"cursor":"[^"]+"\}`)
	m := einotest.NewModel(
		einotest.Calls(call("c1", "whoami", `{}`), call("c2", "slow", `{}`), call("c3", "once", `{}`), call("c4", "once", `{}`), call("c5", "log", `{}`)),
		einotest.Func(func(r einotest.Request) einotest.Turn {
			for _, o := range r.Outputs {
				if args := cursor.FindString(o.Text); args != "" {
					return einotest.Calls(call("c6", tool.ReadOutputTool, args))
				}
			}
			return einotest.Text("no cursor")
		}),
		einotest.Text("done"))
	ctx := context.WithValue(context.Background(), userKey{}, "ana")
	res, err := einotest.Run(ctx, einotest.RunConfig{Tools: ts, Model: m, Session: "conv-9"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range res.Outputs {
		got[o.CallID] = o.Text
	}
	onceTexts := []string{got["c3"], got["c4"]}
	slices.Sort(onceTexts)
	for _, c := range []struct{ what, text, want string }{
		{"host state and session", got["c1"], "ana in conv-9"},
		{"the deadline", got["c2"], "timed out"},
		{"the limit", onceTexts[1], "once"},
		{"the limit", onceTexts[0], "retry after"},
		{"the output cap", got["c5"], "bytes cut here"},
		{"read_output", got["c6"], "line 100\n"},
	} {
		if !strings.Contains(strings.ToLower(c.text), strings.ToLower(c.want)) {
			t.Errorf("%s: the model read %q, want %q in it", c.what, c.text, c.want)
		}
	}
	ids := map[string]bool{}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		ids[e.CallID] = true
		if e.Session != "conv-9" {
			t.Errorf("an event of session %q", e.Session)
		}
	}
	for _, id := range []string{"c1", "c2", "c3", "c4", "c5", "c6"} {
		if !ids[id] {
			t.Errorf("no event of the call %s", id)
		}
	}
}

// TestStateError: a host state that cannot be made ends the run with the
// error, and nothing runs.
func TestStateError(t *testing.T) {
	reg := tool.NewRegistry[int](nil)
	ran := false
	reg.MustAdd(tool.New(tool.Definition{Name: "t", Description: "d", Safety: tool.SafetyReadOnly},
		func(context.Context, struct{}) (string, error) { ran = true; return "", nil }))
	ts, err := tooleino.New(reg, &tooleino.Options[int]{State: func(context.Context) (int, error) { return 0, errors.New("no user") }}).Tools()
	if err != nil {
		t.Fatal(err)
	}
	_, err = einotest.Run(context.Background(), einotest.RunConfig{Tools: ts, Call: call("c1", "t", `{}`)})
	if err == nil || !strings.Contains(err.Error(), "no user") || ran {
		t.Errorf("run: %v; ran %v", err, ran)
	}
}

// TestStreaming: in streaming mode Eino streams the tool's result; the
// model reads the same, and an approval question interrupts as it does
// otherwise.
func TestStreaming(t *testing.T) {
	h := newHost(t, hostOptions{approver: tooleino.Approver()})
	res := h.run(einotest.RunConfig{Streaming: true, Answer: answer(allow())},
		call("call-1", "search", `{"query":"x"}`), call("call-2", "search", `{"query":""}`), shellCall("call-3", "touch a.txt"))
	got := map[string]string{}
	for _, o := range res.Outputs {
		got[o.CallID] = o.Text
	}
	if got["call-1"] != "found x in main.go" || !strings.Contains(got["call-2"], "Invalid arguments") || got["call-3"] != "ran touch a.txt" || len(res.Questions) != 1 {
		t.Errorf("the model read %q after %d questions", got, len(res.Questions))
	}
}

// TestSandboxUnderRunShell: codetools' run_shell, given to an Eino agent,
// runs its commands in the sandbox: an approved command still cannot
// write outside the workspace.
func TestSandboxUnderRunShell(t *testing.T) {
	if err := process.DetectSandbox().Err(); err != nil {
		if os.Getenv("TOOLBELT_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir, outside := t.TempDir(), t.TempDir()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(codetools.New(ws, nil).Tools()...)
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AllowAllPolicy()}))
	ts, err := tooleino.New(reg, &tooleino.Options[struct{}]{Tools: []string{"run_shell"}}).Tools()
	if err != nil {
		t.Fatal(err)
	}
	escaped := filepath.Join(outside, "escaped")
	res, err := einotest.Run(context.Background(), einotest.RunConfig{Tools: ts, Session: "conv-1",
		Call: call("c1", "run_shell", `{"command":"touch inside && touch `+escaped+`"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Errorf("the command wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(dir, "inside")); err != nil {
		t.Errorf("the command did not write in the workspace: %v", err)
	}
	if len(res.Outputs) != 1 || res.Outputs[0].Text == "" {
		t.Errorf("the model read %+v", res.Outputs)
	}
}
