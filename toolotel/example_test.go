package toolotel_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolbelt-go/tool"
	toolotel "github.com/toolbelt-go/tool/toolotel"
)

func Example() {
	spans := tracetest.NewSpanRecorder() // your exporter; here, spans kept in memory
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())

	obs, err := toolotel.NewObserver(&toolotel.Options{TracerProvider: tp})
	if err != nil {
		panic(err)
	}
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: obs})
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city."},
		func(_ context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "21°C in " + in.City, nil
		}))
	reg.Use(toolotel.Middleware[struct{}](obs))

	ctx, turn := tp.Tracer("agent").Start(context.Background(), "agent turn")
	reg.Call(ctx, struct{}{}, tool.Request{ID: "call_1", Name: "weather", Args: []byte(`{"city":"Lisbon"}`)})
	reg.Call(ctx, struct{}{}, tool.Request{ID: "call_2", Name: "weather", Args: []byte(`{"town":"Lisbon"}`)})
	turn.End()

	for _, s := range spans.Ended() {
		if s.Name() == "agent turn" {
			continue
		}
		fmt.Printf("%s (child of the turn: %v)\n", s.Name(), s.Parent().SpanID() == turn.SpanContext().SpanID())
		for _, kv := range s.Attributes() {
			fmt.Printf("  %s=%s\n", kv.Key, kv.Value.String())
		}
		fmt.Printf("  status: %s %q\n", s.Status().Code, s.Status().Description)
	}
	// Output:
	// execute_tool weather (child of the turn: true)
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.name=weather
	//   gen_ai.tool.type=function
	//   gen_ai.tool.call.id=call_1
	//   gen_ai.tool.description=Current weather for a city.
	//   toolbelt.call.status=ok
	//   status: Unset ""
	// execute_tool weather (child of the turn: false)
	//   gen_ai.operation.name=execute_tool
	//   gen_ai.tool.name=weather
	//   gen_ai.tool.type=function
	//   gen_ai.tool.call.id=call_2
	//   toolbelt.call.status=invalid
	//   error.type=invalid
	//   status: Error "invalid arguments: /city required, /town unknown_key"
}
