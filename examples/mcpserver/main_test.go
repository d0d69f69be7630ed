package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestToolsConform(t *testing.T) {
	tooltest.Conformance(t, tooltest.Suite{ValidArgs: map[string]string{
		"search":       `{"query":"hello"}`,
		"read_file":    `{"path":"main.go"}`,
		"write_file":   `{"path":"notes.md","content":"hi"}`,
		"count_slowly": `{"to":1,"delay_ms":0}`,
	}}, newTools(newProject())...)
}

func TestDefinitionsGolden(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(newTools(newProject())...)
	tooltest.GoldenDefinitions(t, reg.Definitions(), "testdata/definitions.golden.json")
}

// The server over streamable HTTP, as -http serves it, with an SDK client
// that approves the write.
func TestOverHTTP(t *testing.T) {
	server, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer hs.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow_once"}}, nil
		},
	})
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			ctx := context.Background()
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "notes.md", "content": "hi " + protocol}})
			if err != nil || res.IsError {
				t.Fatalf("write_file: %v %+v", err, res)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "notes.md"}})
			if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "hi "+protocol) {
				t.Fatalf("read_file: %v %+v", err, res)
			}
		})
	}
}
