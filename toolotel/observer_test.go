package toolotel_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolbelt-go/tool"
	toolotel "github.com/toolbelt-go/tool/toolotel"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestASuccessfulCallIsASpanUnderTheCallersSpan(t *testing.T) {
	tel := newTelemetry(t, nil)
	reg := tel.registry(t, true, nil, nil)
	ctx, turn := tel.tp.Tracer("agent").Start(context.Background(), "agent turn")
	res := reg.Call(ctx, struct{}{}, tool.Request{ID: "call_1", Name: "search", Args: []byte(`{"query":"main"}`), Session: "conv-9"})
	turn.End()
	tooltest.WantOK(t, res)

	s := tel.span(t, "call_1")
	assert.Equal(t, "execute_tool search", s.Name())
	assert.Equal(t, trace.SpanKindInternal, s.SpanKind())
	assert.Equal(t, turn.SpanContext().SpanID(), s.Parent().SpanID(), "the caller's span is the parent")
	assert.Equal(t, turn.SpanContext().TraceID(), s.SpanContext().TraceID())
	assert.Equal(t, map[string]string{
		"gen_ai.operation.name":   "execute_tool",
		"gen_ai.tool.name":        "search",
		"gen_ai.tool.call.id":     "call_1",
		"gen_ai.tool.type":        "function",
		"gen_ai.tool.description": "Searches the code.",
		"gen_ai.conversation.id":  "conv-9",
		"toolbelt.call.status":    "ok",
	}, attrs(s), "no arguments or result without the opt-in")
	assert.Equal(t, codes.Unset, s.Status().Code)
	assert.Equal(t, []string{"toolbelt.progress", "toolbelt.progress", "toolbelt.progress"}, eventNames(s))
	assert.Equal(t, res.Started.Add(res.Duration), s.EndTime(), "the span lasts as long as the call")

	var work []string
	for _, w := range tel.spans.Ended() {
		if w.Name() == "tool work" {
			work = append(work, w.Parent().SpanID().String())
		}
	}
	assert.Equal(t, []string{s.SpanContext().SpanID().String()}, work, "what the tool does is traced under the call's span")
}

func TestEachWayACallEndsHasItsErrorType(t *testing.T) {
	tests := []struct {
		name, tool, args string
		cancel, dryRun   bool
		approver         *tooltest.Approver
		errorType        string // "" for none
		spanName         string
		events           []string
		parent           bool // the middleware ran, so the caller's span is the parent
	}{
		{name: "tool error", tool: "fail", errorType: "failed", spanName: "execute_tool fail", parent: true},
		{name: "panic", tool: "crash", errorType: "panicked", spanName: "execute_tool crash", events: []string{"exception"}, parent: true},
		{name: "invalid arguments", tool: "search", args: `{"query":"hunter2","limit":"hunter2"}`, errorType: "invalid", spanName: "execute_tool search"},
		{name: "unknown tool", tool: "serach", errorType: "unknown_tool", spanName: "execute_tool"},
		{name: "cancelled before it started", tool: "search", args: `{"query":"x"}`, cancel: true, errorType: "canceled", spanName: "execute_tool search"},
		{name: "denied", tool: "write", approver: tooltest.NewApprover(tooltest.Deny("not today")), errorType: "denied", spanName: "execute_tool write",
			events: []string{"toolbelt.approval.requested", "toolbelt.approval.decided"}, parent: true},
		{name: "allowed", tool: "write", approver: tooltest.NewApprover(tooltest.AllowOnce()), spanName: "execute_tool write",
			events: []string{"toolbelt.approval.requested", "toolbelt.approval.decided"}, parent: true},
		{name: "awaiting approval is no error", tool: "write", approver: tooltest.NewApprover(tooltest.Defer()), spanName: "execute_tool write",
			events: []string{"toolbelt.approval.requested", "toolbelt.approval.decided"}, parent: true},
		{name: "a dry run is no error", tool: "write", dryRun: true, approver: tooltest.NewApprover(tooltest.AllowOnce()), spanName: "execute_tool write", parent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tel := newTelemetry(t, nil)
			var approver tool.Approver
			if tt.approver != nil {
				approver = tt.approver
			}
			reg := tel.registry(t, true, approver, nil)
			ctx, turn := tel.tp.Tracer("agent").Start(context.Background(), "turn")
			if tt.cancel {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			res := reg.Call(ctx, struct{}{}, tool.Request{ID: "c1", Name: tt.tool, Args: []byte(tt.args), Session: "s", DryRun: tt.dryRun})
			turn.End()

			s := tel.span(t, "c1")
			a := attrs(s)
			assert.Equal(t, tt.spanName, s.Name())
			assert.Equal(t, res.Status.String(), a["toolbelt.call.status"])
			assert.Equal(t, tt.tool, a["gen_ai.tool.name"])
			assert.Equal(t, "execute_tool", a["gen_ai.operation.name"])
			if tt.errorType == "" {
				assert.NotContains(t, a, "error.type")
				assert.Equal(t, codes.Unset, s.Status().Code)
			} else {
				assert.Equal(t, tt.errorType, a["error.type"])
				assert.Equal(t, codes.Error, s.Status().Code)
				assert.NotEmpty(t, s.Status().Description)
				assert.NotContains(t, s.Status().Description, "hunter2", "no argument values without the opt-in")
			}
			assert.Equal(t, tt.events, eventNames(s))
			if tt.parent {
				assert.Equal(t, turn.SpanContext().SpanID(), s.Parent().SpanID())
			} else {
				assert.False(t, s.Parent().IsValid(), "no middleware ran: a span without a parent")
			}
			if tt.name == "panic" {
				ev := s.Events()[0]
				var stack string
				for _, kv := range ev.Attributes {
					if kv.Key == "exception.stacktrace" {
						stack = kv.Value.AsString()
					}
				}
				assert.Contains(t, stack, "goroutine", "the stack of the panic")
			}
			if tt.name == "invalid arguments" {
				assert.Equal(t, "invalid arguments: /limit type", s.Status().Description)
			}
		})
	}
}

