package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	"github.com/toolbelt-go/tool/tooltest"
)

// taskTools is a registry with the tools the task tests run, and how often
// each ran.
type taskTools struct {
	reg     *tool.Registry[struct{}]
	release chan struct{} // closing it lets "wait" return
	runs    atomic.Int32
}

func newTaskTools(t *testing.T, opts *tool.RegistryOptions, mws ...tool.Middleware[struct{}]) *taskTools {
	t.Helper()
	tt := &taskTools{reg: tool.NewRegistry[struct{}](opts), release: make(chan struct{})}
	type sleepIn struct {
		MS int `json:"ms"`
	}
	tt.reg.MustAdd(
		tool.New(tool.Definition{Name: "sleep", Description: "Sleeps.", Safety: tool.SafetyReadOnly, Task: tool.TaskMay,
			Timeout: 50 * time.Millisecond, TaskTimeout: 10 * time.Second},
			func(ctx context.Context, in sleepIn) (string, error) {
				tt.runs.Add(1)
				tool.ReportProgress(ctx, tool.Progress{Message: "sleeping", Done: 1, Total: 2})
				select {
				case <-time.After(time.Duration(in.MS) * time.Millisecond):
					return "slept", nil
				case <-ctx.Done():
					return "", context.Cause(ctx)
				}
			}),
		tool.New(tool.Definition{Name: "wait", Description: "Waits to be released.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
			func(ctx context.Context, _ struct{}) (string, error) {
				tt.runs.Add(1)
				tool.ReportProgress(ctx, tool.Progress{Message: "waiting", Done: 1, Total: 2})
				select {
				case <-tt.release:
					return "released", nil
				case <-ctx.Done():
					return "", context.Cause(ctx)
				}
			}),
		tool.New(tool.Definition{Name: "deploy", Description: "Deploys.", Safety: tool.SafetyMutating, Task: tool.TaskMay},
			func(context.Context, struct{}) (string, error) { tt.runs.Add(1); return "deployed", nil }),
		tool.New(tool.Definition{Name: "crash", Description: "Panics.", Safety: tool.SafetyReadOnly, Task: tool.TaskMay},
			func(context.Context, struct{}) (string, error) { panic("boom") }),
		tool.New(tool.Definition{Name: "ask", Description: "Asks for two names.", Safety: tool.SafetyReadOnly, Task: tool.TaskMust},
			func(ctx context.Context, _ struct{}) (string, error) {
				got, err := tool.AskInput(ctx, map[string]json.RawMessage{"first": json.RawMessage(`"first name?"`), "last": json.RawMessage(`"last name?"`)})
				if err != nil {
					return "", err
				}
				return string(got["first"]) + " " + string(got["last"]), nil
			}),
		tool.New(tool.Definition{Name: "plain", Description: "Runs within its call.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (string, error) { return "plain", nil }),
	)
	tt.reg.Use(mws...)
	return tt
}

func awaitTask[C any](t *testing.T, ts *tool.Tasks[C], session, id string) *tool.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	task, err := ts.Await(ctx, session, id)
	require.NoError(t, err)
	return task
}

func TestTaskLifecycle(t *testing.T) {
	tt := newTaskTools(t, nil)
	ts := tool.NewTasks(tt.reg, &tool.TaskOptions{PollInterval: 10 * time.Millisecond})
	defer ts.Close()
	ctx := context.Background()

	t.Run("a task outlives its call's Timeout with its TaskTimeout", func(t *testing.T) {
		plain := tt.reg.Call(ctx, struct{}{}, tool.Request{Name: "sleep", Args: json.RawMessage(`{"ms":200}`)})
		assert.Equal(t, tool.StatusTimedOut, plain.Status, "as a plain call, Timeout bounds it")
		task, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "sleep", Args: json.RawMessage(`{"ms":200}`), Session: "s"})
		require.NoError(t, err)
		assert.Equal(t, tool.TaskWorking, task.Status)
		assert.Len(t, task.ID, 32)
		got, err := ts.Get(ctx, "s", task.ID)
		require.NoError(t, err, "a task is readable as soon as Start returns")
		assert.Equal(t, task.ID, got.ID)
		done := awaitTask(t, ts, "s", task.ID)
		assert.Equal(t, tool.TaskCompleted, done.Status)
		require.NotNil(t, done.Result)
		assert.Equal(t, "slept", done.Result.Text())
		assert.Equal(t, tool.StatusOK, done.Result.Status)
	})
	t.Run("another session cannot read it", func(t *testing.T) {
		task, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "sleep", Args: json.RawMessage(`{"ms":1}`), Session: "s"})
		require.NoError(t, err)
		_, err = ts.Get(ctx, "other", task.ID)
		assert.ErrorIs(t, err, tool.ErrTaskNotFound)
		assert.ErrorIs(t, ts.Cancel(ctx, "other", task.ID), tool.ErrTaskNotFound)
		awaitTask(t, ts, "s", task.ID)
	})
	t.Run("cancel", func(t *testing.T) {
		task, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "wait", Session: "s"})
		require.NoError(t, err)
		require.NoError(t, ts.Cancel(ctx, "s", task.ID))
		done := awaitTask(t, ts, "s", task.ID)
		assert.Equal(t, tool.TaskCancelled, done.Status)
		require.NoError(t, ts.Cancel(ctx, "s", task.ID), "cancelling an ended task does nothing")
	})
	t.Run("a tool error is a completed task", func(t *testing.T) {
		task, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "sleep", Args: json.RawMessage(`{"ms":"x"}`), Session: "s"})
		require.NoError(t, err)
		done := awaitTask(t, ts, "s", task.ID)
		assert.Equal(t, tool.TaskCompleted, done.Status)
		assert.True(t, done.Result.IsError)
		assert.Equal(t, tool.StatusInvalid, done.Result.Status, "preflight ran in the task")
	})
	t.Run("a panic fails the task", func(t *testing.T) {
		task, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "crash", Session: "s"})
		require.NoError(t, err)
		done := awaitTask(t, ts, "s", task.ID)
		assert.Equal(t, tool.TaskFailed, done.Status)
		assert.Contains(t, done.Cause, "panicked")
		assert.Nil(t, done.Result)
	})
	t.Run("a tool that never runs as a task", func(t *testing.T) {
		_, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "plain", Session: "s"})
		assert.ErrorIs(t, err, tool.ErrNoTask)
		_, err = ts.Start(ctx, struct{}{}, tool.Request{Name: "nope", Session: "s"})
		assert.ErrorIs(t, err, tool.ErrNoTask)
	})
	t.Run("list", func(t *testing.T) {
		list, err := ts.List(ctx, "s")
		require.NoError(t, err)
		assert.GreaterOrEqual(t, len(list), 4)
		for i := 1; i < len(list); i++ {
			assert.False(t, list[i].Created.Before(list[i-1].Created))
		}
	})
}

