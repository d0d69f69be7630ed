package bench

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// call runs one prepared tool call: the same arguments each time. When text
// is not nil it is set to what the model would read (the result, or the
// error message). rejected reports that the framework refused the call with
// an error result; err is a failure of the harness itself (a broken
// connection), never of the arguments.
type call func(ctx context.Context, text *string) (rejected bool, err error)

// A Case is one framework's tool-call path, set up for the search tool.
type Case struct {
	ID        string // short name, used for sub-benchmarks
	Framework string // the framework, as the table names it
	Module    string // its Go module path
	Path      string // what one call goes through, in short (the open function's doc says more)
	Validates string // what the path checks, in short (testdata/acceptance.md says more)

	open func() (prepare func(args []byte) call, closeFn func(), err error)
}

// Cases returns the floor and every framework's path, the floor first.
func Cases() []Case {
	return []Case{
		{ID: "floor", Framework: "encoding/json (floor)", Module: "std",
			Path: "Unmarshal → function → Marshal", Validates: "types only", open: openFloor},
		{ID: "toolbelt", Framework: "Toolbelt", Module: "github.com/toolbelt-go/tool",
			Path: "Registry.Call", Validates: "JSON Schema; strict JSON", open: openToolbelt()},
		{ID: "toolbelt_approval", Framework: "Toolbelt + approval", Module: "github.com/toolbelt-go/tool",
			Path: "Registry.Call, Approval(AllowAllPolicy)", Validates: "JSON Schema; strict JSON", open: openToolbelt(approveAll())},
		{ID: "mcpgo_server", Framework: "mcp-go", Module: "github.com/mark3labs/mcp-go",
			Path: "MCPServer.HandleMessage", Validates: "JSON Schema (opt-in)", open: openMCPGoServer},
		{ID: "mcpgo_client", Framework: "mcp-go", Module: "github.com/mark3labs/mcp-go",
			Path: "Client.CallTool, in-process", Validates: "JSON Schema (opt-in)", open: openMCPGoClient},
		{ID: "gosdk_handler", Framework: "MCP Go SDK", Module: "github.com/modelcontextprotocol/go-sdk",
			Path: "typed tools/call handler", Validates: "JSON Schema; output schema", open: openGoSDKHandler},
		{ID: "gosdk_client", Framework: "MCP Go SDK", Module: "github.com/modelcontextprotocol/go-sdk",
			Path: "ClientSession.CallTool, in-memory", Validates: "JSON Schema; output schema", open: openGoSDKClient},
		{ID: "eino", Framework: "Eino", Module: "github.com/cloudwego/eino",
			Path: "InferTool, InvokableRun", Validates: "types only", open: openEino},
		{ID: "adk", Framework: "ADK", Module: "google.golang.org/adk",
			Path: "functiontool Run", Validates: "JSON Schema; output schema", open: openADK},
		{ID: "eino_tooleino", Framework: "Eino + tooleino", Module: "github.com/cloudwego/eino",
			Path: "tooleino InvokableRun (Registry.Call)", Validates: "JSON Schema; strict JSON", open: openTooleino},
		{ID: "eino_flow", Framework: "Eino", Module: "github.com/cloudwego/eino",
			Path: "Runner turn, InferTool", Validates: "types only", open: openEinoFlow(false)},
		{ID: "eino_flow_tooleino", Framework: "Eino + tooleino", Module: "github.com/cloudwego/eino",
			Path: "Runner turn, tooleino", Validates: "JSON Schema; strict JSON", open: openEinoFlow(true)},
		{ID: "adk_tooladk", Framework: "ADK + tooladk", Module: "google.golang.org/adk",
			Path: "tooladk Run (Registry.Call)", Validates: "JSON Schema", open: openTooladk},
		{ID: "adk_flow", Framework: "ADK", Module: "google.golang.org/adk",
			Path: "runner turn, functiontool", Validates: "JSON Schema; output schema", open: openADKFlow(false)},
		{ID: "adk_flow_tooladk", Framework: "ADK + tooladk", Module: "google.golang.org/adk",
			Path: "runner turn, tooladk", Validates: "JSON Schema", open: openADKFlow(true)},
	}
}

// A Setup is a Case made ready to call: its registry, server or client
// built and connected. Close it when done.
type Setup struct {
	Case
	prepare func(args []byte) call
	close   func()
}

// Open builds the case's tool and whatever its path needs.
func (c Case) Open() (*Setup, error) {
	prepare, closeFn, err := c.open()
	if err != nil {
		return nil, fmt.Errorf("bench: open %s: %w", c.ID, err)
	}
	return &Setup{Case: c, prepare: prepare, close: closeFn}, nil
}

// Close releases what Open started (connections, sessions).
func (s *Setup) Close() { s.close() }

// Call makes one call with args and returns what the model would read and
// whether the framework refused the call.
func (s *Setup) Call(ctx context.Context, args []byte) (text string, rejected bool, err error) {
	rejected, err = s.prepare(args)(ctx, &text)
	return text, rejected, err
}

// BenchmarkValid returns the benchmark of the valid call. It fails if the
// framework refuses the call or answers anything but the expected result.
func (s *Setup) BenchmarkValid() func(*testing.B) {
	return s.benchmark(ValidArgs, false)
}

// BenchmarkInvalid returns the benchmark of the invalid call. It is skipped
// for a framework that runs the function with those arguments (the
// invalid call would cost as much as the valid one), and fails if the
// framework's answer changes between calls.
func (s *Setup) BenchmarkInvalid() func(*testing.B) {
	return s.benchmark(InvalidArgs, true)
}

// RejectsInvalid reports whether the framework refuses InvalidArgs.
func (s *Setup) RejectsInvalid() (bool, error) {
	_, rejected, err := s.Call(context.Background(), InvalidArgs)
	return rejected, err
}

func (s *Setup) benchmark(args []byte, reject bool) func(*testing.B) {
	return func(b *testing.B) {
		ctx := context.Background()
		text, rejected, err := s.Call(ctx, args)
		switch {
		case err != nil:
			b.Fatal(err)
		case reject && !rejected:
			b.Skipf("%s runs the function with invalid arguments", s.Framework)
		case !reject && (rejected || text != wantText):
			b.Fatalf("%s answered %q, want %q", s.ID, text, wantText)
		}
		c := s.prepare(args)
		b.ReportAllocs()
		for b.Loop() {
			rejected, err := c(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			if rejected != reject {
				b.Fatal(errors.New("the answer changed between calls"))
			}
		}
	}
}