func TestApprovalEventsSayWhatWasDecided(t *testing.T) {
	tel := newTelemetry(t, nil)
	reg := tel.registry(t, true, tooltest.NewApprover(tooltest.Deny("not today")), nil)
	reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c1", Name: "write"})
	ev := tel.span(t, "c1").Events()
	require.Len(t, ev, 2)
	decided := map[string]string{}
	for _, kv := range ev[1].Attributes {
		decided[string(kv.Key)] = kv.Value.String()
	}
	assert.Equal(t, "false", decided["toolbelt.approval.allowed"])
	assert.Equal(t, "not today", decided["toolbelt.approval.reason"])
}

func TestAbandonedCallsAreCountedAndTyped(t *testing.T) {
	tel := newTelemetry(t, nil)
	hold := make(gate)
	reg := tel.registry(t, true, nil, hold)
	reg2 := tool.NewRegistry[struct{}](nil)
	reg2.MustAdd(tool.New(tool.Definition{Name: "x", Description: "x"}, func(context.Context, struct{}) (string, error) { return "", nil }))
	_, err := tel.obs.ObserveStats(reg.Stats)
	require.NoError(t, err)

	res := reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c1", Name: "slow"})
	require.ErrorIs(t, res.Err, tool.ErrAbandoned)
	assert.Equal(t, "abandoned", attrs(tel.span(t, "c1"))["error.type"])

	m := tel.metrics(t)
	sum := func(name string) int64 {
		switch d := m[name].Data.(type) {
		case metricdata.Sum[int64]:
			require.Len(t, d.DataPoints, 1)
			return d.DataPoints[0].Value
		}
		t.Fatalf("no %s", name)
		return 0
	}
	assert.Equal(t, int64(1), sum("toolbelt.tool.abandoned"))
	assert.Equal(t, int64(1), sum("toolbelt.tool.abandoned.running"))
	close(hold)
	require.Eventually(t, func() bool { return reg.Stats().AbandonedRunning == 0 }, 10*time.Second, 10*time.Millisecond)
	m = tel.metrics(t)
	assert.Equal(t, int64(1), sum("toolbelt.tool.abandoned"))
	assert.Equal(t, int64(0), sum("toolbelt.tool.abandoned.running"), "the tool returned at last")
	for _, name := range []string{"toolbelt.hook.abandoned", "toolbelt.hook.running", "toolbelt.observer.timeouts", "toolbelt.events.dropped"} {
		assert.Equal(t, int64(0), sum(name), name)
	}
}

