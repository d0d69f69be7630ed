package tool

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// TaskSupport says whether a tool may run as a task ([Definition].Task).
type TaskSupport uint8

const (
	// TaskNever: the tool runs within its call, as every tool does by
	// default.
	TaskNever TaskSupport = iota
	// TaskMay: a frontend that can follow a task may start the call as one;
	// others run it within the call.
	TaskMay
	// TaskMust: the call runs only as a task; a frontend that cannot follow
	// one refuses it.
	TaskMust
)

var taskSupportNames = [...]string{"never", "may", "must"}

func (s TaskSupport) String() string {
	if int(s) < len(taskSupportNames) {
		return taskSupportNames[s]
	}
	return "TaskSupport(" + strconv.Itoa(int(s)) + ")"
}

// DefaultTaskTimeout bounds a tool's run as a task when its Definition sets
// no TaskTimeout.
const DefaultTaskTimeout = time.Hour

// taskLimit is the time limit of def's tool when it runs as a task.
func taskLimit(def *Definition) time.Duration {
	if def.TaskTimeout > 0 {
		return def.TaskTimeout
	}
	return DefaultTaskTimeout
}

// TaskStatus is where a task is in its life. The names are MCP's.
type TaskStatus string

const (
	// TaskWorking: the call is going through the pipeline or running.
	TaskWorking TaskStatus = "working"
	// TaskInputRequired: the call waits for an answer the task's frontend
	// relays: an approval deferred to [TaskOptions].Answerer
	// ([Task].Pending), or input the tool asked for ([AskInput],
	// [Task].Input).
	TaskInputRequired TaskStatus = "input_required"
	// TaskCompleted: the call ended with a result ([Task].Result), whether
	// the tool succeeded or not (Result.IsError).
	TaskCompleted TaskStatus = "completed"
	// TaskFailed: the task could not end with a result of its call: the
	// tool panicked, or the replica running it stopped ([Task].Cause).
	TaskFailed TaskStatus = "failed"
	// TaskCancelled: the task was cancelled ([Tasks.Cancel]) before its
	// call ended.
	TaskCancelled TaskStatus = "cancelled"
)

// Terminal reports whether s is a status a task never leaves.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is a snapshot of a task, as [Tasks.Get] reads it from the store.
type Task struct {
	// ID names the task: 128 random bits, unguessable, so that it can be
	// handed to a client as the task's handle.
	ID string
	// Session is the call's Request.Session: a task is read, answered and
	// cancelled only within its session.
	Session string
	// Tool and CallID are the call's.
	Tool   string
	CallID string
	Status TaskStatus
	// Message says where the task is, for people: the tool's last
	// progress message, what it waits for, why it failed.
	Message string
	// Created, Updated and Expires time the task; it is forgotten at
	// Expires (its run is bounded by the tool's TaskTimeout before then).
	Created, Updated, Expires time.Time
	// PollInterval is how often a client should poll it.
	PollInterval time.Duration
	// Progress is the tool's last [ReportProgress], if any.
	Progress *Progress
	// Result is the call's result, once the task is completed (or
	// cancelled with one): its model view as capped and spilled by the
	// output stage, Status, and Err as text ([TaskError]); and, for a
	// call whose approval was deferred to someone the task does not relay
	// for (StatusAwaitingApproval), its Pending, to resume it with.
	Result *Result
	// Cause says why a failed task failed (for the host).
	Cause string
	// Pending is the approval the task waits for, when it is
	// input_required for one; PendingKey is the input key its answer goes
	// under ([TaskAnswer]).
	Pending    *PendingApproval
	PendingKey string
	// Input is what the tool asked for ([AskInput]) and is not answered
	// yet, by key.
	Input map[string]json.RawMessage
}

// TaskError is Result.Err of a task's result read back from the store: the
// cause's text, as the replica that ran the call saw it.
type TaskError struct{ Text string }

func (e *TaskError) Error() string { return e.Text }

