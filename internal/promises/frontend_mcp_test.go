package promises

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolbelt-go/tool/toolmcp"
)

// The protocol versions a client speaks: before server requests were
// dropped from calls (elicitation during the call), and after (input
// requests answered in a retried call).
const (
	legacyProtocol = "2025-11-25"
	mrtrProtocol   = "2026-07-28"

	// mcpClient is the MCP frontends' own way of asking a person.
	mcpClient = "the MCP client"
)

func mcpFrontends() []frontend {
	var fs []frontend
	for _, tr := range []struct {
		name      string
		stateless bool
		http      bool
	}{{name: "stdio"}, {name: "HTTP", http: true}, {name: "HTTP stateless", http: true, stateless: true}} {
		for _, protocol := range []string{legacyProtocol, mrtrProtocol} {
			fs = append(fs, frontend{
				name:      fmt.Sprintf("MCP %s %s", tr.name, protocol),
				mechanism: mcpClient,
				// Stateless HTTP before 2026-07-28 has no session to send an
				// elicitation on.
				clientCanAsk: !(tr.stateless && protocol == legacyProtocol),
				call: func(t *testing.T, w *world, _, name, args string) outcome {
					cs := connectMCP(t, w, tr.http, tr.stateless, protocol)
					res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: rawJSON(args)})
					if err != nil {
						return outcome{results: 1, isError: true, text: err.Error()}
					}
					var text []string
					for _, c := range res.Content {
						if tc, ok := c.(*sdk.TextContent); ok {
							text = append(text, tc.Text)
						}
					}
					return outcome{results: 1, isError: res.IsError, text: strings.Join(text, "\n")}
				},
			})
		}
	}
	return fs
}

type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// connectMCP serves w's first replica over MCP and connects a client that
// answers every question it is asked: as the person would, when the host
// chose the client, and with "allow once" otherwise (counted: it should
// never be asked then).
func connectMCP(t *testing.T, w *world, overHTTP, stateless bool, protocol string) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	server := sdk.NewServer(&sdk.Implementation{Name: "promises", Version: "v0.0.1"}, nil)
	t.Cleanup(toolmcp.AddTools(server, w.a, &toolmcp.Options[struct{}]{
		Session: func(*sdk.CallToolRequest) string { return w.session },
	}))
	client := toolmcp.NewClient(&sdk.Implementation{Name: "client", Version: "v0.0.1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			if !w.clientChosen {
				w.elsewhere.Add(1)
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{toolmcp.ApprovalFieldDecision: toolmcp.ApprovalAllowOnce}}, nil
			}
			a := w.person.answer(req.Params.Message)
			decision := toolmcp.ApprovalDeny
			if a.kind == allow().kind {
				decision = toolmcp.ApprovalAllowOnce
			}
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{toolmcp.ApprovalFieldDecision: decision, toolmcp.ApprovalFieldReason: a.reason}}, nil
		},
	})
	var transport sdk.Transport
	if overHTTP {
		hs := httptest.NewServer(toolmcp.NewHTTPHandler(server, &toolmcp.HTTPOptions{Stateless: stateless}))
		t.Cleanup(func() {
			for ss := range server.Sessions() {
				_ = ss.Close()
			}
			hs.Close()
		})
		transport = &sdk.StreamableClientTransport{Endpoint: hs.URL}
	} else {
		c, s := net.Pipe()
		ss, err := server.Connect(ctx, &sdk.IOTransport{Reader: s, Writer: s}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Wait() })
		transport = &sdk.IOTransport{Reader: c, Writer: c}
	}
	cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
