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
// # Using a server's tools
//
//	client := toolmcp.NewClient(&mcp.Implementation{Name: "my-agent", Version: "v1.0.0"}, nil)
//	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command("some-mcp-server")}, nil)
//	added, err := toolmcp.AddRemoteTools(ctx, reg, cs, &toolmcp.RemoteOptions{Prefix: "github_"})
//
// [AddRemoteTools] adds each tool of the server to the registry as a
// [tool.AnyTool] ([RemoteTools] returns them), so remote tools get the
// registry's preflight against their own schemas, its approval, deadlines,
// output caps and events. A tool the registry refuses is left out, by name,
// without the others. Remote annotations are hints: see
// [RemoteOptions.TrustAnnotations].
package toolmcp
