package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// An edit is a new call: the edited arguments are classified and put to
// the policy again (a denial wins over the edit), and a person who typed a
// call of another class is asked about it, shown its class, before it runs.
func TestEditIsANewCall(t *testing.T) {
	edit := func(command string) tooltest.Step {
		return tooltest.Edit(fmt.Sprintf(`{"command":%q}`, command))
	}
	tests := []struct {
		name   string
		policy tool.Policy
		tier   tool.Tier
		asked  string // the command the model asked for
		steps  []tooltest.Step
		want   tool.Status
		says   string
		ran    []string
		shown  []tool.Safety // the class of each request the approver was shown
	}{
		{name: "DenyDestructivePolicy denies an edit into a delete", policy: tool.DenyDestructivePolicy(),
			asked: "touch ok.txt", steps: []tooltest.Step{edit("rm -rf src")},
			want: tool.StatusDenied, says: "the edited call was not allowed to run: the session's policy does not allow destructive calls",
			shown: []tool.Safety{tool.SafetyMutating}},
		{name: "ReadOnlyPolicy denies an edit of a read into a write", policy: tool.ReadOnlyPolicy(), tier: tool.TierConfirm,
			asked: "ls", steps: []tooltest.Step{edit("touch x")},
			want: tool.StatusDenied, says: "the edited call was not allowed to run",
			shown: []tool.Safety{tool.SafetyReadOnly}},
		{name: "an edit into another class is asked about with its class", policy: tool.AskForWritesPolicy(),
			asked: "touch ok.txt", steps: []tooltest.Step{edit("rm -rf src"), tooltest.AllowOnce()},
			want: tool.StatusOK, ran: []string{"shell rm -rf src"},
			shown: []tool.Safety{tool.SafetyMutating, tool.SafetyDestructive}},
		{name: "the person denies the edited call once they see its class", policy: tool.AskForWritesPolicy(),
			asked: "touch ok.txt", steps: []tooltest.Step{edit("rm -rf src"), tooltest.Deny("not that")},
			want: tool.StatusDenied, says: "not that",
			shown: []tool.Safety{tool.SafetyMutating, tool.SafetyDestructive}},
		{name: "an edit of the same class runs without asking again", policy: tool.AskForWritesPolicy(),
			asked: "touch ok.txt", steps: []tooltest.Step{edit("touch other.txt")},
			want: tool.StatusOK, ran: []string{"shell touch other.txt"},
			shown: []tool.Safety{tool.SafetyMutating}},
		{name: "an edit the policy allows runs", policy: tool.AskForWritesPolicy(),
			asked: "touch ok.txt", steps: []tooltest.Step{edit("ls")},
			want: tool.StatusOK, ran: []string{"shell ls"},
			shown: []tool.Safety{tool.SafetyMutating}},
		{name: "an edit that fails preflight does not run", policy: tool.AskForWritesPolicy(),
			asked: "touch ok.txt", steps: []tooltest.Step{edit("")},
			want: tool.StatusInvalid, says: "the edit is not valid",
			shown: []tool.Safety{tool.SafetyMutating}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newShellFixture(t, tt.policy, tt.tier, tooltest.NewApprover(tt.steps...))
			res := f.call(tt.asked)
			tooltest.WantStatus(t, res, tt.want)
			assert.Contains(t, res.Text(), tt.says)
			assert.Equal(t, tt.ran, f.runs())
			assert.Equal(t, tt.shown, f.shown())
			if tt.want == tool.StatusDenied {
				assert.ErrorIs(t, res.Err, tool.ErrDenied)
				assert.Contains(t, res.Text(), "It did not run")
			}
		})
	}

	t.Run("the edited call's requirement is shown", func(t *testing.T) {
		a := tooltest.NewApprover(edit("rm -rf src"), tooltest.AllowOnce())
		f := newShellFixture(t, tool.AskForWritesPolicy(), 0, a)
		tooltest.WantOK(t, f.call("touch ok.txt"))
		reqs := a.Requests()
		require.Len(t, reqs, 2)
		assert.Equal(t, tool.RequireAskAlways, reqs[1].Requirement.Mode)
		assert.JSONEq(t, `{"command":"rm -rf src"}`, string(reqs[1].Args))
	})

	t.Run("an approver that edits without end is stopped", func(t *testing.T) {
		var steps []tooltest.Step
		for i := range 20 {
			steps = append(steps, edit([]string{"rm -rf a", "touch b"}[i%2]))
		}
		a := tooltest.NewApprover(steps...)
		f := newShellFixture(t, tool.AskForWritesPolicy(), 0, a)
		res := f.call("touch ok.txt")
		tooltest.WantStatus(t, res, tool.StatusDenied)
		assert.ErrorIs(t, res.Err, tool.ErrEditedTooOften)
		assert.Empty(t, f.runs())
		assert.Equal(t, 9, a.Asked(), "the first question and eight rounds of edits")
	})

	t.Run("a resumed edit into another class is deferred again, for the edited arguments", func(t *testing.T) {
		f := newShellFixture(t, tool.AskForWritesPolicy(), 0, tooltest.NewApprover(tooltest.Defer(), tooltest.Defer()))
		res := f.call("touch ok.txt")
		tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
		edited := tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(`{"command":"rm -rf src"}`)}
		res = f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "shell", Args: []byte(`{"command":"touch ok.txt"}`),
			Session: "conv", Approval: &tool.ApprovalAnswer{State: res.Pending.State, Decision: edited}})
		tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
		assert.Empty(t, f.runs(), "the edited call waits for the person to see its class")
		p := res.Pending
		assert.Equal(t, tool.SafetyDestructive, p.Request.Safety)
		assert.JSONEq(t, `{"command":"rm -rf src"}`, string(p.Request.Args))

		allow := tool.Decision{Kind: tool.DecisionAllowOnce}
		res = f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "shell", Args: p.Request.Args,
			Session: "conv", Approval: &tool.ApprovalAnswer{State: p.State, Decision: allow}})
		tooltest.WantOK(t, res)
		assert.Equal(t, []string{"shell rm -rf src"}, f.runs())
	})
}

