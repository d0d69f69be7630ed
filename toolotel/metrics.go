package toolotel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/toolbelt-go/tool"
)

// instruments are an Observer's metrics.
type instruments struct {
	duration metric.Float64Histogram
	calls    metric.Int64Counter
	// Read from a registry's Stats by ObserveStats.
	abandoned, hooksAbandoned, observerTimeouts, eventsDropped metric.Int64ObservableCounter
	abandonedRunning, hooksRunning                             metric.Int64ObservableUpDownCounter
}

// durationBuckets are the bucket boundaries the GenAI conventions advise
// for operation durations, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	var err error
	if in.duration, err = m.Float64Histogram("gen_ai.execute_tool.duration",
		metric.WithUnit("s"), metric.WithDescription("Duration of tool executions."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return in, err
	}
	if in.calls, err = m.Int64Counter("toolbelt.tool.calls",
		metric.WithUnit("{call}"), metric.WithDescription("Tool calls, by tool and status.")); err != nil {
		return in, err
	}
	counters := []struct {
		c          *metric.Int64ObservableCounter
		name, unit string
		desc       string
	}{
		{&in.abandoned, "toolbelt.tool.abandoned", "{call}", "Calls given up on because their tool ignored its context."},
		{&in.hooksAbandoned, "toolbelt.hook.abandoned", "{call}", "Calls of host hooks (approver, approval memory, spill store, …) that did not answer within their bound."},
		{&in.observerTimeouts, "toolbelt.observer.timeouts", "{call}", "Calls that returned before their observer had seen all their events."},
		{&in.eventsDropped, "toolbelt.events.dropped", "{event}", "Progress and partial events a lagging observer never saw."},
	}
	for _, c := range counters {
		if *c.c, err = m.Int64ObservableCounter(c.name, metric.WithUnit(c.unit), metric.WithDescription(c.desc)); err != nil {
			return in, err
		}
	}
	if in.abandonedRunning, err = m.Int64ObservableUpDownCounter("toolbelt.tool.abandoned.running",
		metric.WithUnit("{call}"), metric.WithDescription("Abandoned calls whose tool has not returned yet.")); err != nil {
		return in, err
	}
	in.hooksRunning, err = m.Int64ObservableUpDownCounter("toolbelt.hook.running",
		metric.WithUnit("{call}"), metric.WithDescription("Host hook calls given up on that have not returned yet."))
	return in, err
}

// record adds a finished call to the metrics. ctx carries the call's span,
// for exemplars.
func (o *Observer) record(ctx context.Context, res *tool.Result) {
	name := res.Tool
	if res.Status == tool.StatusUnknownTool {
		name = otherToolName
	}
	toolName := semconv.GenAIToolName(name)
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, toolName, semconv.GenAIToolTypeKey.String(toolTypeFunction)}
	if et := errorType(res); et != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(et))
	}
	o.inst.duration.Record(ctx, res.Duration.Seconds(), metric.WithAttributes(attrs...))
	o.inst.calls.Add(ctx, 1, metric.WithAttributes(toolName, statusKey.String(res.Status.String())))
}

// ObserveStats reports a registry's [tool.Stats] (pass reg.Stats) whenever
// the metrics are collected, with attrs (to tell registries apart when one
// Observer serves several): Abandoned as toolbelt.tool.abandoned,
// AbandonedRunning as toolbelt.tool.abandoned.running, HooksAbandoned as
// toolbelt.hook.abandoned, HooksRunning as toolbelt.hook.running,
// ObserverTimeouts as toolbelt.observer.timeouts and EventsDropped as
// toolbelt.events.dropped. Unregister the returned registration when the
// registry is gone.
func (o *Observer) ObserveStats(stats func() tool.Stats, attrs ...attribute.KeyValue) (metric.Registration, error) {
	set := metric.WithAttributes(attrs...)
	return o.meter.RegisterCallback(func(_ context.Context, ob metric.Observer) error {
		s := stats()
		ob.ObserveInt64(o.inst.abandoned, s.Abandoned, set)
		ob.ObserveInt64(o.inst.abandonedRunning, s.AbandonedRunning, set)
		ob.ObserveInt64(o.inst.hooksAbandoned, s.HooksAbandoned, set)
		ob.ObserveInt64(o.inst.hooksRunning, s.HooksRunning, set)
		ob.ObserveInt64(o.inst.observerTimeouts, s.ObserverTimeouts, set)
		ob.ObserveInt64(o.inst.eventsDropped, s.EventsDropped, set)
		return nil
	}, o.inst.abandoned, o.inst.abandonedRunning, o.inst.hooksAbandoned, o.inst.hooksRunning, o.inst.observerTimeouts, o.inst.eventsDropped)
}
