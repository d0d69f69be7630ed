package toolmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	toolmcp "github.com/toolbelt-go/tool/toolmcp"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name,minLength=1"`
}

// A registry served to an MCP client: here the SDK's own client, over
// in-memory pipes, where a real server would use stdio or HTTP.
func ExampleAddTools() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in WeatherArgs) (string, error) { return "21°C and sunny in " + in.City, nil }))

	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	toolmcp.AddTools(server, reg, nil)

	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, _ := server.Connect(ctx, st, nil)
	defer ss.Wait()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	list, _ := cs.ListTools(ctx, nil)
	fmt.Println(list.Tools[0].Name, list.Tools[0].Annotations.ReadOnlyHint)

	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": "Lisbon"}})
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)

	// Toolbelt's preflight is the only validator: the model gets a retry hint.
	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"town": "Lisbon"}})
	fmt.Println(res.IsError)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// weather true
	// false 21°C and sunny in Lisbon
	// true
	// Invalid arguments for weather (2 problems):
	// - /city: missing required key "city" (string)
	// - /town: unknown key "town"; allowed keys: city
	// Required keys: city.
	// Expected shape: {"city": "<string>"}
	// Fix the arguments and call weather again.
}

// A registry served over streamable HTTP: a client of protocol 2026-07-28
// calls without a session; a page of another origin is refused.
func ExampleNewHTTPHandler() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in WeatherArgs) (string, error) { return "21°C and sunny in " + in.City, nil }))
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "v1.0.0"}, nil)
	toolmcp.AddTools(server, reg, nil)

	hs := httptest.NewServer(toolmcp.NewHTTPHandler(server, nil)) // http.Handle("/mcp", …) in a real server
	defer hs.Close()

	ctx := context.Background()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	defer cs.Close()
	fmt.Println(cs.InitializeResult().ProtocolVersion, "session:", cs.ID() != "")
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{"city": "Lisbon"}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)

	req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Origin", "https://evil.example")
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// 2026-07-28 session: false
	// 21°C and sunny in Lisbon
	// 403
}

// The tools of an MCP server behind a registry: its preflight checks the
// server's schema before the server sees a call.
func ExampleAddRemoteTools() {
	// A server to connect to; any MCP server will do.
	remote := mcp.NewServer(&mcp.Implementation{Name: "calc", Version: "v1.0.0"}, nil)
	remote.AddTool(&mcp.Tool{Name: "add", Description: "Add two numbers.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ A, B float64 }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil
		})
	// Connected here in-process over a pipe; a server started as a
	// program is connected with mcp.CommandTransport, one over HTTP with
	// mcp.StreamableClientTransport. Guard bounds what the server sends.
	ctx := context.Background()
	c, s := net.Pipe()
	ss, _ := remote.Connect(ctx, &mcp.IOTransport{Reader: s, Writer: s}, nil)
	defer ss.Wait()
	cs, _ := toolmcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1.0.0"}, nil).
		Connect(ctx, toolmcp.Guard(&mcp.IOTransport{Reader: c, Writer: c}, nil), nil)
	defer cs.Close()

	reg := tool.NewRegistry[struct{}](nil)
	added, err := toolmcp.AddRemoteTools(ctx, reg, cs, &toolmcp.RemoteOptions{Prefix: "calc_"})
	fmt.Println(added, err)

	res := reg.Call(ctx, struct{}{}, tool.Request{Name: "calc_add", Args: json.RawMessage(`{"a":2,"b":40}`)})
	fmt.Println(res.Status, res.Text())
	res = reg.Call(ctx, struct{}{}, tool.Request{Name: "calc_add", Args: json.RawMessage(`{"a":2}`)})
	fmt.Println(res.Status)
	// Output:
	// [calc_add] <nil>
	// ok 42
	// invalid
}

// Notes is one session's notebook, made on the session's first call and
// dropped when the session ends.
type Notes struct{ lines []string }

type NoteArgs struct {
	Text string `json:"text" jsonschema:"minLength=1"`
}