func TestTaskSessionLimits(t *testing.T) {
	tt := newTaskTools(t, nil)
	ts := tool.NewTasks(tt.reg, &tool.TaskOptions{MaxSessionTasks: 2, MaxSessionBytes: 64 << 10})
	defer ts.Close()
	defer close(tt.release)
	ctx := context.Background()
	for range 2 {
		_, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "wait", Session: "flood"})
		require.NoError(t, err)
	}
	_, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "wait", Session: "flood"})
	assert.ErrorIs(t, err, tool.ErrTaskLimit)
	_, err = ts.Start(ctx, struct{}{}, tool.Request{Name: "wait", Session: "quiet"})
	assert.NoError(t, err, "another session is not refused")

	store := tool.NewMemoryTaskStore()
	err = store.Create(ctx, "s", "a", string(make([]byte, 100)), time.Now().Add(time.Hour), tool.TaskLimits{Bytes: 150})
	require.NoError(t, err)
	err = store.Create(ctx, "s", "b", string(make([]byte, 100)), time.Now().Add(time.Hour), tool.TaskLimits{Bytes: 150})
	assert.ErrorIs(t, err, tool.ErrTaskLimit, "bytes are bounded per session")
	err = store.Create(ctx, "s", "c", "x", time.Now().Add(-time.Second), tool.TaskLimits{})
	require.NoError(t, err)
	_, err = store.Get(ctx, "s", "c")
	assert.ErrorIs(t, err, tool.ErrTaskNotFound, "an expired task is gone")
}

// deferTo is an approver that defers every call to answerer.
func deferTo(answerer string) tool.Approver {
	return tool.ApproverFunc(func(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
		return tool.Decision{Kind: tool.DecisionDefer, Answerer: answerer}, nil
	})
}

