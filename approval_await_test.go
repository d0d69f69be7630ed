package tool_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// awaiting is an approver that defers every call to "page" and waits for
// its answer, as the approval page does: answer says what the wait ends
// with, given the pending approval.
type awaiting struct {
	answer  func(ctx context.Context, p *tool.PendingApproval) (*tool.ApprovalAnswer, error)
	pending atomic.Pointer[tool.PendingApproval]
}

func (a *awaiting) Approve(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
	return tool.Decision{Kind: tool.DecisionDefer, Answerer: "page"}, nil
}

func (a *awaiting) Await(ctx context.Context, p *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
	a.pending.Store(p)
	return a.answer(ctx, p)
}

func answerWith(d tool.Decision) func(context.Context, *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
	return func(_ context.Context, p *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
		return &tool.ApprovalAnswer{State: p.State, Decision: d, Answerer: "page"}, nil
	}
}

// A call whose approver defers and can wait for its own answer waits for
// it in the pipeline, so every way a call arrives gets the approver the
// host chose; a caller that takes the pending approval back asks for it.
func TestAwaiter(t *testing.T) {
	allow := tool.Decision{Kind: tool.DecisionAllowOnce}
	tests := []struct {
		name    string
		answer  func(ctx context.Context, p *tool.PendingApproval) (*tool.ApprovalAnswer, error)
		want    tool.Status
		wantErr []error
		says    string
		runs    []string
	}{
		{name: "allowed on the page, it runs", answer: answerWith(allow), want: tool.StatusOK, runs: []string{"write a x"}},
		{name: "denied on the page", answer: answerWith(tool.Decision{Kind: tool.DecisionDeny, Reason: "no"}),
			want: tool.StatusDenied, wantErr: []error{tool.ErrDenied}, says: "the user said: no"},
		{name: "an answer from another party is refused", answer: func(_ context.Context, p *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
			return &tool.ApprovalAnswer{State: p.State, Decision: allow, Answerer: "mcp"}, nil
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState, tool.ErrOtherAnswerer}, says: "someone other than the one asked"},
		{name: "an answer for another state is refused", answer: func(context.Context, *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
			return &tool.ApprovalAnswer{State: "AQIDBA", Decision: allow, Answerer: "page"}, nil
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApprovalState}, says: "cannot be used"},
		{name: "the wait fails", answer: func(context.Context, *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
			return nil, errors.New("the page's store is down")
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApproverFailed}, says: "the approval step failed"},
		{name: "the wait panics", answer: func(context.Context, *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
			panic("page bug")
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApproverFailed}, says: "the approval step failed"},
		{name: "the wait ends with no answer", answer: func(context.Context, *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
			return nil, nil
		}, want: tool.StatusDenied, wantErr: []error{tool.ErrApproverFailed}, says: "the approval step failed"},
		{name: "a deferral it does not wait for comes back pending", answer: func(context.Context, *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
			return nil, fmt.Errorf("relayed by the frontend: %w", tool.ErrNotAwaited)
		}, want: tool.StatusAwaitingApproval, says: "has not run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			aw := &awaiting{answer: tt.answer}
			f := newFixture(t, tool.ApprovalOptions[struct{}]{Approver: aw})
			res := f.call("1", "write_file", `{"path":"a","content":"x"}`)
			tooltest.WantStatus(t, res, tt.want)
			for _, e := range tt.wantErr {
				assert.ErrorIs(t, res.Err, e)
			}
			assert.Contains(t, res.Text(), tt.says)
			assert.Equal(t, tt.runs, f.runs())
			p := aw.pending.Load()
			require.NotNil(t, p, "the approver waited on a pending approval")
			assert.Equal(t, "page", p.Answerer)
			assert.Equal(t, "conv", p.Session)
			if tt.want == tool.StatusAwaitingApproval {
				require.NotNil(t, res.Pending, "the caller gets the pending approval to resume")
				assert.Equal(t, p.State, res.Pending.State)
			}
		})
	}

	t.Run("a call whose class changed while it waited is asked about again", func(t *testing.T) {
		var f *fixture
		var shown []tool.ApprovalRequest
		aw := &awaiting{}
		aw.answer = func(_ context.Context, p *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
			shown = append(shown, p.Request)
			if len(shown) == 1 {
				f.setFile("a", "link:/etc/") // while the person read, the path became a link that leads outside
				return &tool.ApprovalAnswer{State: p.State, Decision: allow, Answerer: "page"}, nil
			}
			return &tool.ApprovalAnswer{State: p.State, Decision: tool.Decision{Kind: tool.DecisionDeny, Reason: "not there"}, Answerer: "page"}, nil
		}
		f = newFixture(t, tool.ApprovalOptions[struct{}]{Approver: aw})
		res := f.call("1", "write_file", `{"path":"a","content":"x"}`)
		tooltest.WantStatus(t, res, tool.StatusDenied)
		assert.Contains(t, res.Text(), "not there")
		assert.Empty(t, f.runs(), "the allow was for a write inside the workspace")
		require.Len(t, shown, 2)
		assert.Equal(t, tool.RequireDefault, shown[0].Requirement.Mode)
		assert.Equal(t, tool.RequireScoped, shown[1].Requirement.Mode, "asked again, shown the call as it is now")
	})
	t.Run("the answer it waited for is used once", func(t *testing.T) {
		aw := &awaiting{answer: answerWith(allow)}
		f := newFixture(t, tool.ApprovalOptions[struct{}]{Approver: aw})
		tooltest.WantOK(t, f.call("1", "write_file", `{"path":"a","content":"x"}`))
		p := aw.pending.Load()
		res := f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: "write_file", Args: []byte(`{"path":"a","content":"x"}`),
			Session: "conv", Approval: &tool.ApprovalAnswer{State: p.State, Decision: allow, Answerer: "page"}})
		tooltest.WantStatus(t, res, tool.StatusDenied)
		assert.ErrorIs(t, res.Err, tool.ErrApprovalState)
		assert.Equal(t, []string{"write a x"}, f.runs())
	})

	t.Run("ReturnPending ends the call with the pending approval", func(t *testing.T) {
		aw := &awaiting{answer: answerWith(allow)}
		f := newFixture(t, tool.ApprovalOptions[struct{}]{Approver: aw})
		res := f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "write_file", Args: []byte(`{"path":"a","content":"x"}`),
			Session: "team\u202e", ReturnPending: true})
		tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
		assert.Nil(t, aw.pending.Load(), "the approver did not wait")
		assert.Equal(t, "page", res.Pending.Answerer)
		assert.Equal(t, "team\u202e", res.Pending.Session, "the session as given")
		assert.Equal(t, `team\u202e`, res.Pending.Request.Session, "the session made visible")
		assert.Empty(t, f.runs())

		res = f.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "write_file", Args: []byte(`{"path":"a","content":"x"}`),
			Session: "team\u202e", Approval: &tool.ApprovalAnswer{State: res.Pending.State, Decision: allow, Answerer: "page"}})
		tooltest.WantOK(t, res)
	})

	t.Run("no answer within the approval timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			aw := &awaiting{answer: func(ctx context.Context, _ *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}}
			f := newFixture(t, tool.ApprovalOptions[struct{}]{Approver: aw, Timeout: time.Minute})
			start := time.Now()
			res := f.call("1", "write_file", `{"path":"a","content":"x"}`)
			tooltest.WantStatus(t, res, tool.StatusDenied)
			assert.ErrorIs(t, res.Err, tool.ErrApprovalTimeout)
			assert.Equal(t, time.Minute, time.Since(start))
			assert.Empty(t, f.runs())
		})
	})

	t.Run("the caller stops waiting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			aw := &awaiting{answer: func(ctx context.Context, _ *tool.PendingApproval) (*tool.ApprovalAnswer, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}}
			f := newFixture(t, tool.ApprovalOptions[struct{}]{Approver: aw})
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			res := f.reg.Call(ctx, struct{}{}, tool.Request{ID: "1", Name: "write_file", Args: []byte(`{"path":"a","content":"x"}`), Session: "conv"})
			tooltest.WantStatus(t, res, tool.StatusTimedOut)
			assert.Empty(t, f.runs())
		})
	})

	t.Run("an approver wrapped so it no longer waits returns the pending approval", func(t *testing.T) {
		aw := &awaiting{answer: answerWith(allow)}
		f := newFixture(t, tool.ApprovalOptions[struct{}]{Approver: tool.ApproverFunc(aw.Approve)})
		res := f.call("1", "write_file", `{"path":"a","content":"x"}`)
		tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
		assert.Equal(t, "page", res.Pending.Answerer)
	})
}