// Errors of [Tasks].
var (
	// ErrTaskNotFound: no task of that ID in that session (never one, or
	// expired).
	ErrTaskNotFound = errors.New("tool: no such task")
	// ErrTaskLimit: the session holds as many tasks, or as many bytes of
	// them, as [TaskOptions] allow.
	ErrTaskLimit = errors.New("tool: the session holds as many tasks as it may")
	// ErrNoTask: the tool does not run as a task (its Definition's Task is
	// TaskNever), or AskInput was called outside a task.
	ErrNoTask = errors.New("tool: not a task")
	// ErrTaskState: the task is not in a state the request fits (an answer
	// to a task that waits for none).
	ErrTaskState = errors.New("tool: the task is not waiting for that")
	// ErrTaskCancelled is the cause of a task's context when it is
	// cancelled by [Tasks.Cancel].
	ErrTaskCancelled = errors.New("tool: the task was cancelled")
	// ErrTaskLost is the cause of a task that failed because the replica
	// running it stopped renewing its lease (it died, or lost the store).
	ErrTaskLost = errors.New("tool: the replica running the task stopped")
)

// TaskOptions configure [NewTasks]. A nil *TaskOptions means the defaults.
type TaskOptions struct {
	// Store holds the tasks. Nil means a [NewMemoryTaskStore] of this
	// process; replicas that answer for each other's tasks share one
	// (toolredis.NewTaskStore).
	Store TaskStore
	// Answerer names the frontend that relays the questions of these tasks
	// (toolmcp.Answerer for MCP's tasks extension): a call whose approval
	// is deferred to it ends its run input_required with [Task].Pending,
	// and the answer given to [Tasks.Answer] resumes it, on whichever
	// replica receives it. A deferral to anyone else is the host's
	// approver's to answer: an approver that waits ([Awaiter]) is waited
	// for within the task, one that does not ends the task completed with
	// what the model is told, and the pending approval in Result.Pending. Empty means no frontend relays approvals.
	Answerer string
	// KeepFor is how long a task is kept after its run's time limit: a
	// task lives at most the tool's TaskTimeout plus this. Zero means an
	// hour.
	KeepFor time.Duration
	// PollInterval is the polling interval suggested to clients, and how
	// often [Tasks.Await] reads a task run by another replica. Zero means
	// 500ms.
	PollInterval time.Duration
	// Lease is how long a replica holds a running task without renewing
	// it; it renews it every Lease/3. A task whose replica has not renewed
	// it for Lease is failed (ErrTaskLost) by the next read of it, on any
	// replica: a replica that dies leaves its tasks failed within Lease
	// plus a poll, never working for ever, never run again. A cancel
	// reaches a task run by another replica within Lease/3. Zero means 15
	// seconds.
	Lease time.Duration
	// MaxSessionTasks bounds the unexpired tasks of one session; past it
	// Start returns ErrTaskLimit. Zero means 100; negative, no bound.
	MaxSessionTasks int
	// MaxSessionBytes bounds the bytes one session's tasks take in the
	// store (results included); a result that would pass it is replaced by
	// a note that it was too large. Zero means 32 MiB; negative, no bound.
	MaxSessionBytes int64
	// Replica names this process in the tasks it runs (for the cause of a
	// task it left behind). Empty means a random name.
	Replica string
}

// Defaults of [TaskOptions].
const (
	DefaultTaskKeepFor      = time.Hour
	DefaultTaskPollInterval = 500 * time.Millisecond
	DefaultTaskLease        = 15 * time.Second
	DefaultMaxSessionTasks  = 100
	DefaultMaxSessionBytes  = 32 << 20
)

// Tasks runs calls of a registry as tasks: each is started, held in a
// [TaskStore], and then read, awaited, answered or cancelled by ID, from
// this process or any replica sharing the store.
//
// A task's call goes through the registry's whole pipeline, on a goroutine
// of its own: preflight, record, approval, seal and limit come before its
// tool runs, exactly as for a plain call, and what runs is what was
// approved, once. Its tool gets its Definition's TaskTimeout in place of
// Timeout. A Tasks is safe for concurrent use.
type Tasks[C any] struct {
	reg  *Registry[C]
	opts TaskOptions

	mu     sync.Mutex
	local  map[string]*taskRun // tasks this process runs, by ID
	ended  [64]string          // the last tasks that ended here (Await reads them again at once)
	endedN int
	closed bool
	wg     sync.WaitGroup
}

