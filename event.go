package tool

import (
	"strconv"
	"time"
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
	// EventLimited: a [CallLimit] refused the call, which ends
	// StatusLimited; Event.Limit says which limit and when to retry.
	EventLimited
)

var eventKindNames = [...]string{"", "started", "approval_requested", "approval_decided", "progress", "partial", "finished", "limited"}

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
	// Limit is set for EventLimited.
	Limit *LimitError
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
