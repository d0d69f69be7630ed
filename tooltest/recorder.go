package tooltest

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolbelt-go/tool"
)

// Recorder is a [tool.Observer] that keeps every event it is sent, in order.
// Pass it as RegistryOptions.Observer. It is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events []tool.Event
}

// Observe records e.
func (r *Recorder) Observe(e tool.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events returns the events recorded so far, of all calls, in the order
// they arrived.
func (r *Recorder) Events() []tool.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// EventsOf returns the events of the call with the given ID, in order.
func (r *Recorder) EventsOf(callID string) []tool.Event {
	var out []tool.Event
	for _, e := range r.Events() {
		if e.CallID == callID {
			out = append(out, e)
		}
	}
	return out
}

// Kinds returns the kinds of the events of the call with the given ID, as
// a space-separated string such as "started progress finished", for
// compact assertions.
func (r *Recorder) Kinds(callID string) string {
	var b strings.Builder
	for i, e := range r.EventsOf(callID) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.Kind.String())
	}
	return b.String()
}

// WantWellFormed fails the test unless every call's events start with
// Started and end with exactly one Finished, with nothing after it.
func (r *Recorder) WantWellFormed(t testing.TB) {
	t.Helper()
	byCall := map[string][]tool.Event{}
	var order []string
	for _, e := range r.Events() {
		if _, ok := byCall[e.CallID]; !ok {
			order = append(order, e.CallID)
		}
		byCall[e.CallID] = append(byCall[e.CallID], e)
	}
	for _, id := range order {
		evs := byCall[id]
		if evs[0].Kind != tool.EventStarted {
			t.Errorf("tooltest: call %q: first event is %s, want started", id, evs[0].Kind)
		}
		for i, e := range evs {
			last := i == len(evs)-1
			if e.Kind == tool.EventFinished && !last {
				t.Errorf("tooltest: call %q: %s event after finished", id, evs[i+1].Kind)
			}
			if last && e.Kind != tool.EventFinished {
				t.Errorf("tooltest: call %q: last event is %s, want finished", id, e.Kind)
			}
			if e.Kind == tool.EventFinished && e.Result == nil {
				t.Errorf("tooltest: call %q: finished event without a result", id)
			}
		}
	}
}
