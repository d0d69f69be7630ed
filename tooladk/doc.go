// Package tooladk puts a [tool.Registry] inside Google's Agent Development
// Kit for Go (google.golang.org/adk): its tools become ADK's own, a
// tool.Toolset that llmagent, the runner, ADK's web UI and its REST server
// use as they use functiontool's, while every call goes through the
// registry's pipeline. It is built and tested against ADK v1.7.0.
//
// The package is named tooladk, not adk, so that it sits beside ADK's
// packages without a clash.
//
// # An agent with a registry's tools
//
//	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Records: tool.NewMemoryRecordStore(0)})
//	reg.MustAdd(search, deleteFile)
//	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooladk.Approver()}))
//
//	tools := tooladk.New(reg, nil)
//	a, err := llmagent.New(llmagent.Config{Name: "coder", Model: m, Toolsets: []adktool.Toolset{tools}})
//
// Each function call ADK's flow makes goes through [tool.Registry.Call],
// with ADK's function-call ID as the request's ID and ADK's session as its
// session: preflight (a bad call comes back to the model as the retry
// hint, in the function response's "error", never as an error that
// stops the run), the record (a call ID that already ran in the session
// is answered from its record), approval, limits, the deadline (ADK's
// context, cancelled with the run, is the call's), output caps with
// read_output, the registry's observer. [Options].State makes the host's
// per-call state from ADK's tool context; a tool reaches that context
// itself with [ToolContextFrom].
//
// # Definitions
//
// Each tool's declaration is the one Gemini is sent (package dialect,
// Gemini's Schema object, or parametersJsonSchema where it cannot say the
// schema or [Options].JSONSchema asks), and [Toolset.Warnings] says what
// that form changed: constraints moved into descriptions, names renamed,
// tools left out. Options.Tools offers a chosen subset of the registry.
//
// # Approval through ADK's confirmation
//
// [Approver] defers a call to [Answerer], and the toolset relays it as
// ADK's tool confirmation (ToolContext.RequestConfirmation), which ADK's
// UIs show as the adk_request_confirmation function call; the user's
// answer resumes the same call, bound to the canonical arguments the
// question showed. A resume with other arguments (a session store that
// was altered) does not run. When the host chooses another approver
// (the approval page, a terminal), that approver decides and ADK's
// confirmation is not used.
//
// # When to use this instead of MCP
//
// An agent built on ADK that runs in the same process as its tools uses a
// Toolset: no JSON-RPC framing per call, ADK's own confirmation UI, ADK's
// session as the conversation. Tools served to other processes or other
// frameworks go over MCP (toolmcp), and ADK's mcptoolset reaches them.
package tooladk