// State per session, over HTTP: each MCP session gets its own Notes, kept
// under the ID toolmcp gives the session and dropped when the session
// ends (here when the client closes it; otherwise when the handler
// reclaims it as idle).
func ExampleSessionID() {
	var notebooks sync.Map // session ID -> *Notes
	reg := tool.NewRegistry[*Notes](nil)
	reg.MustAdd(tool.NewFor(tool.Definition{Name: "note", Description: "Add a line to this session's notes; returns them all.", Safety: tool.SafetyMutating},
		func(_ context.Context, call *tool.Call[*Notes], in NoteArgs) (string, error) {
			call.State.lines = append(call.State.lines, in.Text)
			return strings.Join(call.State.lines, "; "), nil
		}))

	ended := make(chan string, 1)
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v1.0.0"}, nil)
	toolmcp.AddTools(server, reg, &toolmcp.Options[*Notes]{
		State: func(_ context.Context, req *mcp.CallToolRequest) (*Notes, error) {
			id := toolmcp.SessionID(req)
			if id == "" {
				// No session (2026-07-28 over HTTP): "" is every such
				// client's, so it must not key one client's notes. A server
				// that signs its users in keys by req.Extra.TokenInfo here.
				return nil, errors.New("notes are kept per session: connect with protocol 2025-11-25 or earlier")
			}
			if n, ok := notebooks.Load(id); ok {
				return n.(*Notes), nil
			}
			n, _ := notebooks.LoadOrStore(id, &Notes{})
			return n.(*Notes), nil
		},
		SessionEnded: func(id string) {
			notebooks.Delete(id)
			ended <- id
		},
	})
	hs := httptest.NewServer(toolmcp.NewHTTPHandler(server, nil))
	defer hs.Close()

	ctx := context.Background()
	connect := func() *mcp.ClientSession {
		cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		return cs
	}
	note := func(cs *mcp.ClientSession, text string) {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "note", Arguments: NoteArgs{Text: text}})
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	alice, bob := connect(), connect()
	note(alice, "buy milk")
	note(bob, "call mum")
	note(alice, "fix the bike")

	alice.Close() // DELETE: the session ends
	<-ended
	n := 0
	notebooks.Range(func(any, any) bool { n++; return true })
	fmt.Println("notebooks left:", n)
	bob.Close()
	<-ended
	// Output:
	// buy milk
	// call mum
	// buy milk; fix the bike
	// notebooks left: 1
}

// A client that answers approval questions by script (a test, a bot): its
// elicitation handler reads the form's fields by the names toolmcp
// exports. With protocol 2026-07-28 the SDK's client passes the input
// request under toolmcp.ApprovalInputKey to the same handler and retries
// the call with the answer.
func ExampleApprover() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "note", Description: "Write a note.", Safety: tool.SafetyMutating},
		func(_ context.Context, in NoteArgs) (string, error) { return "noted: " + in.Text, nil }))
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: toolmcp.Approver(nil)}))
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v1.0.0"}, nil)
	toolmcp.AddTools(server, reg, nil)

	// The script: allow notes about milk, deny the rest with a reason.
	answer := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if strings.Contains(req.Params.Message, "milk") {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{
				toolmcp.ApprovalFieldDecision: toolmcp.ApprovalAllowOnce}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{
			toolmcp.ApprovalFieldDecision: toolmcp.ApprovalDeny,
			toolmcp.ApprovalFieldReason:   "only notes about milk"}}, nil
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		ctx := context.Background()
		ct, st := mcp.NewInMemoryTransports()
		ss, _ := server.Connect(ctx, st, nil)
		cs, _ := mcp.NewClient(&mcp.Implementation{Name: "script", Version: "v1.0.0"}, &mcp.ClientOptions{ElicitationHandler: answer}).
			Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
		for _, text := range []string{"buy milk", "sell the car"} {
			res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "note", Arguments: NoteArgs{Text: text}})
			fmt.Println(version, res.IsError, res.Content[0].(*mcp.TextContent).Text)
		}
		cs.Close()
		ss.Wait()
	}
	// Output:
	// 2025-11-25 false noted: buy milk
	// 2025-11-25 true The call to note was not allowed to run: the user said: only notes about milk. It did not run. Do not repeat it unchanged; change the approach or ask the user.
	// 2026-07-28 false noted: buy milk
	// 2026-07-28 true The call to note was not allowed to run: the user said: only notes about milk. It did not run. Do not repeat it unchanged; change the approach or ask the user.
}