func TestTaskApprovalRelayed(t *testing.T) {
	keys, err := keyring.FromSecret([]byte("a shared secret of at least 32 bytes!"))
	require.NoError(t, err)
	approvals := tool.NewMemoryApprovalStore(0)
	store := tool.NewMemoryTaskStore()
	replica := func() (*taskTools, *tool.Tasks[struct{}]) {
		tt := newTaskTools(t, &tool.RegistryOptions{Keyring: keys},
			tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: deferTo("frontend"), Store: approvals}))
		return tt, tool.NewTasks(tt.reg, &tool.TaskOptions{Store: store, Answerer: "frontend", PollInterval: 10 * time.Millisecond})
	}
	aTools, a := replica()
	bTools, b := replica()
	defer a.Close()
	defer b.Close()
	ctx := context.Background()

	task, err := a.Start(ctx, struct{}{}, tool.Request{Name: "deploy", Session: "s"})
	require.NoError(t, err)
	got := awaitTask(t, a, "s", task.ID)
	require.Equal(t, tool.TaskInputRequired, got.Status)
	require.NotNil(t, got.Pending)
	assert.NotEmpty(t, got.PendingKey)
	assert.Equal(t, "deploy", got.Pending.Request.Tool)
	assert.Zero(t, aTools.runs.Load()+bTools.runs.Load(), "nothing runs before the answer")

	allow := tool.Decision{Kind: tool.DecisionAllowOnce}
	answer := tool.TaskAnswer{Approval: &allow, ApprovalKey: got.PendingKey, Answerer: "frontend"}
	require.NoError(t, b.Answer(ctx, struct{}{}, "s", task.ID, answer), "the answer may reach another replica")
	done := awaitTask(t, b, "s", task.ID)
	assert.Equal(t, tool.TaskCompleted, done.Status)
	assert.Equal(t, "deployed", done.Result.Text())
	assert.Equal(t, int32(1), bTools.runs.Load(), "it resumed on the replica that received the answer")
	assert.Zero(t, aTools.runs.Load())
	err = a.Answer(ctx, struct{}{}, "s", task.ID, answer)
	assert.ErrorIs(t, err, tool.ErrTaskState, "a second answer runs nothing")
	assert.Equal(t, int32(1), aTools.runs.Load()+bTools.runs.Load())

	t.Run("a deferral to another answerer is not relayed", func(t *testing.T) {
		tt := newTaskTools(t, &tool.RegistryOptions{Keyring: keys},
			tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: deferTo("the page"), Store: approvals}))
		ts := tool.NewTasks(tt.reg, &tool.TaskOptions{Answerer: "frontend", PollInterval: 10 * time.Millisecond})
		defer ts.Close()
		task, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "deploy", Session: "s"})
		require.NoError(t, err)
		done := awaitTask(t, ts, "s", task.ID)
		assert.Equal(t, tool.TaskCompleted, done.Status)
		assert.Equal(t, tool.StatusAwaitingApproval, done.Result.Status)
		assert.Nil(t, done.Pending, "the frontend is not asked what the host gave to another")
		assert.Zero(t, tt.runs.Load())
	})
	t.Run("cancel while waiting for the answer", func(t *testing.T) {
		task, err := a.Start(ctx, struct{}{}, tool.Request{Name: "deploy", Session: "s"})
		require.NoError(t, err)
		waiting := awaitTask(t, a, "s", task.ID)
		require.Equal(t, tool.TaskInputRequired, waiting.Status)
		require.NoError(t, b.Cancel(ctx, "s", task.ID))
		got, err := a.Get(ctx, "s", task.ID)
		require.NoError(t, err)
		assert.Equal(t, tool.TaskCancelled, got.Status)
		answer := tool.TaskAnswer{Approval: &allow, ApprovalKey: waiting.PendingKey, Answerer: "frontend"}
		assert.ErrorIs(t, a.Answer(ctx, struct{}{}, "s", task.ID, answer), tool.ErrTaskState)
	})
}

