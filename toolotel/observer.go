package toolotel

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolbelt-go/tool"
)

// Options configure an [Observer]. A nil *Options, or a zero field, means
// the documented default.
type Options struct {
	// TracerProvider makes the spans. Nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metrics. Nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// RecordArguments records gen_ai.tool.call.arguments: the arguments as
	// validated (canonical JSON, schema defaults filled in), cut to
	// MaxContentBytes; only calls that reach [Middleware] have them. It
	// also puts the whole validation message, which quotes what was sent,
	// in the status of a call preflight refused. Off by default: the model
	// writes the arguments, and they may hold secrets.
	RecordArguments bool
	// RecordResults records gen_ai.tool.call.result: the model view of a
	// successful call's result as text, cut to MaxContentBytes. Off by
	// default: results may hold secrets.
	RecordResults bool
	// MaxContentBytes bounds each recorded argument and result. Zero means
	// 4096.
	MaxContentBytes int
}

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/toolbelt-go/tool/toolotel"

// Bounds on the bookkeeping, so that no number of calls grows it beyond
// them: calls in flight with a record (past it, a call's span has no
// parent), the events kept for a call whose span is not started yet, and
// how long a record the middleware made waits for its Started event
// before the middleware's span is ended without it.
const (
	maxInFlight = 1 << 16
	maxPending  = 64
	orphanAfter = time.Minute
)

// Observer records tool calls as spans and metrics (see the package
// documentation). Pass it as [tool.RegistryOptions.Observer] (or a call's
// [tool.Request.Observer], but not both for one call), and add
// [Middleware] to the registry so that spans have their parent and the
// tool runs under its span.
//
// An Observer is safe for concurrent use, and may serve several
// registries.
type Observer struct {
	tracer  trace.Tracer
	meter   metric.Meter
	inst    instruments
	args    bool
	results bool
	maxText int

	mu       sync.Mutex
	inFlight map[callKey][]*callRecord
	n        int           // records in inFlight
	orphans  []*callRecord // made by a middleware that returned before the Started event came, oldest first
}

// callKey is what both an event and a middleware know of a call.
type callKey struct{ id, tool string }

// callRecord is one call in flight. The observer makes it when the call's
// Started event comes, or the middleware when it runs first (events are
// delivered on another goroutine, so either may come first); the other
// finds it by the call's key. The Finished event, always the call's last,
// removes it.
type callRecord struct {
	key      callKey
	start    time.Time
	observed bool         // the Started event came
	claimed  bool         // a middleware runs, or ran, the call
	span     trace.Span   // started by the middleware, or at Finished
	result   *tool.Result // what the middleware returned
	returned time.Time    // when the middleware returned
	pending  []tool.Event // events that came before the span
}

// NewObserver returns an Observer that records with the providers of
// opts. opts may be nil. The error is the meter's, if it cannot make an
// instrument.
func NewObserver(opts *Options) (*Observer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.MaxContentBytes <= 0 {
		o.MaxContentBytes = 4096
	}
	obs := &Observer{
		tracer:   o.TracerProvider.Tracer(ScopeName, trace.WithSchemaURL(schemaURL)),
		meter:    o.MeterProvider.Meter(ScopeName, metric.WithSchemaURL(schemaURL)),
		args:     o.RecordArguments,
		results:  o.RecordResults,
		maxText:  o.MaxContentBytes,
		inFlight: map[callKey][]*callRecord{},
	}
	var err error
	if obs.inst, err = newInstruments(obs.meter); err != nil {
		return nil, err
	}
	return obs, nil
}

// Observe implements [tool.Observer].
func (o *Observer) Observe(e tool.Event) {
	key := callKey{e.CallID, e.Tool}
	switch e.Kind {
	case tool.EventStarted:
		o.mu.Lock()
		o.started(key, e.Time)
		o.mu.Unlock()
	case tool.EventFinished:
		if e.Result == nil {
			return
		}
		o.mu.Lock()
		rec := o.take(key, e.Result)
		o.mu.Unlock()
		o.finish(rec, e.Result)
	default:
		o.mu.Lock()
		var span trace.Span
		if recs := o.inFlight[key]; len(recs) == 1 { // two calls alike: whose event it is is unknown
			rec := recs[0]
			if span = rec.span; span == nil && len(rec.pending) < maxPending {
				rec.pending = append(rec.pending, e)
			}
		}
		o.mu.Unlock()
		if span != nil {
			addEvent(span, e)
		}
	}
}