// NewTasks returns the tasks of reg.
func NewTasks[C any](reg *Registry[C], opts *TaskOptions) *Tasks[C] {
	t := &Tasks[C]{reg: reg, local: map[string]*taskRun{}}
	if opts != nil {
		t.opts = *opts
	}
	o := &t.opts
	if o.Store == nil {
		o.Store = NewMemoryTaskStore()
	}
	if o.KeepFor <= 0 {
		o.KeepFor = DefaultTaskKeepFor
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultTaskPollInterval
	}
	if o.Lease <= 0 {
		o.Lease = DefaultTaskLease
	}
	if o.MaxSessionTasks == 0 {
		o.MaxSessionTasks = DefaultMaxSessionTasks
	}
	if o.MaxSessionBytes == 0 {
		o.MaxSessionBytes = DefaultMaxSessionBytes
	}
	if o.Replica == "" {
		o.Replica = "replica-" + randomID()[:12]
	}
	return t
}

// Registry returns the registry whose calls t runs.
func (t *Tasks[C]) Registry() *Registry[C] { return t.reg }

// Options returns t's options, with the defaults filled in.
func (t *Tasks[C]) Options() TaskOptions { return t.opts }

// Start starts req as a task and returns it once the store holds it (a
// read of its ID on any replica then finds it). The call runs on a
// goroutine of its own, with state, and with ctx's values but not its
// cancellation: a task outlives the request that started it. It returns
// ErrNoTask for a tool whose Definition's Task is TaskNever (or no tool of
// that name), and ErrTaskLimit when req.Session holds as many tasks as it
// may.
func (t *Tasks[C]) Start(ctx context.Context, state C, req Request) (*Task, error) {
	tl, ok := t.reg.Lookup(req.Name)
	if !ok {
		return nil, fmt.Errorf("%w: no tool named %q", ErrNoTask, req.Name)
	}
	def := tl.Definition()
	if def.Task == TaskNever {
		return nil, fmt.Errorf("%w: %s does not run as a task", ErrNoTask, req.Name)
	}
	now := time.Now()
	s := &taskState{
		ID: randomID(), Session: req.Session, Tool: req.Name, CallID: req.ID,
		Status: TaskWorking, Created: now, Updated: now,
		Expires: now.Add(taskLimit(&def) + t.opts.KeepFor),
		Owner:   t.opts.Replica, Lease: now.Add(t.opts.Lease),
	}
	if s.CallID == "" {
		s.CallID = "task-" + s.ID
	}
	req.ID = s.CallID
	raw, err := s.encode()
	if err != nil {
		return nil, err
	}
	if err := t.opts.Store.Create(ctx, s.Session, s.ID, raw, s.Expires, t.limits()); err != nil {
		return nil, err
	}
	if err := t.launch(ctx, state, req, s); err != nil {
		return nil, err
	}
	return t.view(s), nil
}

// launch runs req as the task s (held in the store as raw) on a goroutine.
func (t *Tasks[C]) launch(ctx context.Context, state C, req Request, s *taskState) error {
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	r := &taskRun{id: s.ID, session: s.Session, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1)}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		cancel(nil)
		_, _ = t.update(context.WithoutCancel(ctx), s.Session, s.ID, func(s *taskState) bool {
			return s.finish(TaskFailed, "", "the replica was closed before the task started")
		})
		return errors.New("tool: Tasks closed")
	}
	t.local[s.ID] = r
	t.wg.Add(2)
	t.mu.Unlock()
	if req.Approval != nil {
		// A resumed call: a cancel written between the answer and now
		// found no run here to cancel. Read it, so that a cancel
		// acknowledged before the call started stops it.
		if cur, _, err := t.load(context.WithoutCancel(ctx), s.Session, s.ID); err == nil && (cur.Cancel || cur.Status.Terminal()) {
			cancel(ErrTaskCancelled)
		}
	}
	req.task = r
	r.store, r.maxBytes, r.poll = t.opts.Store, t.opts.MaxSessionBytes, t.opts.PollInterval
	go t.heartbeat(runCtx, r)
	go t.run(context.WithValue(runCtx, taskRunKey{}, r), state, req, r)
	return nil
}

func (t *Tasks[C]) limits() TaskLimits {
	return TaskLimits{Count: t.opts.MaxSessionTasks, Bytes: t.opts.MaxSessionBytes}
}