// taskShell is a tool that records the commands it runs: rm deletes
// (asked about every time), anything else writes.
func taskShell(ran *[]string, mu *sync.Mutex) tool.AnyTool {
	type in struct {
		Command string `json:"command"`
	}
	classify := func(v in) tool.Safety {
		if strings.HasPrefix(v.Command, "rm") {
			return tool.SafetyDestructive
		}
		return tool.SafetyMutating
	}
	return tool.WithApprovalHooks(tool.New(tool.Definition{Name: "shell", Description: "Runs a command.", Safety: tool.SafetyMutating, Task: tool.TaskMay},
		func(_ context.Context, v in) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			*ran = append(*ran, v.Command)
			return "ran " + v.Command, nil
		}), tool.ApprovalHooks[in]{Classify: classify, Require: func(v in) tool.Requirement {
		if classify(v) == tool.SafetyDestructive {
			return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "deletes files"}
		}
		return tool.Requirement{}
	}})
}

// afterReplace is a task store that calls after once a Replace has landed.
type afterReplace struct {
	tool.TaskStore
	after atomic.Pointer[func()]
}

func (s *afterReplace) Replace(ctx context.Context, session, id, old, value string, expires time.Time, maxBytes int64) (bool, error) {
	ok, err := s.TaskStore.Replace(ctx, session, id, old, value, expires, maxBytes)
	if f := s.after.Swap(nil); ok && f != nil {
		(*f)()
	}
	return ok, err
}

