package approvalweb_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// The page's approver holds the call until the page answers it, whoever
// made the call; a host that takes the pending approval back asks for it.
func TestApproverWaits(t *testing.T) {
	f := newFixture(t, nil)
	done := make(chan *tool.Result, 1)
	go func() {
		done <- f.reg.Call(context.Background(), struct{}{}, tool.Request{Name: "write_note", Args: []byte(`{"path":"a","text":"b"}`), Session: "conv-ada"})
	}()
	p := f.waiting("conv-ada")
	assert.Equal(t, "Write a", p.Request.Preview.Title)
	assert.Equal(t, approvalweb.Answerer, p.Answerer)
	assert.Empty(t, f.notes.get("a"), "nothing runs while the page waits")
	status, a := f.post("ada", answer(p.State, "allow_once"), nil)
	require.Equal(t, 200, status, a.Message)
	assert.Equal(t, tool.StatusOK, result(t, done).Status)
	assert.Equal(t, "b", f.notes.get("a"))
}

func TestApproverReturnsPending(t *testing.T) {
	f := newFixture(t, nil)
	res := f.reg.Call(context.Background(), struct{}{}, tool.Request{Name: "write_note", Args: []byte(`{"path":"a","text":"b"}`), Session: "conv-ada", ReturnPending: true})
	assert.Equal(t, tool.StatusAwaitingApproval, res.Status)
	require.NotNil(t, res.Pending)
	assert.Equal(t, "Write a", res.Pending.Request.Preview.Title)
	assert.Equal(t, approvalweb.Answerer, res.Pending.Answerer)
	assert.Empty(t, f.notes.get("a"))
}

// The terminal, a chat command or a rule answers through Answer: once,
// and the page and the waiting call see it.
func TestAnswerFromTheHost(t *testing.T) {
	f := newFixture(t, nil)
	done := f.call(context.Background(), "conv-ada", "write_note", `{"path":"a","text":"from the terminal"}`)
	p := f.waiting("conv-ada")
	require.NoError(t, f.page.Answer(context.Background(), p.State, tool.Decision{Kind: tool.DecisionAllowOnce}))
	assert.Equal(t, tool.StatusOK, result(t, done).Status)
	assert.Equal(t, "from the terminal", f.notes.get("a"))

	assert.ErrorIs(t, f.page.Answer(context.Background(), p.State, tool.Decision{Kind: tool.DecisionDeny}), approvalweb.ErrAnswered)
	assert.ErrorIs(t, f.page.Answer(context.Background(), "no-such-state", tool.Decision{}), tool.ErrPendingGone)
	_, page := f.get("ada", "")
	assert.Contains(t, page, "Nothing is waiting for your answer.")
}

// Unanswered until it expires: Await answers it with a deny, the page
// drops it, and the resumed call does not run.
func TestAwaitExpiry(t *testing.T) {
	f := newFixture(t, nil)
	f.reg = tool.NewRegistry[struct{}](nil)
	f.reg.MustAdd(f.notes.tools()...)
	f.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: f.page.Approver(), Timeout: 200 * time.Millisecond}))
	f.returnPending = true
	done := f.call(context.Background(), "conv-ada", "write_note", `{"path":"a","text":"late"}`)
	p := f.waiting("conv-ada")
	res := result(t, done)
	assert.Equal(t, tool.StatusDenied, res.Status)
	assert.Contains(t, res.Text(), "came too late")
	assert.Empty(t, f.notes.get("a"))
	d := f.answerOf(p.State)
	require.NotNil(t, d)
	assert.Equal(t, tool.DecisionDeny, d.Kind, "the expiry is recorded as the one answer")
	status, a := f.post("ada", answer(p.State, "allow_once"), nil)
	assert.Equal(t, 409, status)
	assert.Equal(t, "replayed", a.Code)
}

// The agent stops waiting: the approval leaves the page, and a person's
// answer after that is refused.
func TestAwaitCanceled(t *testing.T) {
	f := newFixture(t, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("the user closed the conversation")
	res := f.reg.Call(ctx, struct{}{}, tool.Request{Name: "write_note", Args: []byte(`{"path":"a","text":"b"}`), Session: "conv-ada", ReturnPending: true})
	require.NotNil(t, res.Pending)
	errs := make(chan error, 1)
	go func() {
		_, err := f.page.Await(ctx, res.Pending)
		errs <- err
	}()
	f.waiting("conv-ada")
	cancel(stop)
	select {
	case err := <-errs:
		assert.ErrorIs(t, err, stop)
	case <-time.After(10 * time.Second):
		t.Fatal("Await did not return when its context was cancelled")
	}
	ps, err := f.store.List(context.Background(), "conv-ada")
	require.NoError(t, err)
	assert.Empty(t, ps, "withdrawn from the page")
	status, a := f.post("ada", answer(res.Pending.State, "allow_once"), nil)
	assert.Equal(t, 409, status)
	assert.Equal(t, "replayed", a.Code)
}

func TestOfferRefused(t *testing.T) {
	f := newFixture(t, &approvalweb.Options{Store: failingStore{}})
	_, err := f.page.Await(context.Background(), nil)
	assert.ErrorContains(t, err, "needs a call's Result.Pending")
	res := f.reg.Call(context.Background(), struct{}{}, tool.Request{Name: "write_note", Args: []byte(`{"path":"a","text":"b"}`), Session: "conv-ada", ReturnPending: true})
	_, err = f.page.Await(context.Background(), res.Pending)
	assert.ErrorIs(t, err, errUnreachable)
	assert.ErrorContains(t, err, "approvalweb: the approval could not be offered")
}

// A store that loses an approval (a Redis flushed) cannot have it
// answered any more: the call is denied rather than left waiting.
func TestAwaitStoreLostTheApproval(t *testing.T) {
	store := &forgetfulStore{PendingApprovalStore: tool.NewMemoryPendingApprovalStore(0)}
	f := newFixture(t, &approvalweb.Options{Store: store, Poll: 10 * time.Millisecond})
	done := f.call(context.Background(), "conv-ada", "write_note", `{"path":"a","text":"b"}`)
	f.waiting("conv-ada")
	store.forget.Store(true)
	res := result(t, done)
	assert.Equal(t, tool.StatusDenied, res.Status)
	assert.Empty(t, f.notes.get("a"))
}

type forgetfulStore struct {
	tool.PendingApprovalStore
	forget atomic.Bool
}

func (s *forgetfulStore) Get(ctx context.Context, state string) (*tool.PendingApproval, *tool.Decision, error) {
	if s.forget.Load() {
		return nil, nil, tool.ErrPendingGone
	}
	return s.PendingApprovalStore.Get(ctx, state)
}
