package tool

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/toolbelt-go/tool/internal/text"
)

// EventKind says what an [Event] reports.
type EventKind uint8

const (
	// EventStarted is the first event of every call, sent when the call
	// enters the pipeline.
	EventStarted EventKind = iota + 1
	// EventApprovalRequested: the call waits for an approver.
	EventApprovalRequested
	// EventApprovalDecided: the approver answered (or failed to).
	EventApprovalDecided
	// EventProgress: the tool reported progress ([ReportProgress]).
	EventProgress
	// EventPartial: a streaming tool produced partial content
	// ([ReportPartial]).
	EventPartial
	// EventFinished is the last event of every call, exactly once. It
	// carries the Result.
	EventFinished
)

var eventKindNames = [...]string{"", "started", "approval_requested", "approval_decided", "progress", "partial", "finished"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) && k != 0 {
		return eventKindNames[k]
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Progress is what a tool reports as it works. Total is zero when unknown.
type Progress struct {
	Message string
	Done    float64
	Total   float64
}

// Event is one step of a call, for the host's [Observer]: to show progress,
// log, or trace. Events of one call arrive in order, from Started to
// Finished.
type Event struct {
	Kind   EventKind
	CallID string
	Tool   string
	// Session is the call's Request.Session.
	Session string
	Time    time.Time
	// Progress is set for EventProgress.
	Progress Progress
	// Content is set for EventPartial.
	Content []Content
	// Approval is set for the approval events.
	Approval *ApprovalInfo
	// Result is set for EventFinished.
	Result *Result
	// Dropped counts progress and partial events of this call that were
	// merged or dropped since the previous delivered event, because the
	// observer lagged.
	Dropped int
}

// ApprovalInfo describes an approval step in an [Event].
type ApprovalInfo struct {
	// Reason says why approval is needed (requested) or why the call was
	// denied (decided).
	Reason string
	// Allowed is set on EventApprovalDecided when the call may run.
	Allowed bool
	// Pending is set on EventApprovalDecided when the answer will come
	// later (DecisionDefer).
	Pending bool
}

// Observer receives the events of calls. Observe is called for one call's
// events in order, never concurrently for the same call, but concurrently
// for different calls, and never on the caller's goroutine.
//
// Registry.Call returns once its Finished event has been observed, or after
// RegistryOptions.ObserverTimeout (1 s by default) if the observer is stuck;
// a stuck observer never holds up a tool, and a call that returned before
// its events were seen is counted in Stats.ObserverTimeouts. A lagging
// observer loses only progress and partial events: once 32 events wait,
// progress events are merged (the observer sees the latest), and partial
// events past 256 waiting, or 1 MiB of content waiting, are dropped; each
// event says in [Event.Dropped] how many were lost before it, and
// Stats.EventsDropped counts them all. The Finished event carries the whole
// result, so nothing a streaming tool produced is lost. A panic in Observe
// is recovered and the event is lost. An observer given both as the
// registry's and as a Request.Observer sees each event of that call twice.
type Observer interface {
	Observe(Event)
}

// ObserverFunc adapts a function to [Observer].
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }

// bothObservers returns an Observer that gives each event to a, then b,
// either of which may be nil; nil when both are.
func bothObservers(a, b Observer) Observer {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return ObserverFunc(func(e Event) {
		func() {
			defer func() { _ = recover() }() // one broken observer must not starve the other
			a.Observe(e)
		}()
		b.Observe(e)
	})
}

// defaultObserverTimeout bounds the wait for a stuck observer at the end of
// a call when RegistryOptions leave it unset.
const defaultObserverTimeout = time.Second

// A lagging observer has more than mergeAfter events waiting: from then on
// a progress event replaces the one queued before it. maxPending and
// maxPendingBytes bound the queue; partial-content events beyond them are
// dropped.
const (
	mergeAfter      = 32
	maxPending      = 256
	maxPendingBytes = 1 << 20
)

// maxProgressText bounds a progress message.
const maxProgressText = 1 << 10

// emitter delivers one call's events in order, on a goroutine of its own,
// so that neither the caller nor the tool ever waits for the observer
// (except the caller, at the end, for a bounded time).
type emitter struct {
	obs      Observer
	id, tool string
	session  string
	counters *counters

	mu        sync.Mutex
	queue     []Event
	bytes     int // of content in queued partial events
	dropped   int
	busy      bool          // the deliverer is running
	closed    bool          // Finished is queued: no more events
	delivered chan struct{} // closed once Finished has been observed
}

func newEmitter(obs Observer, req *Request, c *counters) *emitter {
	return &emitter{obs: obs, id: req.ID, tool: text.Clean(text.Cut(req.Name, 128)), session: req.Session, counters: c, delivered: make(chan struct{})}
}

// fromTool queues an event reported by the tool; it never blocks. Progress
// merges and partial content is dropped when the observer lags.
func (e *emitter) fromTool(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	ev.CallID, ev.Tool, ev.Session, ev.Time = e.id, e.tool, e.session, time.Now()
	size := contentSize(ev.Content)
	switch n := len(e.queue); {
	case ev.Kind == EventProgress && n >= mergeAfter && e.queue[n-1].Kind == EventProgress:
		e.queue[n-1] = ev // lagging: the observer only needs the latest
		e.drop()
		return
	case n >= maxPending, ev.Kind == EventPartial && e.bytes+size > maxPendingBytes:
		e.drop()
		return
	}
	e.bytes += size
	e.queue = append(e.queue, ev)
	e.start()
}

func (e *emitter) drop() {
	e.dropped++
	if e.counters != nil {
		e.counters.eventsDrops.Add(1)
	}
}

// fromPipeline queues an event of the pipeline (started, approval); it
// never blocks and is never dropped.
func (e *emitter) fromPipeline(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	ev.CallID, ev.Tool, ev.Session, ev.Time = e.id, e.tool, e.session, time.Now()
	e.queue = append(e.queue, ev)
	e.start()
}

// finish queues the Finished event, which closes the stream, and waits until
// it has been observed or timeout has passed.
func (e *emitter) finish(ev Event, timeout time.Duration) {
	e.fromPipeline(ev)
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	select {
	case <-e.delivered:
		return
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-e.delivered:
	case <-t.C:
		if e.counters != nil {
			e.counters.observerTimeouts.Add(1)
		}
	}
}

// start makes sure a deliverer runs; e.mu is held.
func (e *emitter) start() {
	if e.busy {
		return
	}
	e.busy = true
	if inSyncTestBubble() {
		go e.drain()
	} else {
		workers.run(e.drain)
	}
}

// drain delivers queued events until the queue is empty.
func (e *emitter) drain() {
	for {
		e.mu.Lock()
		if len(e.queue) == 0 {
			e.busy = false
			e.mu.Unlock()
			return
		}
		ev := e.queue[0]
		e.queue[0] = Event{}
		e.queue = e.queue[1:]
		e.bytes -= contentSize(ev.Content)
		ev.Dropped, e.dropped = e.dropped, 0
		e.mu.Unlock()
		e.deliver(ev)
		if ev.Kind == EventFinished {
			close(e.delivered)
		}
	}
}

func (e *emitter) deliver(ev Event) {
	defer func() { _ = recover() }() // a broken observer must not break the call
	e.obs.Observe(ev)
}

// contentSize is what queued content holds in memory.
func contentSize(c []Content) int {
	n := 0
	for _, x := range c {
		n += len(x.Text) + len(x.Data) + len(x.URI)
	}
	return n
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
