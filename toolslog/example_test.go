package toolslog_test

import (
	"context"
	"log/slog"
	"os"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/toolslog"
)

// Every call, the ones preflight refuses included, logged by the observer.
func ExampleObserver() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: stable}))
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: toolslog.Observer(logger, nil)})
	reg.MustAdd(tool.New(tool.Definition{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "Hello, " + in.Name, nil
		}))

	reg.Call(context.Background(), struct{}{}, tool.Request{ID: "call_1", Name: "greet", Args: []byte(`{"name":"Ada"}`)})
	reg.Call(context.Background(), struct{}{}, tool.Request{ID: "call_2", Name: "greet", Args: []byte(`{"nmae":"Ada"}`)})
	reg.Call(context.Background(), struct{}{}, tool.Request{ID: "call_3", Name: "great"})
	// Output:
	// level=INFO msg="tool call" tool=greet call_id=call_1 status=ok
	// level=WARN msg="tool call" tool=greet call_id=call_2 status=invalid error="invalid arguments: /name required, /nmae unknown_key"
	// level=WARN msg="tool call" tool=great call_id=call_3 status=unknown_tool error="tool: unknown tool \"great\""
}

// The calls that pass preflight, logged with their context and, as asked
// here, their arguments.
func ExampleMiddleware() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: stable}))
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "Hello, " + in.Name, nil
		}))
	reg.Use(toolslog.Middleware[struct{}](logger, &toolslog.Options{Arguments: true}))

	reg.Call(context.Background(), struct{}{}, tool.Request{ID: "call_1", Name: "greet", Args: []byte(`{"name":"Ada"}`), Session: "conv-7"})
	// Output:
	// level=INFO msg="tool call" tool=greet call_id=call_1 session=conv-7 status=ok args="{\"name\":\"Ada\"}"
}

// stable drops the attributes that change from run to run.
func stable(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey || a.Key == "duration" {
		return slog.Attr{}
	}
	return a
}
