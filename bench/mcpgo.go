package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// newMCPGoServer is an mcp-go server with input validation on and the search
// tool as a structured handler (arguments bound to the struct, the result
// as structured content and as JSON text).
//
// mcp.WithInputSchema[searchArgs] fails on Toolbelt-style tags (mcp-go
// infers with google/jsonschema-go, which refuses "minLength=1,…"): it
// prints the error and leaves the tool without a schema, so validation would
// pass everything (TestPeersOwnInference). The tool is given Toolbelt's
// schema instead: both validate the same constraints.
func newMCPGoServer() *server.MCPServer {
	s := server.NewMCPServer("bench", "1.0.0",
		server.WithToolCapabilities(false),
		server.WithInputSchemaValidation(),
	)
	s.AddTool(
		mcp.NewTool(toolName, mcp.WithDescription(toolDesc), mcp.WithRawInputSchema(inputSchema())),
		mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in searchArgs) (searchOut, error) {
			return search(ctx, in)
		}),
	)
	return s
}

// openMCPGoServer sends tools/call to MCPServer.HandleMessage, the entry
// point every mcp-go transport hands its messages to: the JSON-RPC request
// bytes in, the response value out (a transport would then encode it).
func openMCPGoServer() (func([]byte) call, func(), error) {
	s := newMCPGoServer()
	prepare := func(args []byte) call {
		msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, toolName, args)
		return func(ctx context.Context, text *string) (bool, error) {
			resp := s.HandleMessage(ctx, msg)
			r, ok := resp.(mcp.JSONRPCResponse)
			if !ok {
				return false, fmt.Errorf("mcp-go: tools/call answered %#v", resp)
			}
			res, ok := r.Result.(*mcp.CallToolResult)
			if !ok {
				return false, fmt.Errorf("mcp-go: tools/call result is a %T", r.Result)
			}
			return mcpGoOutcome(res, text)
		}
	}
	return prepare, func() {}, nil
}

// openMCPGoClient calls the tool with client.CallTool through mcp-go's
// in-process transport: the client encodes the request, the server handles
// it as above, the client decodes the response.
func openMCPGoClient() (func([]byte) call, func(), error) {
	c, err := client.NewInProcessClient(newMCPGoServer())
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		return nil, nil, err
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, nil, err
	}
	prepare := func(args []byte) call {
		return func(ctx context.Context, text *string) (bool, error) {
			var req mcp.CallToolRequest
			req.Params.Name = toolName
			req.Params.Arguments = json.RawMessage(args)
			res, err := c.CallTool(ctx, req)
			if err != nil {
				return false, err
			}
			return mcpGoOutcome(res, text)
		}
	}
	return prepare, func() { c.Close() }, nil
}

func mcpGoOutcome(res *mcp.CallToolResult, text *string) (bool, error) {
	if text != nil {
		var parts []string
		for _, c := range res.Content {
			tc, ok := mcp.AsTextContent(c)
			if !ok {
				return false, errors.New("mcp-go: a result block is not text")
			}
			parts = append(parts, tc.Text)
		}
		*text = strings.Join(parts, "\n")
	}
	return res.IsError, nil
}