// run runs the task's call and writes how it ended.
func (t *Tasks[C]) run(ctx context.Context, state C, req Request, r *taskRun) {
	defer t.wg.Done()
	defer func() {
		t.mu.Lock()
		delete(t.local, r.id)
		t.ended[t.endedN%len(t.ended)] = r.id
		t.endedN++
		t.mu.Unlock()
		r.cancel(nil)
		close(r.done)
	}()
	req.Observer = bothObservers(req.Observer, ObserverFunc(r.observe))
	res := t.reg.Call(ctx, state, req)
	cause := context.Cause(ctx)
	if errors.Is(cause, ErrTaskLost) {
		return // the store says another replica failed it: nothing to write
	}
	bg := context.WithoutCancel(ctx)
	_, err := t.update(bg, r.session, r.id, func(s *taskState) bool {
		if s.Status.Terminal() {
			return false
		}
		s.Progress = r.progress()
		switch {
		case res.Status == StatusAwaitingApproval && res.Pending != nil && t.opts.Answerer != "" && res.Pending.Answerer == t.opts.Answerer:
			// Nothing runs until the answer comes, on whichever replica
			// receives it: the task is no one's meanwhile.
			s.Seq++
			s.Status, s.Message = TaskInputRequired, "waiting for the approval of the call"
			s.Pending, s.PendingKey = res.Pending, "approval-"+strconv.Itoa(s.Seq)
			s.Owner, s.Lease = "", time.Time{}
			s.Updated = time.Now()
			return true
		case res.Status == StatusPanicked:
			return s.finish(TaskFailed, "", "the tool panicked: "+res.Text())
		case errors.Is(cause, ErrTaskCancelled) && res.Status == StatusCanceled:
			return s.finish(TaskCancelled, "", "cancelled") && s.setResult(res)
		default:
			return s.finish(TaskCompleted, "", "") && s.setResult(res)
		}
	})
	if errors.Is(err, ErrTaskLimit) {
		// The result, or the question, does not fit the session's bytes:
		// say so instead, and whether the tool ran.
		msg := taskResultTooLarge(req.Name)
		if !res.ran {
			msg = taskNotRunTooLarge(req.Name)
		}
		_, _ = t.update(bg, r.session, r.id, func(s *taskState) bool {
			if s.Status.Terminal() {
				return false
			}
			return s.finish(TaskCompleted, "", "") && s.setResult(failed(StatusFailed, ErrTaskLimit, msg))
		})
	}
}