// An approval answer is taken once, for the question it was given for,
// from the party the call was deferred to; a cancel acknowledged before
// the resumed call starts stops it.
func TestTaskApprovalAnswers(t *testing.T) {
	keys, err := keyring.FromSecret([]byte("a shared secret of at least 32 bytes!"))
	require.NoError(t, err)
	ctx := context.Background()
	allow := tool.Decision{Kind: tool.DecisionAllowOnce}
	type replica struct {
		tasks *tool.Tasks[struct{}]
		ran   []string
		mu    sync.Mutex
	}
	replicas := func(t *testing.T, store tool.TaskStore, n int) []*replica {
		approvals := tool.NewMemoryApprovalStore(0)
		var rs []*replica
		for range n {
			r := &replica{}
			reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys})
			reg.MustAdd(taskShell(&r.ran, &r.mu))
			reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: deferTo("frontend"), Store: approvals}))
			r.tasks = tool.NewTasks(reg, &tool.TaskOptions{Store: store, Answerer: "frontend", PollInterval: 5 * time.Millisecond})
			t.Cleanup(r.tasks.Close)
			rs = append(rs, r)
		}
		return rs
	}
	ranAll := func(rs []*replica) []string {
		var all []string
		for _, r := range rs {
			r.mu.Lock()
			all = append(all, r.ran...)
			r.mu.Unlock()
		}
		return all
	}
	start := func(t *testing.T, r *replica, command string) *tool.Task {
		task, err := r.tasks.Start(ctx, struct{}{}, tool.Request{Name: "shell", Args: json.RawMessage(`{"command":"` + command + `"}`), Session: "s"})
		require.NoError(t, err)
		got := awaitTask(t, r.tasks, "s", task.ID)
		require.Equal(t, tool.TaskInputRequired, got.Status)
		return got
	}

	t.Run("two answers at once on two replicas: one is taken, the other refused", func(t *testing.T) {
		rs := replicas(t, tool.NewMemoryTaskStore(), 2)
		deny := tool.Decision{Kind: tool.DecisionDeny, Reason: "no"}
		allowed := 0
		for range 20 {
			task := start(t, rs[0], "touch a")
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i, d := range []tool.Decision{allow, deny} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = rs[i].tasks.Answer(ctx, struct{}{}, "s", task.ID, tool.TaskAnswer{Approval: &d, ApprovalKey: task.PendingKey, Answerer: "frontend"})
				}()
			}
			wg.Wait()
			done := awaitTask(t, rs[0].tasks, "s", task.ID)
			taken := 0
			for _, err := range errs {
				if err == nil {
					taken++
				} else {
					assert.ErrorIs(t, err, tool.ErrTaskState)
				}
			}
			require.Equal(t, 1, taken, "of two answers at once, exactly one is taken (errors %v)", errs)
			if errs[0] == nil {
				allowed++
				assert.Equal(t, tool.StatusOK, done.Result.Status)
			} else {
				assert.Equal(t, tool.StatusDenied, done.Result.Status)
			}
		}
		assert.Len(t, ranAll(rs), allowed, "the call ran once for each answer taken that allowed it")
	})
	t.Run("an answer to an earlier question is not taken for the next", func(t *testing.T) {
		rs := replicas(t, tool.NewMemoryTaskStore(), 1)
		ts := rs[0].tasks
		task := start(t, rs[0], "touch a")
		edit := tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(`{"command":"rm -rf src"}`)}
		first := tool.TaskAnswer{Approval: &edit, ApprovalKey: task.PendingKey, Answerer: "frontend"}
		require.NoError(t, ts.Answer(ctx, struct{}{}, "s", task.ID, first))
		again := awaitTask(t, ts, "s", task.ID)
		require.Equal(t, tool.TaskInputRequired, again.Status, "an edit into a delete is asked about again, as a delete")
		require.NotEqual(t, task.PendingKey, again.PendingKey)
		assert.JSONEq(t, `{"command":"rm -rf src"}`, string(again.Pending.Request.Args))

		// The person's first answer, sent again (a retried request), and
		// a second click on the first question's "allow".
		assert.ErrorIs(t, ts.Answer(ctx, struct{}{}, "s", task.ID, first), tool.ErrTaskState)
		late := tool.TaskAnswer{Approval: &allow, ApprovalKey: task.PendingKey, Answerer: "frontend"}
		assert.ErrorIs(t, ts.Answer(ctx, struct{}{}, "s", task.ID, late), tool.ErrTaskState)
		still, err := ts.Get(ctx, "s", task.ID)
		require.NoError(t, err)
		assert.Equal(t, tool.TaskInputRequired, still.Status, "the delete still waits for its own answer")
		assert.Empty(t, ranAll(rs), "nothing ran that no one allowed")

		deny := tool.Decision{Kind: tool.DecisionDeny, Reason: "not that"}
		require.NoError(t, ts.Answer(ctx, struct{}{}, "s", task.ID, tool.TaskAnswer{Approval: &deny, ApprovalKey: again.PendingKey, Answerer: "frontend"}))
		done := awaitTask(t, ts, "s", task.ID)
		assert.Equal(t, tool.StatusDenied, done.Result.Status)
		assert.Empty(t, ranAll(rs))
	})
	t.Run("an answer from another party is refused, and the task still waits", func(t *testing.T) {
		rs := replicas(t, tool.NewMemoryTaskStore(), 1)
		ts := rs[0].tasks
		task := start(t, rs[0], "touch b")
		for _, who := range []string{"", "mcp", "frontend\u0000"} {
			err := ts.Answer(ctx, struct{}{}, "s", task.ID, tool.TaskAnswer{Approval: &allow, ApprovalKey: task.PendingKey, Answerer: who})
			assert.ErrorIs(t, err, tool.ErrOtherAnswerer, "answerer %q", who)
			assert.ErrorIs(t, err, tool.ErrTaskState)
		}
		got, err := ts.Get(ctx, "s", task.ID)
		require.NoError(t, err)
		assert.Equal(t, tool.TaskInputRequired, got.Status)
		assert.Empty(t, ranAll(rs))
		require.NoError(t, ts.Answer(ctx, struct{}{}, "s", task.ID, tool.TaskAnswer{Approval: &allow, ApprovalKey: task.PendingKey, Answerer: "frontend"}))
		assert.Equal(t, tool.StatusOK, awaitTask(t, ts, "s", task.ID).Result.Status)
		assert.Equal(t, []string{"touch b"}, ranAll(rs))
	})
	t.Run("a deferral the task does not relay comes back with its pending approval", func(t *testing.T) {
		// The host's own approver, or ReturnPending: the task ends with
		// the call's pending approval, which the host resumes.
		var ran []string
		var mu sync.Mutex
		reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys})
		reg.MustAdd(taskShell(&ran, &mu))
		reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: deferTo("host")}))
		ts := tool.NewTasks(reg, &tool.TaskOptions{Store: tool.NewMemoryTaskStore(), Answerer: "frontend", PollInterval: 5 * time.Millisecond})
		defer ts.Close()
		req := tool.Request{ID: "call-1", Name: "shell", Args: json.RawMessage(`{"command":"touch d"}`), Session: "s", ReturnPending: true}
		task, err := ts.Start(ctx, struct{}{}, req)
		require.NoError(t, err)
		done := awaitTask(t, ts, "s", task.ID)
		require.Equal(t, tool.TaskCompleted, done.Status)
		require.Equal(t, tool.StatusAwaitingApproval, done.Result.Status)
		require.NotNil(t, done.Result.Pending, "the host can resume the call")
		assert.Equal(t, "host", done.Result.Pending.Answerer)
		req.Args = done.Result.Pending.Request.Args
		req.Approval = &tool.ApprovalAnswer{State: done.Result.Pending.State, Decision: allow, Answerer: "host"}
		tooltest.WantOK(t, reg.Call(ctx, struct{}{}, req))
		assert.Equal(t, []string{"touch d"}, ran)
	})
	t.Run("a session too full to keep the question: the model is told the call did not run", func(t *testing.T) {
		var ran []string
		var mu sync.Mutex
		reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys})
		reg.MustAdd(taskShell(&ran, &mu))
		reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: deferTo("frontend")}))
		// Room for the task as started, not for it with its question.
		ts := tool.NewTasks(reg, &tool.TaskOptions{Answerer: "frontend", MaxSessionBytes: 2 << 10, PollInterval: 5 * time.Millisecond})
		defer ts.Close()
		task, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "shell", Args: json.RawMessage(`{"command":"touch ` + strings.Repeat("x", 1500) + `"}`), Session: "s"})
		require.NoError(t, err)
		done := awaitTask(t, ts, "s", task.ID)
		require.Equal(t, tool.TaskCompleted, done.Status)
		assert.Empty(t, ran)
		assert.Contains(t, done.Result.Text(), "did not run")
		assert.NotContains(t, done.Result.Text(), "Do not run it again")
	})
	t.Run("a cancel acknowledged while the answer is in flight stops the call", func(t *testing.T) {
		store := &afterReplace{TaskStore: tool.NewMemoryTaskStore()}
		rs := replicas(t, store, 1)
		ts := rs[0].tasks
		task := start(t, rs[0], "touch c")
		var cancelErr error
		cancelNow := func() { cancelErr = ts.Cancel(ctx, "s", task.ID) }
		store.after.Store(&cancelNow) // once the answer is written, before the call resumes
		require.NoError(t, ts.Answer(ctx, struct{}{}, "s", task.ID, tool.TaskAnswer{Approval: &allow, ApprovalKey: task.PendingKey, Answerer: "frontend"}))
		require.NoError(t, cancelErr)
		done := awaitTask(t, ts, "s", task.ID)
		assert.Equal(t, tool.TaskCancelled, done.Status)
		assert.Empty(t, ranAll(rs), "the cancel was acknowledged before the tool started")
	})
}

