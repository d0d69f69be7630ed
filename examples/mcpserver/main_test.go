package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	toolmcp "github.com/toolbelt-go/tool/toolmcp"
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
// that approves the write, on the newest protocol version of each kind:
// 2026-07-28 (no session, approval in a retried call) and 2025-11-25
// (a session, approval by elicitation).
func TestOverHTTP(t *testing.T) {
	server, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(toolmcp.NewHTTPHandler(server, nil))
	defer func() {
		for ss := range server.Sessions() {
			ss.Close()
		}
		hs.Close()
	}()
	asked := 0
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
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
			if got := cs.InitializeResult().ProtocolVersion; got != protocol {
				t.Fatalf("negotiated %s, want %s", got, protocol)
			}
			asked = 0
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "notes.md", "content": "hi " + protocol}})
			if err != nil || res.IsError || asked != 1 {
				t.Fatalf("write_file: %v %+v (asked %d times)", err, res, asked)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "notes.md"}})
			if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "hi "+protocol) {
				t.Fatalf("read_file: %v %+v", err, res)
			}
		})
	}
}
