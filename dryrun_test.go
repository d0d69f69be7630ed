package tool_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func (f *fixture) dryRun(session, name, args string) *tool.Result {
	return f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "dry", Name: name, Args: []byte(args), Session: session, DryRun: true})
}

// countingStore is an approval store that counts the changes made to it.
type countingStore struct {
	tool.ApprovalStore
	changes atomic.Int32
}

func (s *countingStore) Remember(ctx context.Context, session, key string, expires time.Time) error {
	s.changes.Add(1)
	return s.ApprovalStore.Remember(ctx, session, key, expires)
}

func (s *countingStore) Claim(ctx context.Context, session, id string, expires time.Time) (bool, error) {
	s.changes.Add(1)
	return s.ApprovalStore.Claim(ctx, session, id, expires)
}

func TestDryRun(t *testing.T) {
	t.Run("it says what would run and that a person would be asked, and runs nothing", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{})
		res := f.dryRun("conv", "write_file", `{"path":"main.go","content":"package main\n"}`)
		tooltest.WantStatus(t, res, tool.StatusDryRun)
		assert.False(t, res.IsError, "a dry run is not an error")
		d := res.DryRun
		require.NotNil(t, d)
		assert.Equal(t, "write_file", d.Tool)
		assert.JSONEq(t, `{"path":"main.go","content":"package main\n"}`, string(d.Args))
		assert.Equal(t, tool.SafetyMutating, d.Safety)
		assert.Equal(t, tool.VerdictAsk, d.Verdict)
		assert.Contains(t, d.Why, "policy asks about mutating calls")
		assert.Equal(t, "Edit main.go", d.Preview.Title)
		require.Len(t, d.Preview.Edits, 1)
		tooltest.WantTextContains(t, res, "Dry run", "did not run", "a person would be asked", "Edit main.go", "- func main() {}")
		var j map[string]any
		require.NoError(t, json.Unmarshal(res.Structured, &j))
		assert.Equal(t, "ask", j["approval"])
		assert.Equal(t, true, j["dry_run"])
		assert.Equal(t, 0, f.approver.Asked(), "no one was asked")
		assert.Empty(t, f.runs(), "nothing ran")
		assert.Equal(t, "started finished", f.rec.Kinds("dry"))
	})
	t.Run("defaults are filled and the call's own class and requirement are read", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{})
		d := f.dryRun("conv", "shell", `{"command":"rm -rf build"}`).DryRun
		require.NotNil(t, d)
		assert.Equal(t, tool.SafetyDestructive, d.Safety)
		assert.Equal(t, tool.RequireAskAlways, d.Requirement.Mode)
		assert.Contains(t, d.Why, "deletes files")
		d = f.dryRun("conv", "shell", `{"command":"ls"}`).DryRun
		assert.Equal(t, tool.VerdictAllow, d.Verdict)
		assert.Contains(t, d.Why, "allows it without asking")
	})
	t.Run("an earlier allow always is read, and nothing is remembered or claimed", func(t *testing.T) {
		store := &countingStore{ApprovalStore: tool.NewMemoryApprovalStore(0)}
		f := newFixture(t, tool.ApprovalOptions[struct{}]{Store: store}, tooltest.AllowAlways(), tooltest.Defer())
		tooltest.WantOK(t, f.call("1", "write_file", `{"path":"a","content":"x"}`))
		changes := store.changes.Load()
		d := f.dryRun("conv", "write_file", `{"path":"b","content":"y"}`).DryRun
		assert.Equal(t, tool.VerdictAllow, d.Verdict)
		assert.True(t, d.Remembered)
		d = f.dryRun("another", "write_file", `{"path":"b","content":"y"}`).DryRun
		assert.Equal(t, tool.VerdictAsk, d.Verdict, "another session is not covered")
		pending := f.callIn("another", "2", "write_file", `{"path":"b","content":"y"}`)
		tooltest.WantStatus(t, pending, tool.StatusAwaitingApproval)
		res := f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: "write_file", Args: []byte(`{"path":"b","content":"y"}`),
			Session: "another", DryRun: true, Approval: &tool.ApprovalAnswer{State: pending.Pending.State, Decision: tool.Decision{Kind: tool.DecisionAllowOnce}}})
		tooltest.WantStatus(t, res, tool.StatusDryRun)
		assert.Equal(t, changes, store.changes.Load(), "the dry runs changed nothing in the store")
		assert.Equal(t, 2, f.approver.Asked())
		assert.Equal(t, []string{"write a x"}, f.runs())
		resumed := f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: "write_file", Args: []byte(`{"path":"b","content":"y"}`),
			Session: "another", Approval: &tool.ApprovalAnswer{State: pending.Pending.State, Decision: tool.Decision{Kind: tool.DecisionAllowOnce}}})
		tooltest.WantOK(t, resumed) // the dry run did not use the deferred approval up
	})
	t.Run("what approval would refuse is said", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{Policy: tool.ReadOnlyPolicy()})
		d := f.dryRun("conv", "write_file", `{"path":"a","content":"x"}`).DryRun
		assert.Equal(t, tool.VerdictDeny, d.Verdict)
		assert.Contains(t, d.Why, "policy does not allow mutating calls")
		noApprover := tool.NewRegistry[struct{}](nil)
		noApprover.MustAdd(tool.New(tool.Definition{Name: "w", Description: "Writes.", Safety: tool.SafetyMutating}, func(context.Context, struct{}) (string, error) { return "", nil }))
		noApprover.Use(tool.Approval[struct{}](nil))
		d = noApprover.Call(context.Background(), struct{}{}, tool.Request{Name: "w", DryRun: true}).DryRun
		assert.Equal(t, tool.VerdictDeny, d.Verdict)
		assert.Contains(t, d.Why, "no one can approve")
	})
	t.Run("invalid arguments end as the call would", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{})
		res := f.dryRun("conv", "write_file", `{"path":`)
		tooltest.WantStatus(t, res, tool.StatusInvalid)
		assert.Nil(t, res.DryRun)
		tooltest.WantStatus(t, f.dryRun("conv", "nope", `{}`), tool.StatusUnknownTool)
	})
	t.Run("without an approval step: defaults filled, no one would be asked", func(t *testing.T) {
		r := newRegistry(t, newSearch())
		res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "search", Args: []byte(`{"query":"x"}`), DryRun: true})
		tooltest.WantStatus(t, res, tool.StatusDryRun)
		assert.JSONEq(t, `{"query":"x","limit":10}`, string(res.DryRun.Args), "the schema's default is filled in")
		assert.Equal(t, tool.VerdictAllow, res.DryRun.Verdict)
		assert.Contains(t, res.DryRun.Why, "no approval step")
		assert.Equal(t, tool.SafetyMutating, res.DryRun.Safety, "an unspecified class counts as mutating")
	})
	t.Run("no limit is counted", func(t *testing.T) {
		g, ft := newGated(tool.Definition{CallLimits: []tool.CallLimit{{Rate: 1}}})
		g.open()
		r := registryWith(t, nil, ft)
		for range 5 {
			tooltest.WantStatus(t, r.Call(context.Background(), struct{}{}, tool.Request{Name: "fetch", DryRun: true}), tool.StatusDryRun)
		}
		tooltest.WantOK(t, limitCall(r, context.Background(), "1", "s"))
		assert.Equal(t, int32(1), g.runs.Load())
	})
}