func TestMetricsCountCallsByToolAndStatus(t *testing.T) {
	tel := newTelemetry(t, nil)
	reg := tel.registry(t, true, nil, nil)
	call := func(name, args string) {
		reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c", Name: name, Args: []byte(args)})
	}
	call("search", `{"query":"a"}`)
	call("search", `{"query":"b"}`)
	call("search", `{}`)
	call("fail", ``)
	for i := range 5 {
		call(fmt.Sprint("made_up_", i), ``) // one metric series for all of them
	}

	m := tel.metrics(t)
	calls := map[string]int64{}
	for _, dp := range m["toolbelt.tool.calls"].Data.(metricdata.Sum[int64]).DataPoints {
		calls[key(dp.Attributes)] = dp.Value
	}
	assert.Equal(t, map[string]int64{
		"gen_ai.tool.name=search,toolbelt.call.status=ok":           2,
		"gen_ai.tool.name=search,toolbelt.call.status=invalid":      1,
		"gen_ai.tool.name=fail,toolbelt.call.status=failed":         1,
		"gen_ai.tool.name=_OTHER,toolbelt.call.status=unknown_tool": 5,
	}, calls)
	assert.Equal(t, "{call}", m["toolbelt.tool.calls"].Unit)

	d := m["gen_ai.execute_tool.duration"]
	assert.Equal(t, "s", d.Unit)
	hist := map[string]uint64{}
	for _, dp := range d.Data.(metricdata.Histogram[float64]).DataPoints {
		hist[key(dp.Attributes)] = dp.Count
		assert.Greater(t, dp.Sum, 0.0)
		assert.Equal(t, 0.01, dp.Bounds[0], "the conventions' buckets")
	}
	const base = "gen_ai.operation.name=execute_tool,gen_ai.tool.name=%s,gen_ai.tool.type=function"
	assert.Equal(t, map[string]uint64{
		fmt.Sprintf(base, "search"):                              2,
		"error.type=invalid," + fmt.Sprintf(base, "search"):      1,
		"error.type=failed," + fmt.Sprintf(base, "fail"):         1,
		"error.type=unknown_tool," + fmt.Sprintf(base, "_OTHER"): 5,
	}, hist)
}

func TestArgumentsAndResultsOnlyOnOptIn(t *testing.T) {
	tel := newTelemetry(t, &toolotel.Options{RecordArguments: true, RecordResults: true, MaxContentBytes: 100})
	reg := tel.registry(t, true, nil, nil)
	reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c1", Name: "search", Args: []byte(`{"query":"main"}`)})
	reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c2", Name: "search", Args: []byte(`{"query":"main","limit":"x"}`)})
	a := attrs(tel.span(t, "c1"))
	assert.Equal(t, `{"limit":10,"query":"main"}`, a["gen_ai.tool.call.arguments"], "as validated and run: canonical, defaults filled in")
	assert.True(t, strings.HasPrefix(a["gen_ai.tool.call.result"], "found main xxx"))
	assert.LessOrEqual(t, len(a["gen_ai.tool.call.result"]), 100, "bounded")
	invalid := tel.span(t, "c2")
	assert.Contains(t, invalid.Status().Description, `"x"`, "with the opt-in, the whole validation message")
	assert.NotContains(t, attrs(invalid), "gen_ai.tool.call.result", "no result for a call that did not succeed")
}

func TestWithoutTheMiddlewareEveryCallStillHasASpan(t *testing.T) {
	tel := newTelemetry(t, nil)
	reg := tel.registry(t, false, tooltest.NewApprover(tooltest.AllowOnce()), nil)
	reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c1", Name: "search", Args: []byte(`{"query":"a"}`)})
	reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c2", Name: "write"})
	s := tel.span(t, "c1")
	assert.False(t, s.Parent().IsValid())
	assert.Len(t, s.Events(), 3, "progress events")
	assert.Equal(t, []string{"toolbelt.approval.requested", "toolbelt.approval.decided"}, eventNames(tel.span(t, "c2")))
	assert.Equal(t, 0, tel.obs.InFlight())
}

