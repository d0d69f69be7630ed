package tool_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	"github.com/toolbelt-go/tool/tooltest"
)

// deferred makes a write_file call in session "conv" that the approver
// defers, and returns its pending approval.
func deferred(t *testing.T, f *fixture, args string) *tool.PendingApproval {
	t.Helper()
	res := f.call("1", "write_file", args)
	tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
	require.NotNil(t, res.Pending)
	assert.True(t, res.IsError, "the model is told the call did not run")
	assert.Contains(t, res.Text(), "has not run yet")
	assert.ErrorIs(t, res.Err, tool.ErrAwaitingApproval)
	assert.Equal(t, "write_file", res.Pending.Request.Tool)
	assert.Empty(t, f.runs(), "nothing ran")
	return res.Pending
}

func (f *fixture) resume(session, args string, p *tool.PendingApproval, d tool.Decision) *tool.Result {
	return f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: "write_file", Args: []byte(args), Session: session,
		Approval: &tool.ApprovalAnswer{State: p.State, Decision: d}})
}

func TestDeferredApproval(t *testing.T) {
	const args = `{"path":"a","content":"x"}`
	allow := tool.Decision{Kind: tool.DecisionAllowOnce}

	t.Run("answered later, it runs once", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.Defer())
		p := deferred(t, f, args)
		assert.Equal(t, "Write a file", p.Request.DisplayName)
		assert.JSONEq(t, args, string(p.Request.Args))
		tooltest.WantOK(t, f.resume("conv", args, p, allow))
		assert.Equal(t, []string{"write a x"}, f.runs())
		assert.Equal(t, 1, f.approver.Asked(), "the answer came with the call, the approver was not asked again")
		kinds := f.rec.Kinds("1")
		assert.Equal(t, "started approval_requested approval_decided finished", kinds)
	})
	t.Run("a replayed answer runs nothing", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.Defer())
		p := deferred(t, f, args)
		tooltest.WantOK(t, f.resume("conv", args, p, allow))
		res := f.resume("conv", args, p, allow)
		tooltest.WantStatus(t, res, tool.StatusDenied)
		assert.Contains(t, res.Text(), "already used")
		assert.ErrorIs(t, res.Err, tool.ErrApprovalState)
		assert.Len(t, f.runs(), 1)
	})
	t.Run("a deny answer", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.Defer())
		p := deferred(t, f, args)
		res := f.resume("conv", args, p, tool.Decision{Kind: tool.DecisionDeny, Reason: "not that file"})
		tooltest.WantStatus(t, res, tool.StatusDenied)
		assert.Contains(t, res.Text(), "not that file")
		assert.Empty(t, f.runs())
	})
	t.Run("an edited answer is validated and runs", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.Defer())
		p := deferred(t, f, args)
		tooltest.WantOK(t, f.resume("conv", args, p, tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(`{"path":"b","content":"y"}`)}))
		assert.Equal(t, []string{"write b y"}, f.runs())
	})
	t.Run("refused", func(t *testing.T) {
		tests := []struct {
			name    string
			session string
			args    string
			state   func(string) string
			d       tool.Decision
			want    string
		}{
			{"other arguments", "conv", `{"path":"b","content":"x"}`, nil, allow, "other arguments"},
			{"other session", "bob", args, nil, allow, "cannot be used"},
			{"altered state", "conv", args, func(s string) string { return s[:len(s)-2] + "AA" }, allow, "cannot be used"},
			{"a page cursor or garbage", "conv", args, func(string) string { return "AQIDBA" }, allow, "cannot be used"},
			{"defer is not an answer", "conv", args, nil, tool.Decision{Kind: tool.DecisionDefer}, "did not run"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.Defer())
				p := deferred(t, f, args)
				if tt.state != nil {
					p.State = tt.state(p.State)
				}
				res := f.resume(tt.session, tt.args, p, tt.d)
				tooltest.WantStatus(t, res, tool.StatusDenied)
				assert.Contains(t, res.Text(), tt.want)
				assert.Empty(t, f.runs())
			})
		}
	})
	t.Run("expired", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, tool.ApprovalOptions[struct{}]{Timeout: time.Minute}, tooltest.Defer())
			p := deferred(t, f, args)
			assert.Equal(t, time.Now().Add(time.Minute), p.Expires)
			time.Sleep(2 * time.Minute)
			res := f.resume("conv", args, p, allow)
			tooltest.WantStatus(t, res, tool.StatusDenied)
			assert.Contains(t, res.Text(), "too late")
			assert.Empty(t, f.runs())
		})
	})
	t.Run("another replica with the same keyring and memory", func(t *testing.T) {
		keys, err := keyring.FromSecret([]byte("a shared secret of at least 32 bytes!"))
		require.NoError(t, err)
		mem := tool.NewMemoryApprovalStore(0)
		replica := func() (*tool.Registry[struct{}], *int) {
			runs := new(int)
			r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys})
			r.MustAdd(tool.New(tool.Definition{Name: "deploy", Description: "Deploys.", Safety: tool.SafetyMutating},
				func(context.Context, struct{}) (string, error) { *runs++; return "deployed", nil }))
			r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooltest.NewApprover(tooltest.Defer()), Store: mem}))
			return r, runs
		}
		a, aRuns := replica()
		b, bRuns := replica()
		res := a.Call(context.Background(), struct{}{}, tool.Request{Name: "deploy", Session: "s"})
		tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
		answer := &tool.ApprovalAnswer{State: res.Pending.State, Decision: allow}
		tooltest.WantOK(t, b.Call(context.Background(), struct{}{}, tool.Request{Name: "deploy", Session: "s", Approval: answer}))
		tooltest.WantStatus(t, a.Call(context.Background(), struct{}{}, tool.Request{Name: "deploy", Session: "s", Approval: answer}), tool.StatusDenied)
		assert.Equal(t, 0, *aRuns)
		assert.Equal(t, 1, *bRuns)
	})
}
