package tool

import (
	"context"
	"sync"
	"time"

	"github.com/toolbelt-go/tool/internal/text"
)

// What a tool reads from its context: the call it runs for
// ([CallInfoFrom]), where its progress goes ([ReportProgress],
// [ReportPartial]) and, for a paginated tool, its page (pagination.go); a
// tool running as a task also asks for input through it ([AskInput], with
// the tasks in task_run.go). The deadline stage makes that context
// (callCtx, below) around the caller's. The host's per-call state is not
// in it: a tool that needs it is a [Tool] of the host's state type, and
// reads it typed, as [Call].State.

// CallInfo identifies the call a tool is running for: what a tool that
// needs no host state may still want to know (to key per-conversation
// memory by session, to log the call ID).
type CallInfo struct {
	ID      string // the provider's tool-call ID
	Name    string // the tool's name
	Session string // Request.Session
}

type callInfoKey struct{}

// info is the call's CallInfo.
func (c *Call[C]) info() CallInfo { return CallInfo{ID: c.ID, Name: c.Name, Session: c.Session} }

// CallInfoFrom returns the call the tool running under ctx was called for,
// or that a [Describer] describes; false outside a call made through a
// Registry or Wrap.
func CallInfoFrom(ctx context.Context) (CallInfo, bool) {
	c, ok := ctx.Value(callInfoKey{}).(CallInfo)
	return c, ok
}

// callScope is what a running tool reaches through its context.
type callScope struct {
	events *emitter   // nil without an observer
	idle   *idleTimer // nil without an idle limit
}

type scopeKey struct{}

// ReportProgress reports a tool's progress to the host's observer, and
// extends the call's idle limit (Definition.IdleTimeout). Call it from the
// tool with the context it was given, as often as is convenient: it never
// blocks, and it does nothing outside a call or after the call ended.
func ReportProgress(ctx context.Context, p Progress) {
	s, _ := ctx.Value(scopeKey{}).(*callScope)
	if s == nil {
		return
	}
	if s.idle != nil {
		s.idle.touch()
	}
	if s.events != nil {
		p.Message = text.Bound(text.Clean(p.Message), maxProgressText)
		s.events.fromTool(Event{Kind: EventProgress, Progress: p})
	}
}

// ReportPartial reports partial content from a streaming tool, as an
// EventPartial for the host to show while the call runs. The tool's Result
// is still what the model receives: include the whole content there.
// Reporting partial content counts as progress for the idle limit.
func ReportPartial(ctx context.Context, content ...Content) {
	s, _ := ctx.Value(scopeKey{}).(*callScope)
	if s == nil {
		return
	}
	if s.idle != nil {
		s.idle.touch()
	}
	if s.events != nil && len(content) > 0 {
		c := make([]Content, len(content))
		for i, x := range content {
			x.Text = text.Clean(x.Text)
			c[i] = x
		}
		s.events.fromTool(Event{Kind: EventPartial, Content: c})
	}
}

// callCtx is the context a tool runs under: its caller's context, the
// call's own deadline, and what ReportProgress and paginated tools look up
// (the call's scope and page). A tool that never waits on its context, the
// common case of a quick function, never needs the timer, the done channel
// and the cause a context.WithDeadlineCause would make for every call; so
// they are made the first time the tool asks for Done, or for a value its
// caller put in the context (context.Cause asks for one), and Err reads the
// clock until then. The answers are the same either way.
type callCtx struct {
	parent   context.Context
	deadline time.Time     // zero: the call has no limit of its own
	limit    time.Duration // the limit that set deadline
	scope    *callScope    // nil: nothing to report progress to
	page     *pageScope    // nil: not a paginated call
	idleStop func()        // releases the idle limit, if the call has one
	info     CallInfo

	once   sync.Once
	mu     sync.Mutex
	real   context.Context // made by materialize
	cancel context.CancelFunc
}

func (c *callCtx) Deadline() (time.Time, bool) {
	d, ok := c.parent.Deadline()
	if c.deadline.IsZero() || ok && d.Before(c.deadline) {
		return d, ok
	}
	return c.deadline, true
}

func (c *callCtx) Done() <-chan struct{} { return c.materialize().Done() }

func (c *callCtx) Err() error {
	if r := c.made(); r != nil {
		return r.Err()
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !c.deadline.IsZero() && !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

func (c *callCtx) Value(key any) any {
	switch key.(type) {
	case scopeKey:
		if c.scope != nil {
			return c.scope
		}
	case pageKey:
		if c.page != nil {
			return c.page
		}
	case callInfoKey:
		return c.info
	}
	return c.materialize().Value(key)
}

// made returns the real context if it was made.
func (c *callCtx) made() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.real
}

// materialize makes the real context: a child of the parent with the
// call's deadline and cause.
func (c *callCtx) materialize() context.Context {
	c.once.Do(func() {
		var real context.Context
		var cancel context.CancelFunc
		if c.deadline.IsZero() {
			real, cancel = context.WithCancel(c.parent)
		} else {
			real, cancel = context.WithDeadlineCause(c.parent, c.deadline, c.timeoutCause())
		}
		c.mu.Lock()
		c.real, c.cancel = real, cancel
		c.mu.Unlock()
	})
	return c.made()
}

// stop releases the real context, if it was made: the call is over.
func (c *callCtx) stop() {
	c.mu.Lock()
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if c.idleStop != nil {
		c.idleStop()
	}
}

// timeoutCause is the cause of a call stopped by its own deadline. It is
// made when needed: most calls never pass theirs.
func (c *callCtx) timeoutCause() *TimeoutError {
	return &TimeoutError{Tool: c.info.Name, Limit: c.limit}
}

// stopCause says why the call must not report success, or nil: its
// caller's context is done, or its deadline has passed, whether or not a
// timer has said so yet (under load the timer can fire long after the
// deadline; the deadline itself decides).
func (c *callCtx) stopCause() error {
	if r := c.made(); r != nil && r.Err() != nil {
		return context.Cause(r)
	}
	if c.parent.Err() != nil {
		return context.Cause(c.parent)
	}
	now := time.Now()
	if !c.deadline.IsZero() && !now.Before(c.deadline) {
		if d, ok := c.parent.Deadline(); ok && d.Before(c.deadline) && !now.Before(d) {
			return context.DeadlineExceeded // the caller's deadline came first
		}
		return c.timeoutCause()
	}
	if d, ok := c.parent.Deadline(); ok && !now.Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
