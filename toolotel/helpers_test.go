package toolotel_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolbelt-go/tool"
	toolotel "github.com/toolbelt-go/tool/toolotel"
	"github.com/toolbelt-go/tool/tooltest"
)

// telemetry is an SDK whose spans and metrics stay in memory for the test
// to read.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	obs    *toolotel.Observer
}

func newTelemetry(t *testing.T, opts *toolotel.Options) *telemetry {
	t.Helper()
	tel := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tel.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		_ = tel.tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	var o toolotel.Options
	if opts != nil {
		o = *opts
	}
	o.TracerProvider, o.MeterProvider = tel.tp, mp
	obs, err := toolotel.NewObserver(&o)
	require.NoError(t, err)
	tel.obs = obs
	return tel
}

// execSpans returns the ended execute_tool spans.
func (tel *telemetry) execSpans() []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if strings.HasPrefix(s.Name(), "execute_tool") {
			out = append(out, s)
		}
	}
	return out
}

// span returns the one execute_tool span of the call with id.
func (tel *telemetry) span(t *testing.T, id string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range tel.execSpans() {
		if attrs(s)["gen_ai.tool.call.id"] == id {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "spans of call %q", id)
	return found[0]
}

// attrs returns a span's attributes as strings.
func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

func eventNames(s sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, e := range s.Events() {
		out = append(out, e.Name)
	}
	return out
}

// metrics collects the metrics and returns them by name.
func (tel *telemetry) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, tel.reader.Collect(context.Background(), &rm))
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// key renders an attribute set as "k=v,k=v", sorted, for comparisons.
func key(set attribute.Set) string {
	var parts []string
	for _, kv := range set.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.String())
	}
	return strings.Join(parts, ",")
}

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty" jsonschema:"default=10"`
}

// gate holds the slow tool until closed.
type gate chan struct{}

// registry returns a registry observed by tel, with the middleware (if mw)
// first and approval after it, and tools that end each way a call can.
func (tel *telemetry) registry(t *testing.T, mw bool, approver tool.Approver, hold gate) *tool.Registry[struct{}] {
	t.Helper()
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: tel.obs, Grace: 50 * time.Millisecond})
	r.MustAdd(
		tool.New(tool.Definition{Name: "search", Description: "Searches the code.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, in searchArgs) (string, error) {
				// The tool's own work, traced under the call's span.
				_, work := trace.SpanFromContext(ctx).TracerProvider().Tracer("test").Start(ctx, "tool work")
				work.End()
				for i := range 3 {
					tool.ReportProgress(ctx, tool.Progress{Message: "scanning", Done: float64(i + 1), Total: 3})
				}
				return "found " + in.Query + " " + strings.Repeat("x", 10_000), nil
			}),
		tool.New(tool.Definition{Name: "fail", Description: "Fails.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (string, error) { return "", errors.New("disk full") }),
		tool.New(tool.Definition{Name: "crash", Description: "Panics.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (string, error) { panic("boom") }),
		tool.New(tool.Definition{Name: "write", Description: "Writes.", Safety: tool.SafetyMutating},
			func(context.Context, struct{}) (string, error) { return "written", nil }),
		tool.New(tool.Definition{Name: "slow", Description: "Ignores its context.", Safety: tool.SafetyReadOnly, Timeout: 50 * time.Millisecond},
			func(context.Context, struct{}) (string, error) { <-hold; return "late", nil }),
	)
	if mw {
		r.Use(toolotel.Middleware[struct{}](tel.obs))
	}
	if approver == nil {
		approver = tooltest.NewApprover()
	}
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver}))
	return r
}
