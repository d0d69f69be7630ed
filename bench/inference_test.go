package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/tool/utils"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/adk/agent"
	"google.golang.org/adk/tool/functiontool"
)

// TestPeersOwnInference records why the peers are handed Toolbelt's schema:
// left to infer it from the same struct tags, three of them would check
// less than the benchmark's schema says, or refuse the tool.
func TestPeersOwnInference(t *testing.T) {
	t.Run("mcp-go publishes no schema and runs the invalid call", func(t *testing.T) {
		s := server.NewMCPServer("bench", "1.0.0", server.WithToolCapabilities(false), server.WithInputSchemaValidation())
		// WithInputSchema prints its error to stderr and leaves the schema empty.
		tl := mcpgo.NewTool(toolName, mcpgo.WithDescription(toolDesc), mcpgo.WithInputSchema[searchArgs]())
		if len(tl.RawInputSchema) != 0 || len(tl.InputSchema.Properties) != 0 {
			t.Fatalf("mcp-go inferred a schema now: %s; rerun the acceptance table with it", tl.RawInputSchema)
		}
		s.AddTool(tl, mcpgo.NewStructuredToolHandler(func(ctx context.Context, _ mcpgo.CallToolRequest, in searchArgs) (searchOut, error) {
			return search(ctx, in)
		}))
		msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, toolName, InvalidArgs)
		r, ok := s.HandleMessage(context.Background(), msg).(mcpgo.JSONRPCResponse)
		if !ok {
			t.Fatal("tools/call failed")
		}
		if res := r.Result.(*mcpgo.CallToolResult); res.IsError {
			t.Errorf("the invalid call was refused: %v", res.Content)
		}
	})
	t.Run("the MCP Go SDK refuses the tool", func(t *testing.T) {
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(fmt.Sprint(r), "WORD=") {
				t.Errorf("AddTool without a schema: panic %v, want the tag error", r)
			}
		}()
		s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: toolName, Description: toolDesc},
			func(ctx context.Context, _ *mcp.CallToolRequest, in searchArgs) (*mcp.CallToolResult, searchOut, error) {
				out, err := search(ctx, in)
				return nil, out, err
			})
	})
	t.Run("ADK refuses the tool", func(t *testing.T) {
		_, err := functiontool.New(functiontool.Config{Name: toolName, Description: toolDesc},
			func(ctx agent.ToolContext, in searchArgs) (searchOut, error) { return search(ctx, in) })
		if err == nil || !strings.Contains(err.Error(), "WORD=") {
			t.Errorf("functiontool.New without a schema: error %v, want the tag error", err)
		}
	})
	t.Run("Eino shows the model every constraint", func(t *testing.T) {
		tl, err := utils.InferTool(toolName, toolDesc, search)
		if err != nil {
			t.Fatal(err)
		}
		info, err := tl.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		js, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(js)
		if err != nil {
			t.Fatal(err)
		}
		for _, kw := range []string{`"minLength":1`, `"maxLength":200`, `"pattern":`, `"enum":`, `"minimum":1`, `"maximum":500`, `"required":["query"]`} {
			if !strings.Contains(string(b), kw) {
				t.Errorf("Eino's schema has no %s: %s", kw, b)
			}
		}
	})
}