// started records a call's Started event: on the record its middleware
// made, if it ran first, else on a new one. o.mu is held.
func (o *Observer) started(key callKey, at time.Time) {
	o.sweep(at)
	for _, r := range o.inFlight[key] {
		if r.claimed && !r.observed {
			r.observed = true
			return
		}
	}
	if o.n < maxInFlight {
		o.inFlight[key] = append(o.inFlight[key], &callRecord{key: key, start: at, observed: true})
		o.n++
	}
}

// claim returns the record of the call a middleware is about to run, and
// marks it claimed: the only record of its key whose Started event came
// and that no middleware took, or, if there is none yet, a new one. It
// returns nil when two calls alike are in flight (which is this one is
// unknown) or the bound is reached.
func (o *Observer) claim(key callKey, now time.Time) *callRecord {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sweep(now)
	var found *callRecord
	for _, r := range o.inFlight[key] {
		if r.observed && !r.claimed {
			if found != nil {
				return nil
			}
			found = r
		}
	}
	if found == nil {
		if o.n >= maxInFlight {
			return nil
		}
		found = &callRecord{key: key, start: now}
		o.inFlight[key] = append(o.inFlight[key], found)
		o.n++
	}
	found.claimed = true
	return found
}

// returned records what the middleware's call returned. A record whose
// Started event has not come yet waits for it, up to orphanAfter.
func (o *Observer) returned(rec *callRecord, res *tool.Result, at time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	rec.result, rec.returned = res, at
	if !rec.observed {
		o.orphans = append(o.orphans, rec)
	}
}

// sweep ends the spans of records the middleware made whose Started event
// has not come orphanAfter after the middleware returned: their calls had
// no Observer (this one is not installed where the middleware is), so no
// event will come. o.mu is held.
func (o *Observer) sweep(now time.Time) {
	for len(o.orphans) > 0 {
		r := o.orphans[0]
		if !r.observed && now.Sub(r.returned) < orphanAfter {
			return
		}
		o.orphans[0] = nil
		o.orphans = o.orphans[1:]
		if r.observed {
			continue // its events came after all
		}
		o.remove(r)
		if r.span != nil && r.result != nil {
			o.endSpan(r.span, settled(r.result, r.key), r.returned)
		}
	}
}

// settled is res as the registry would have finished it: named after its
// call, its status agreeing with IsError. The middleware sees res before
// the registry does that.
func settled(res *tool.Result, key callKey) *tool.Result {
	r := *res
	r.Tool, r.CallID = key.tool, key.id
	if r.Status == tool.StatusOK && r.IsError {
		r.Status = tool.StatusFailed
	}
	return &r
}

// take removes and returns the record of the call that finished with res:
// the one whose middleware returned res, else the first whose Started
// event came (a call's Finished event comes after its Started event). It
// returns nil when there is none (the bound was reached). o.mu is held.
func (o *Observer) take(key callKey, res *tool.Result) *callRecord {
	var rec *callRecord
	for _, r := range o.inFlight[key] {
		if r.result == res && r.observed {
			rec = r
			break
		}
		if rec == nil && r.observed {
			rec = r
		}
	}
	if rec != nil {
		o.remove(rec)
	}
	return rec
}

// remove deletes rec from inFlight. o.mu is held.
func (o *Observer) remove(rec *callRecord) {
	recs := o.inFlight[rec.key]
	for i, r := range recs {
		if r == rec {
			if len(recs) == 1 {
				delete(o.inFlight, rec.key)
			} else {
				o.inFlight[rec.key] = append(recs[:i:i], recs[i+1:]...)
			}
			o.n--
			return
		}
	}
}

// finish ends the call's span, starting it first if no middleware did,
// and records the call's metrics. rec may be nil.
func (o *Observer) finish(rec *callRecord, res *tool.Result) {
	var span trace.Span
	var pending []tool.Event
	start := res.Started
	if rec != nil {
		span, pending = rec.span, rec.pending
	}
	if start.IsZero() && rec != nil {
		start = rec.start
	}
	if span == nil {
		// No middleware ran for this call: preflight refused it, the tool
		// does not exist, or the registry has no Middleware. The span has
		// no parent, as events carry no context.
		_, span = o.tracer.Start(context.Background(), spanName(res.Tool, res.Status), trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithTimestamp(start), trace.WithAttributes(startAttributes(res.CallID, res.Tool, "", "")...))
		for _, e := range pending {
			addEvent(span, e)
		}
	}
	end := start.Add(res.Duration)
	o.endSpan(span, res, end)
	o.record(trace.ContextWithSpan(context.Background(), span), res)
}