// shellFixture is a registry with one shell tool, classified by its
// command's first word, and approval under a policy.
type shellFixture struct {
	fixture
	approver *tooltest.Approver
}

func newShellFixture(t *testing.T, policy tool.Policy, tier tool.Tier, a *tooltest.Approver) *shellFixture {
	t.Helper()
	f := &shellFixture{approver: a}
	shell := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "shell", Description: "Runs a command.", Safety: tool.SafetyMutating, Tier: tier},
		func(_ context.Context, in shellArgs) (string, error) {
			f.record("shell " + in.Command)
			return "ran", nil
		}), tool.ApprovalHooks[shellArgs]{
		Classify: classifyShell,
		Require: func(in shellArgs) tool.Requirement {
			if classifyShell(in) == tool.SafetyDestructive {
				return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "deletes files"}
			}
			return tool.Requirement{}
		},
	})
	f.reg = tool.NewRegistry[struct{}](nil)
	f.reg.MustAdd(shell)
	f.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: policy, Approver: a}))
	return f
}

func classifyShell(in shellArgs) tool.Safety {
	switch first, _, _ := cutWord(in.Command); first {
	case "rm":
		return tool.SafetyDestructive
	case "ls", "cat":
		return tool.SafetyReadOnly
	}
	return tool.SafetyMutating
}

func cutWord(s string) (string, string, bool) {
	for i, r := range s {
		if r == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func (f *shellFixture) call(command string) *tool.Result {
	return f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "shell", Session: "conv",
		Args: []byte(fmt.Sprintf(`{"command":%q}`, command))})
}

// shown is the class of each request the approver was shown, in order.
func (f *shellFixture) shown() []tool.Safety {
	var s []tool.Safety
	for _, r := range f.approver.Requests() {
		s = append(s, r.Safety)
	}
	return s
}
