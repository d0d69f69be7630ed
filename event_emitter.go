package tool

import (
	"sync"
	"time"

	"github.com/toolbelt-go/tool/internal/handoff"
	"github.com/toolbelt-go/tool/internal/text"
)

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

// startEvents is the events stage at the start of a call: it sends
// Started to the registry's and the request's observers, and returns the
// emitter the call's other events go through; nil when no one observes.
// Registry.Call finishes it with the Finished event.
func startEvents(rt *runtimeConfig, req *Request) *emitter {
	obs := bothObservers(rt.observer, req.Observer)
	if obs == nil {
		return nil
	}
	e := newEmitter(obs, req, rt.counters)
	e.fromPipeline(Event{Kind: EventStarted})
	return e
}

// emit sends a pipeline event (approval requested or decided) to the
// call's observers, if any.
func (c *Call[C]) emit(ev Event) {
	if e := c.st.events; e != nil {
		e.fromPipeline(ev)
	}
}

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
	handoff.Go(e.drain)
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
