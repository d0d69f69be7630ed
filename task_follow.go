package tool

import (
	"context"
	"time"
)

// Follow runs req as a task and waits up to wait for it: a call that ends
// in time is answered as a plain call would be (its result, and the task
// is collected). One that does not gets a result saying that it goes on
// as a task whose result comes in a later turn, and the task: the host
// hands the model the tasks [Tasks.Collect] returns at the start of each
// later turn. The model asks nothing to follow it (no status tool to call
// turn after turn, each a round trip and tokens, and only if the prompt
// says so); the host, which knows when the task ended, tells it.
//
// A tool whose Definition's Task is TaskNever is called as a plain call
// (with no task); so is every call when wait is negative. A task that
// needs an approval relayed through its frontend ([TaskOptions].Answerer)
// comes back as the pending approval it is, StatusAwaitingApproval (the
// model reads that the call has not run yet), for the host to resume with
// [Tasks.Answer] and the task's PendingKey.
func (t *Tasks[C]) Follow(ctx context.Context, state C, req Request, wait time.Duration) (*Result, *Task) {
	if tl, ok := t.reg.Lookup(req.Name); wait < 0 || !ok || tl.Definition().Task == TaskNever {
		return t.reg.Call(ctx, state, req), nil
	}
	task, err := t.Start(ctx, state, req)
	if err != nil {
		res := failed(StatusLimited, err, taskNotStarted(req.Name))
		res.Tool, res.CallID = req.Name, req.ID
		return res, nil
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if got, err := t.Await(wctx, task.Session, task.ID); err == nil {
		task = got
	}
	if task.Status.Terminal() {
		t.collect(ctx, task)
		return taskOutcome(task), task
	}
	if task.Status == TaskInputRequired && task.Pending != nil {
		res := awaitingResult(task.Tool, task.Pending)
		res.Tool, res.CallID = task.Tool, task.CallID
		return res, task
	}
	res := &Result{owned: true, Status: StatusOK, Tool: task.Tool, CallID: task.CallID,
		Content: []Content{TextContent(taskGoesOn(task.Tool, task.ID))}}
	return res, task
}

// Collect returns the tasks of session that ended since the last Collect
// (or Follow that returned them), oldest first, and marks them collected:
// a host calls it at the start of each turn and gives the model each
// one's [Task.Note].
func (t *Tasks[C]) Collect(ctx context.Context, session string) ([]*Task, error) {
	all, err := t.List(ctx, session)
	if err != nil {
		return nil, err
	}
	var out []*Task
	for _, task := range all {
		if !task.Status.Terminal() {
			continue
		}
		if t.collect(ctx, task) {
			out = append(out, task)
		}
	}
	return out, nil
}

// collect marks task collected; it reports whether this call did.
func (t *Tasks[C]) collect(ctx context.Context, task *Task) bool {
	mine := false
	_, _ = t.update(ctx, task.Session, task.ID, func(s *taskState) bool {
		mine = !s.Collected
		s.Collected = true
		return mine
	})
	return mine
}

// Note is what the model is told of the task once it has ended: which call
// it was, and its result or why there is none.
func (task *Task) Note() string { return taskNote(task) }

// taskOutcome is the result a plain call would have given for an ended
// task.
func taskOutcome(task *Task) *Result {
	if task.Result != nil && task.Status != TaskFailed {
		return task.Result
	}
	res := failed(StatusFailed, &TaskError{Text: task.Cause}, taskNote(task))
	if task.Status == TaskCancelled {
		res.Status = StatusCanceled
	}
	res.Tool, res.CallID = task.Tool, task.CallID
	return res
}