func TestTaskAskInput(t *testing.T) {
	tt := newTaskTools(t, nil)
	ts := tool.NewTasks(tt.reg, &tool.TaskOptions{PollInterval: 10 * time.Millisecond})
	defer ts.Close()
	ctx := context.Background()
	task, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "ask", Session: "s"})
	require.NoError(t, err)
	got := awaitTask(t, ts, "s", task.ID)
	require.Equal(t, tool.TaskInputRequired, got.Status)
	require.Len(t, got.Input, 2)
	var first, last string
	for k := range got.Input {
		switch string(got.Input[k]) {
		case `"first name?"`:
			first = k
		case `"last name?"`:
			last = k
		}
	}
	require.NotEmpty(t, first)
	require.NotEmpty(t, last)

	require.NoError(t, ts.Answer(ctx, struct{}{}, "s", task.ID, tool.TaskAnswer{Input: map[string]json.RawMessage{first: json.RawMessage(`"Ada"`), "unknown": json.RawMessage(`1`)}}))
	got, err = ts.Get(ctx, "s", task.ID)
	require.NoError(t, err)
	assert.Equal(t, tool.TaskInputRequired, got.Status, "one question is still open")
	assert.Equal(t, []string{last}, keysOf(got.Input))

	require.NoError(t, ts.Answer(ctx, struct{}{}, "s", task.ID, tool.TaskAnswer{Input: map[string]json.RawMessage{last: json.RawMessage(`"Lovelace"`)}}))
	done := awaitTask(t, ts, "s", task.ID)
	assert.Equal(t, tool.TaskCompleted, done.Status)
	assert.Equal(t, `"Ada" "Lovelace"`, done.Result.Text())

	_, err = tool.AskInput(ctx, nil)
	assert.ErrorIs(t, err, tool.ErrNoTask, "outside a task")
}