// TestTheMiddlewareWithoutItsObserverLeavesNothingBehind uses the
// middleware on a registry the Observer does not observe: calls run as
// before, each under a span the middleware ends a minute after it returns
// (no event will come to end it), and no record is kept longer.
func TestTheMiddlewareWithoutItsObserverLeavesNothingBehind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tel := newTelemetry(t, nil)
		reg := tool.NewRegistry[struct{}](nil)
		reg.MustAdd(tool.New(tool.Definition{Name: "echo", Description: "Echoes."}, func(_ context.Context, in searchArgs) (string, error) { return in.Query, nil }))
		reg.Use(toolotel.Middleware[struct{}](tel.obs))
		ctx, turn := tel.tp.Tracer("agent").Start(context.Background(), "turn")
		tooltest.WantOK(t, reg.Call(ctx, struct{}{}, tool.Request{ID: "1", Name: "echo", Args: []byte(`{"query":"x"}`)}))
		assert.Empty(t, tel.execSpans())
		assert.Equal(t, 1, tel.obs.InFlight(), "waiting for its Started event")

		time.Sleep(2 * time.Minute)
		tooltest.WantOK(t, reg.Call(ctx, struct{}{}, tool.Request{ID: "2", Name: "echo", Args: []byte(`{"query":"y"}`)}))
		turn.End()
		s := tel.span(t, "1")
		assert.Equal(t, turn.SpanContext().SpanID(), s.Parent().SpanID())
		assert.Equal(t, "ok", attrs(s)["toolbelt.call.status"])
		assert.Less(t, s.EndTime().Sub(s.StartTime()), time.Minute, "ended when the call returned, not when it was swept")
		assert.Equal(t, 1, tel.obs.InFlight(), "the first record is gone; the second waits")
		assert.NotContains(t, tel.metrics(t), "toolbelt.tool.calls", "metrics come from the Observer")
	})
}

// TestConcurrentCallsGetTheirOwnSpans runs calls with distinct IDs and
// calls that share one ID and tool at once: each gets exactly one span;
// those with a distinct ID under their own caller's span; and nothing is
// left in flight.
func TestConcurrentCallsGetTheirOwnSpans(t *testing.T) {
	tel := newTelemetry(t, nil)
	reg := tel.registry(t, true, nil, nil)
	var wg sync.WaitGroup
	parents := make([]trace.SpanID, 100)
	for i := range 120 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, turn := tel.tp.Tracer("agent").Start(context.Background(), "turn")
			defer turn.End()
			id, args := fmt.Sprint("call_", i), `{"query":"q"}`
			switch {
			case i >= 100:
				id = "same-id"
			case i%3 == 0:
				args = `{"query":1}` // invalid
			}
			if i < 100 {
				parents[i] = turn.SpanContext().SpanID()
			}
			reg.Call(ctx, struct{}{}, tool.Request{ID: id, Name: "search", Args: []byte(args)})
		}()
	}
	wg.Wait()
	assert.Len(t, tel.execSpans(), 120, "one span per call")
	for i := range 100 {
		s := tel.span(t, fmt.Sprint("call_", i))
		if i%3 == 0 {
			assert.False(t, s.Parent().IsValid(), "preflight refused it: no parent")
		} else {
			assert.Equal(t, parents[i], s.Parent().SpanID(), "call_%d is under its own caller's span", i)
		}
	}
	assert.Equal(t, 0, tel.obs.InFlight(), "nothing left in flight")
}

func TestEventsBeforeTheMiddlewareAreKept(t *testing.T) {
	tel := newTelemetry(t, nil)
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: tel.obs})
	reg.MustAdd(tool.New(tool.Definition{Name: "write", Description: "Writes.", Safety: tool.SafetyMutating},
		func(context.Context, struct{}) (string, error) { return "written", nil }))
	// Approval outside the middleware: its events come before the span.
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooltest.NewApprover(tooltest.AllowOnce())}), toolotel.Middleware[struct{}](tel.obs))
	ctx, turn := tel.tp.Tracer("agent").Start(context.Background(), "turn")
	tooltest.WantOK(t, reg.Call(ctx, struct{}{}, tool.Request{ID: "c1", Name: "write"}))
	turn.End()
	s := tel.span(t, "c1")
	assert.Equal(t, turn.SpanContext().SpanID(), s.Parent().SpanID())
	assert.Equal(t, []string{"toolbelt.approval.requested", "toolbelt.approval.decided"}, eventNames(s))
}
