// Package toolmcp connects Toolbelt to the Model Context Protocol, on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk/mcp): it serves a
// [tool.Registry] to any MCP client, and puts an MCP server's tools behind
// a registry's pipeline. It returns and takes the SDK's own types, so the
// SDK stays in charge of transports, sessions, resources and prompts.
//
// Its name is toolmcp, not mcp, so that it sits beside the SDK's package
// without a clash (as toolopenai sits beside openai); goimports writes the
// import this way:
//
//	import (
//		"github.com/modelcontextprotocol/go-sdk/mcp"
//		toolmcp "github.com/toolbelt-go/tool/toolmcp"
//	)
//
// # Serving a registry
//
//	reg := tool.NewRegistry[struct{}](nil)
//	reg.MustAdd(search, readFile, writeFile)
//	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: toolmcp.Approver(nil)}))
//
//	server := mcp.NewServer(&mcp.Implementation{Name: "my-tools", Version: "v1.0.0"}, nil)
//	toolmcp.AddTools(server, reg, nil)
//	err := server.Run(ctx, &mcp.StdioTransport{})
//
// [AddTools] lists each visible tool with its schemas and annotations, runs
// every tools/call through [tool.Registry.Call] (preflight, approval,
// deadline, output cap, events), and maps the result, progress and
// cancellation to MCP. [Approver] asks the client's user: by elicitation
// during the call before protocol 2026-07-28, and from 2026-07-28 on by an
// input request the client answers in a retried call (SEP-2322), resumed
// from a state signed with the registry's keyring. [RequestFromContext]
// gives a tool the MCP request it serves.
//
// # The approval form
//
// A client that answers approvals by script needs the form's names, which
// are exported: the answer to the question is an elicitation result with
// action "accept" and content {[ApprovalFieldDecision]: one of
// [ApprovalAllowOnce], [ApprovalAllowAlways], [ApprovalDeny]}, plus an
// optional [ApprovalFieldReason] the model reads with a deny. From protocol
// 2026-07-28 on the question is the input request [ApprovalInputKey] of an
// input-required result, and the answer goes back under the same key with
// the result's requestState. The doc of these names shows the form's schema;
// ExampleApprover is a scripted client; docs/mcp.md has both, and what
// each way a resumed call can end looks like to the client.
//
// # Serving over HTTP
//
// [NewHTTPHandler] serves the same server over streamable HTTP, with
// defaults meant for an endpoint that other parties can reach:
//
//	http.Handle("/mcp", toolmcp.NewHTTPHandler(server, nil))
//
// Browser requests from other origins are refused (name the origins of
// your own web app in [HTTPOptions.AllowedOrigins]), sessions idle for 10
// minutes are closed, at most 10,000 are open at once, and request bodies
// are bounded, each an option of [HTTPOptions].
//
// Stateful or stateless. Up to protocol 2025-11-25, a client opens a
// session (initialize) and sends its requests in it; the server keeps it
// in memory, may ask the client things during a call (elicitation: how
// [Approver] asks those clients), and a later request must reach the same
// process (behind a load balancer: sticky sessions). From 2026-07-28 on,
// every request stands alone (SEP-2575): no session, nothing kept, any
// replica answers, input the server needs comes back in a retried call
// (SEP-2322, resumed from state signed with the registry's keyring, so
// replicas that share the keyring resume each other's calls), and a client
// cancels a call by closing its request. NewHTTPHandler serves each client
// the way its version asks; [HTTPOptions.Stateless] serves the older
// versions without sessions too (no elicitation then: a call that needs
// approval from such a client is refused).
//
// A request without a session belongs to no conversation unless
// [Options.Session] names one, so a stateless deployment that wants page
// cursors and "allow always" names the user there, from its
// authentication.
//
// # Per-session state
//
// [SessionID] is the ID toolmcp gives the session of a call (the MCP
// session, or the stdio connection), and [Options.SessionEnded] is called
// with it when that session ends; together they let [Options.State] keep a
// value per session (a workspace, a login) and drop it in time:
//
//	var workspaces sync.Map // session ID -> *Workspace
//	toolmcp.AddTools(server, reg, &toolmcp.Options[*Workspace]{
//		State: func(ctx context.Context, req *mcp.CallToolRequest) (*Workspace, error) {
//			id := toolmcp.SessionID(req)
//			if w, ok := workspaces.Load(id); ok {
//				return w.(*Workspace), nil
//			}
//			w, _ := workspaces.LoadOrStore(id, newWorkspace())
//			return w.(*Workspace), nil
//		},
//		SessionEnded: func(id string) { workspaces.Delete(id) },
//	})
//
// (Requests without a session share the ID "": name the user in
// [Options.Session] and key by that where clients are stateless.)
// examples/mcpserver gives each session a project of its own this way.
//
// # Using a server's tools
//
//	client := toolmcp.NewClient(&mcp.Implementation{Name: "my-agent", Version: "v1.0.0"}, nil)
//	transport := &mcp.CommandTransport{Command: exec.Command("some-mcp-server")}
//	cs, err := client.Connect(ctx, toolmcp.Guard(transport, nil), nil)
//	added, err := toolmcp.AddRemoteTools(ctx, reg, cs, &toolmcp.RemoteOptions{Prefix: "github_"})
//
// [AddRemoteTools] adds each tool of the server to the registry as a
// [tool.AnyTool] ([RemoteTools] returns them), so remote tools get the
// registry's preflight against their own schemas, its approval, deadlines,
// output caps and events.
//
// Everything the server sends is untrusted. [Guard] reads it before the
// SDK does, within bounds ([GuardOptions]): a tool of the list that does
// not fit is kept by name only, and a huge result is cut as it arrives,
// never held whole. Titles and descriptions are escaped as the registry
// escapes what a model reads, and bounded ([RemoteOptions]); a tool whose
// definition is over the bounds, whose schema hides such characters in
// its data (names and values, which cannot be escaped), that the registry
// refuses, or that the server runs only as a task on a session before
// protocol 2026-07-28 is left out, by name, without the others (at
// 2026-07-28 such a tool is followed as a task: [Options].Tasks serves
// the tasks extension, and RemoteTools follows it).
// Remote annotations are hints: see [RemoteOptions.TrustAnnotations].
package toolmcp