func keysOf(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// cutStore is a TaskStore whose writes fail once cut: a replica that lost
// its store, or died, as the other replicas see it.
type cutStore struct {
	tool.TaskStore
	cut atomic.Bool
}

var errCut = errors.New("the store is out of reach")

func (c *cutStore) Replace(ctx context.Context, session, id, old, value string, expires time.Time, maxBytes int64) (bool, error) {
	if c.cut.Load() {
		return false, errCut
	}
	return c.TaskStore.Replace(ctx, session, id, old, value, expires, maxBytes)
}

func TestTaskReplicas(t *testing.T) {
	shared := tool.NewMemoryTaskStore()
	const lease = 300 * time.Millisecond
	aStore := &cutStore{TaskStore: shared}
	aTools := newTaskTools(t, nil)
	bTools := newTaskTools(t, nil)
	a := tool.NewTasks(aTools.reg, &tool.TaskOptions{Store: aStore, Lease: lease, PollInterval: 10 * time.Millisecond, Replica: "a"})
	b := tool.NewTasks(bTools.reg, &tool.TaskOptions{Store: shared, Lease: lease, PollInterval: 10 * time.Millisecond, Replica: "b"})
	defer b.Close()
	ctx := context.Background()

	t.Run("started on A, polled and cancelled on B", func(t *testing.T) {
		task, err := a.Start(ctx, struct{}{}, tool.Request{Name: "wait", Session: "s"})
		require.NoError(t, err)
		got, err := b.Get(ctx, "s", task.ID)
		require.NoError(t, err)
		assert.Equal(t, tool.TaskWorking, got.Status)
		require.Eventually(t, func() bool {
			got, err := b.Get(ctx, "s", task.ID)
			return err == nil && got.Progress != nil && got.Progress.Message == "waiting"
		}, 10*time.Second, 10*time.Millisecond, "A's progress reaches B with the heartbeat")
		require.NoError(t, b.Cancel(ctx, "s", task.ID))
		done := awaitTask(t, b, "s", task.ID)
		assert.Equal(t, tool.TaskCancelled, done.Status, "the cancel reached A")
		assert.Equal(t, int32(1), aTools.runs.Load())
		assert.Zero(t, bTools.runs.Load())
	})
	t.Run("A stops renewing: the task fails within the lease", func(t *testing.T) {
		task, err := a.Start(ctx, struct{}{}, tool.Request{Name: "wait", Session: "s"})
		require.NoError(t, err)
		aStore.cut.Store(true)
		cut := time.Now()
		var got *tool.Task
		require.Eventually(t, func() bool {
			got, err = b.Get(ctx, "s", task.ID)
			return err == nil && got.Status == tool.TaskFailed
		}, 20*lease, 10*time.Millisecond)
		assert.Less(t, time.Since(cut), 10*lease, "a bound, to catch a hang, not a timing")
		assert.Contains(t, got.Cause, "stopped")
		assert.Contains(t, got.Cause, `a has not renewed`)
		aStore.cut.Store(false)
		// A learns that it lost the task at its next heartbeat, and stops it.
		a.Close()
		got, err = b.Get(ctx, "s", task.ID)
		require.NoError(t, err)
		assert.Equal(t, tool.TaskFailed, got.Status, "never re-run, never completed after the fact")
		assert.Zero(t, bTools.runs.Load())
	})
}

func TestTaskFollow(t *testing.T) {
	tt := newTaskTools(t, nil)
	ts := tool.NewTasks(tt.reg, &tool.TaskOptions{PollInterval: 10 * time.Millisecond})
	defer ts.Close()
	ctx := context.Background()

	res, task := ts.Follow(ctx, struct{}{}, tool.Request{Name: "sleep", Args: json.RawMessage(`{"ms":1}`), Session: "s"}, 5*time.Second)
	assert.Equal(t, "slept", res.Text(), "a call that ends in time is answered as a plain call")
	require.NotNil(t, task)
	res, task = ts.Follow(ctx, struct{}{}, tool.Request{Name: "wait", Session: "s"}, 20*time.Millisecond)
	assert.Equal(t, tool.StatusOK, res.Status)
	assert.Contains(t, res.Text(), "still running, as task "+task.ID)
	collected, err := ts.Collect(ctx, "s")
	require.NoError(t, err)
	assert.Empty(t, collected, "the first one was given already; the second has not ended")
	close(tt.release)
	awaitTask(t, ts, "s", task.ID)
	collected, err = ts.Collect(ctx, "s")
	require.NoError(t, err)
	require.Len(t, collected, 1)
	assert.Equal(t, task.ID, collected[0].ID)
	assert.Contains(t, collected[0].Note(), "released")
	collected, err = ts.Collect(ctx, "s")
	require.NoError(t, err)
	assert.Empty(t, collected, "collected once")

	res, task = ts.Follow(ctx, struct{}{}, tool.Request{Name: "plain", Session: "s"}, time.Second)
	assert.Equal(t, "plain", res.Text())
	assert.Nil(t, task, "a tool that never runs as a task is a plain call")

	t.Run("a task that waits for its approval tells the model it has not run", func(t *testing.T) {
		tt := newTaskTools(t, nil, tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: deferTo("frontend")}))
		ts := tool.NewTasks(tt.reg, &tool.TaskOptions{Answerer: "frontend", PollInterval: 5 * time.Millisecond})
		defer ts.Close()
		res, task := ts.Follow(ctx, struct{}{}, tool.Request{ID: "call-2", Name: "deploy", Session: "s"}, 5*time.Second)
		tooltest.WantStatus(t, res, tool.StatusAwaitingApproval)
		require.NotNil(t, res.Pending)
		assert.Equal(t, "call-2", res.CallID)
		assert.Contains(t, res.Text(), "has not run", "the model reads what became of its call")
		allow := tool.Decision{Kind: tool.DecisionAllowOnce}
		require.NoError(t, ts.Answer(ctx, struct{}{}, "s", task.ID, tool.TaskAnswer{Approval: &allow, ApprovalKey: task.PendingKey, Answerer: "frontend"}))
		awaitTask(t, ts, "s", task.ID)
		collected, err := ts.Collect(ctx, "s")
		require.NoError(t, err)
		require.Len(t, collected, 1)
		assert.Contains(t, collected[0].Note(), "deployed")
	})
}

