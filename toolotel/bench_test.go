package toolotel_test

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolbelt-go/tool"
	toolotel "github.com/toolbelt-go/tool/toolotel"
)

// BenchmarkCall compares a call through a registry without telemetry (the
// floor), with a no-op observer (the cost of events alone), and recorded by
// the Observer and the Middleware,
// with the SDK sampling every span (exported nowhere) and a manual metric
// reader, in the same run.
func BenchmarkCall(b *testing.B) {
	echo := tool.New(tool.Definition{Name: "echo", Description: "Echoes."},
		func(_ context.Context, in searchArgs) (string, error) { return in.Query, nil })
	req := tool.Request{ID: "call_1", Name: "echo", Args: []byte(`{"query":"hello"}`), Session: "s"}
	b.Run("floor=no telemetry", func(b *testing.B) {
		reg := tool.NewRegistry[struct{}](nil)
		reg.MustAdd(echo)
		for b.Loop() {
			reg.Call(context.Background(), struct{}{}, req)
		}
	})
	b.Run("a no-op observer", func(b *testing.B) {
		reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: tool.ObserverFunc(func(tool.Event) {})})
		reg.MustAdd(echo)
		for b.Loop() {
			reg.Call(context.Background(), struct{}{}, req)
		}
	})
	b.Run("Observer+Middleware", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		obs, err := toolotel.NewObserver(&toolotel.Options{TracerProvider: tp, MeterProvider: mp})
		if err != nil {
			b.Fatal(err)
		}
		reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: obs})
		reg.MustAdd(echo)
		reg.Use(toolotel.Middleware[struct{}](obs))
		for b.Loop() {
			reg.Call(context.Background(), struct{}{}, req)
		}
	})
}
