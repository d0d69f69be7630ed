// Package tooleino gives a [tool.Registry]'s tools to CloudWeGo Eino
// (github.com/cloudwego/eino) as Eino's own tools, so that an adk
// ChatModelAgent under Eino's Runner, a ReAct agent or a compose graph's
// ToolsNode calls them as native tools, and every call still goes through
// the registry's whole pipeline.
//
//	tools, err := tooleino.New(reg, nil).Tools()
//	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
//		Name: "assistant", Description: "…", Model: model,
//		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
//	})
//	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: store})
//	events := runner.Query(tooleino.WithSession(ctx, conversationID), "…", adk.WithCheckPointID(conversationID))
//
// # What a call goes through
//
// Each call Eino makes is a [tool.Request] with Eino's own tool-call ID
// (compose.GetToolCallID), the session of the run ([WithSession], or
// [Options].Session) and the host state of the run ([Options].State, a
// function of Eino's context). Preflight, records (a repeated call ID is
// answered from its record), approval, limits, the deadline, the output cap
// and read_output, events, and the sandbox under codetools' run_shell are
// the registry's, as on every other path. What the model reads is the
// result's text, failures included: a call whose arguments the schema
// refuses gets the retry hint as the tool's result and the run goes on,
// where Eino's own InferTool runs the function with them or ends the run.
//
// # Definitions
//
// Each tool is shown as an Eino schema.ToolInfo with the tool's name,
// description and input schema. [Options].Target puts the schemas in the
// dialect of the provider behind the Eino chat model (OpenAI strict,
// Anthropic, Gemini), as the provider adapters do, and maps the model's
// calls back. [Adapter.Warnings] lists what the dialect changed and what
// Eino's own schema type cannot hold; a tool Eino cannot show is left out
// rather than failing the agent. [Adapter.UnknownTool] answers a call of a
// tool the agent was not given, which Eino otherwise ends the run for.
//
// # Approval
//
// [Approver] is the approver that asks through Eino's interrupt and
// resume: a call it is asked about interrupts the run with a [*Question]
// (the InterruptCtx's Info, which Eino's UIs and checkpoints show), and the
// host resumes the run with the person's [tool.Decision] as that interrupt's
// resume data ([Questions] finds them). The answer is bound to the
// arguments shown: a resume that hands the tool other arguments, or whose
// checkpoint was altered, runs nothing. The host may choose another
// approver (the approval page, a terminal): that one answers, the call
// waits for it inside the pipeline, and no interrupt is used.
//
// # Testing
//
// Package einotest runs an agent offline: a scripted chat model, and a
// driver that answers approval questions and resumes the run.
package tooleino