func TestTaskConcurrentUpdates(t *testing.T) {
	tt := newTaskTools(t, nil)
	ts := tool.NewTasks(tt.reg, &tool.TaskOptions{PollInterval: 5 * time.Millisecond, Lease: 30 * time.Millisecond})
	defer ts.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task, err := ts.Start(ctx, struct{}{}, tool.Request{Name: "sleep", Args: json.RawMessage(`{"ms":20}`), Session: "s"})
			if !assert.NoError(t, err) {
				return
			}
			if i%2 == 0 {
				assert.NoError(t, ts.Cancel(ctx, "s", task.ID))
			}
			done := awaitTask(t, ts, "s", task.ID)
			assert.True(t, done.Status.Terminal())
		}()
	}
	wg.Wait()
}

// BenchmarkTask is the cost of running a call as a task (start it, await
// its result from the memory store) against the plain call of the same
// tool, in the same run: docs/speed.md quotes the ratio.
func BenchmarkTask(b *testing.B) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "echo", Description: "Echoes.", Safety: tool.SafetyReadOnly, Task: tool.TaskMay},
		func(_ context.Context, in struct {
			Text string `json:"text"`
		}) (string, error) {
			return in.Text, nil
		}))
	ts := tool.NewTasks(reg, &tool.TaskOptions{MaxSessionTasks: -1, MaxSessionBytes: -1})
	defer ts.Close()
	ctx := context.Background()
	req := tool.Request{Name: "echo", Args: json.RawMessage(`{"text":"hello"}`), Session: "bench"}
	b.Run("call", func(b *testing.B) {
		for b.Loop() {
			if res := reg.Call(ctx, struct{}{}, req); res.Status != tool.StatusOK {
				b.Fatal(res.Text())
			}
		}
	})
	b.Run("task", func(b *testing.B) {
		for b.Loop() {
			task, err := ts.Start(ctx, struct{}{}, req)
			if err != nil {
				b.Fatal(err)
			}
			if task, err = ts.Await(ctx, "bench", task.ID); err != nil || task.Status != tool.TaskCompleted {
				b.Fatal(err, task.Status)
			}
		}
	})
}