// heartbeat renews the lease of a running task, writes its progress, and
// passes on a cancel written by another replica.
func (t *Tasks[C]) heartbeat(ctx context.Context, r *taskRun) {
	defer t.wg.Done()
	tick := time.NewTicker(t.opts.Lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-tick.C:
		}
		var cancelled, lost bool
		_, err := t.update(ctx, r.session, r.id, func(s *taskState) bool {
			switch {
			case s.Status.Terminal() || s.Owner != t.opts.Replica:
				lost = true
				return false
			case s.Cancel:
				cancelled = true
			}
			s.Lease = time.Now().Add(t.opts.Lease)
			if p := r.progress(); p != nil {
				s.Progress = p
				if p.Message != "" {
					s.Message = p.Message
				}
			}
			return true
		})
		switch {
		case errors.Is(err, ErrTaskNotFound) || lost:
			r.cancel(ErrTaskLost)
			return
		case cancelled:
			r.cancel(ErrTaskCancelled)
		}
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

// Get returns the task id of session. A task whose replica has not renewed
// its lease in time is failed first (ErrTaskLost), here.
func (t *Tasks[C]) Get(ctx context.Context, session, id string) (*Task, error) {
	s, _, err := t.load(ctx, session, id)
	if err != nil {
		return nil, err
	}
	if !s.Status.Terminal() && s.Owner != "" && time.Now().After(s.Lease) {
		owner := s.Owner
		s, err = t.update(ctx, session, id, func(s *taskState) bool {
			if s.Status.Terminal() || s.Owner == "" || !time.Now().After(s.Lease) {
				return false
			}
			return s.finish(TaskFailed, "", fmt.Sprintf("%v: %s has not renewed the task's lease since %s", ErrTaskLost, owner, s.Lease.Add(-t.opts.Lease).UTC().Format(time.RFC3339)))
		})
		if err != nil {
			return nil, err
		}
	}
	return t.view(s), nil
}

// Await waits for the task to end, or to need input, and returns it; or
// returns ctx's error when it is done first.
func (t *Tasks[C]) Await(ctx context.Context, session, id string) (*Task, error) {
	tick := time.NewTicker(t.opts.PollInterval)
	defer tick.Stop()
	for {
		task, err := t.Get(ctx, session, id)
		if err != nil || task.Status != TaskWorking {
			return task, err
		}
		t.mu.Lock()
		r, ran := t.local[id], t.ranHere(id)
		t.mu.Unlock()
		var done <-chan struct{}
		switch {
		case r != nil:
			done = r.done
		case ran:
			continue // it ran here and has ended since the read: its end is written
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-done:
		case <-tick.C:
		}
	}
}

// ranHere reports whether task id ended here lately; t.mu is held.
func (t *Tasks[C]) ranHere(id string) bool {
	for _, e := range t.ended {
		if e == id {
			return true
		}
	}
	return false
}

// Cancel asks the task to stop: its call's context is cancelled with
// ErrTaskCancelled, at once when this process runs it, within a third of
// the lease when another replica does; a task waiting for input ends
// cancelled at once. Cancelling a task that has ended does nothing.
func (t *Tasks[C]) Cancel(ctx context.Context, session, id string) error {
	_, err := t.update(ctx, session, id, func(s *taskState) bool {
		switch {
		case s.Status.Terminal() || s.Cancel:
			return false
		case s.Status == TaskInputRequired && s.Owner == "":
			return s.finish(TaskCancelled, "", "cancelled while waiting for approval")
		}
		s.Cancel = true
		return true
	})
	if err != nil {
		return err
	}
	t.mu.Lock()
	r := t.local[id]
	t.mu.Unlock()
	if r != nil && r.session == session {
		r.cancel(ErrTaskCancelled)
	}
	return nil
}

// List returns the unexpired tasks of session, oldest first.
func (t *Tasks[C]) List(ctx context.Context, session string) ([]*Task, error) {
	raws, err := t.opts.Store.List(ctx, session)
	if err != nil {
		return nil, err
	}
	out := make([]*Task, 0, len(raws))
	for _, raw := range raws {
		s, err := decodeTaskState(raw)
		if err != nil || s.Session != session {
			continue
		}
		out = append(out, t.view(s))
	}
	sortTasks(out)
	return out, nil
}

// TaskAnswer answers a task that is input_required: the key a [Task] gave
// for each question, and the answer.
type TaskAnswer struct {
	// Approval answers [Task].Pending, the question asked under
	// ApprovalKey; its State is filled in from the task.
	Approval *Decision
	// ApprovalKey is the [Task].PendingKey of the question Approval
	// answers. A task asks again, under a new key, about an edit whose
	// class is not the one shown: an answer given for an earlier key (a
	// request sent again, a second click) is refused with ErrTaskState,
	// never taken for an answer to the question after it.
	ApprovalKey string
	// Answerer is who gives Approval, as in [ApprovalAnswer]: it must be
	// the party the call was deferred to ([PendingApproval].Answerer, the
	// TaskOptions.Answerer of the task's frontend); toolmcp sets
	// toolmcp.Answerer. Empty means the host's own code. Another
	// answerer's answer is refused with an error wrapping
	// [ErrOtherAnswerer], and the task still waits for its own.
	Answerer string
	// Input answers [Task].Input, by key. Keys the task does not wait for
	// are ignored.
	Input map[string]json.RawMessage
}

// Answer gives a task the answers it waits for. An approval answer resumes
// the call here, with state: the call goes through the pipeline again and
// runs only if the answer allows it. Of several answers to one question,
// given at once on any replicas, exactly one is taken; the others, and an
// answer to a question the task no longer asks, return ErrTaskState. Input
// answers reach the tool that asked, on whichever replica runs it; the
// task is input_required until all its questions are answered.
// ErrTaskState: the task waits for no answer (it ended, or is working),
// or not for this approval answer.
func (t *Tasks[C]) Answer(ctx context.Context, state C, session, id string, ans TaskAnswer) error {
	var resume *Request
	var refused error
	s, err := t.update(ctx, session, id, func(s *taskState) bool {
		resume, refused = nil, nil
		if ans.Approval != nil {
			switch {
			case s.Status != TaskInputRequired || s.Pending == nil:
				refused = fmt.Errorf("%w: it waits for no approval (%s)", ErrTaskState, s.Status)
			case ans.ApprovalKey != s.PendingKey:
				refused = fmt.Errorf("%w: it no longer waits for the answer to %q", ErrTaskState, ans.ApprovalKey)
			case ans.Answerer != s.Pending.Answerer:
				refused = fmt.Errorf("%w: %w", ErrTaskState, ErrOtherAnswerer)
			}
			if refused != nil {
				return false
			}
		}
		if s.Status != TaskInputRequired {
			return false
		}
		changed := false
		for k, v := range ans.Input {
			if _, ok := s.Input[k]; ok {
				delete(s.Input, k)
				if s.Answers == nil {
					s.Answers = map[string]json.RawMessage{}
				}
				s.Answers[k] = v
				changed = true
			}
		}
		if ans.Approval != nil {
			p := s.Pending
			resume = &Request{ID: s.CallID, Name: s.Tool, Args: p.Request.Args, Session: s.Session,
				Approval: &ApprovalAnswer{State: p.State, Decision: *ans.Approval, Answerer: ans.Answerer}}
			s.Pending, s.PendingKey = nil, ""
			s.Owner, s.Lease = t.opts.Replica, time.Now().Add(t.opts.Lease)
			changed = true
		}
		if changed && len(s.Input) == 0 && s.Pending == nil {
			s.Status, s.Message = TaskWorking, ""
		}
		if changed {
			s.Updated = time.Now()
		}
		return changed
	})
	switch {
	case err != nil:
		return err
	case refused != nil:
		return refused
	case s.Status.Terminal():
		return fmt.Errorf("%w: it has ended (%s)", ErrTaskState, s.Status)
	}
	t.mu.Lock()
	r := t.local[id]
	t.mu.Unlock()
	if r != nil {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
	if resume != nil {
		return t.launch(ctx, state, *resume, s)
	}
	return nil
}

// Close cancels the tasks this process runs (they end failed, with the
// cause that their replica closed, unless they end first) and waits for
// their goroutines. Their lease is not renewed after that, so tasks of
// this process that could not be written are failed by the next read.
func (t *Tasks[C]) Close() {
	t.mu.Lock()
	t.closed = true
	runs := make([]*taskRun, 0, len(t.local))
	for _, r := range t.local {
		runs = append(runs, r)
	}
	t.mu.Unlock()
	for _, r := range runs {
		r.cancel(errTaskClosed)
	}
	t.wg.Wait()
}

var errTaskClosed = errors.New("tool: the replica running the task was closed")

// load reads the task id of session.
func (t *Tasks[C]) load(ctx context.Context, session, id string) (*taskState, string, error) {
	raw, err := t.opts.Store.Get(ctx, session, id)
	if err != nil {
		return nil, "", err
	}
	s, err := decodeTaskState(raw)
	if err != nil {
		return nil, "", err
	}
	if s.Session != session || s.ID != id {
		return nil, "", ErrTaskNotFound
	}
	return s, raw, nil
}

// update applies change to the task id of session until the store takes
// it, and returns the task as it is after (unchanged when change returns
// false).
func (t *Tasks[C]) update(ctx context.Context, session, id string, change func(*taskState) bool) (*taskState, error) {
	return updateTask(ctx, t.opts.Store, session, id, t.opts.MaxSessionBytes, change)
}

func updateTask(ctx context.Context, store TaskStore, session, id string, maxBytes int64, change func(*taskState) bool) (*taskState, error) {
	for range 100 {
		raw, err := store.Get(ctx, session, id)
		if err != nil {
			return nil, err
		}
		s, err := decodeTaskState(raw)
		if err != nil {
			return nil, err
		}
		if s.Session != session || s.ID != id {
			return nil, ErrTaskNotFound
		}
		if !change(s) {
			return s, nil
		}
		next, err := s.encode()
		if err != nil {
			return nil, err
		}
		ok, err := store.Replace(ctx, session, id, raw, next, s.Expires, maxBytes)
		if err != nil {
			return nil, err
		}
		if ok {
			return s, nil
		}
	}
	return nil, errors.New("tool: the task changed too often to update it")
}

// view is what a host sees of s.
func (t *Tasks[C]) view(s *taskState) *Task {
	task := &Task{
		ID: s.ID, Session: s.Session, Tool: s.Tool, CallID: s.CallID, Status: s.Status, Message: s.Message,
		Created: s.Created, Updated: s.Updated, Expires: s.Expires, PollInterval: t.opts.PollInterval,
		Progress: s.Progress, Cause: s.Cause, Pending: s.Pending, PendingKey: s.PendingKey,
	}
	if len(s.Input) > 0 {
		task.Input = make(map[string]json.RawMessage, len(s.Input))
		for k, v := range s.Input {
			task.Input[k] = v
		}
	}
	if s.Result != nil {
		task.Result = s.Result.result(s.Tool, s.CallID)
	}
	return task
}

// randomID returns 128 random bits in hex.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
