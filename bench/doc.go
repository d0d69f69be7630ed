// Package bench runs one tool-call workload through Toolbelt and through its
// peers, and compares each with the floor measured in the same run.
//
// The workload is the search tool of the root module's benchmarks: six
// fields with minLength, maxLength, pattern, enum, minimum and maximum
// constraints, one valid and one invalid set of arguments. Each framework
// gets the same argument bytes and must return the same result text, through
// its own tool-call path, with validation switched on where it offers it.
// The floor is json.Unmarshal into the struct, the function, json.Marshal of
// the result.
//
// It is its own module so that the root module gains no dependency.
//
// # Serving over MCP
//
// The same tool is also served over MCP's streamable HTTP, through
// toolmcp (a Registry behind AddTools and NewHTTPHandler) and directly on
// the MCP Go SDK (its typed handler, which validates the arguments against
// the same input schema and checks the output schema), and driven by the
// same clients (the SDK's, one session each) at 1, 16 and 200 concurrent
// sessions; the bare SDK is the floor. The table of calls/s and p50/p99
// latency with their ratios to the SDK, and what an idle session holds:
//
//	cd bench && GOWORK=off go run ./cmd/servetable
//	cd bench && GOWORK=off go test -run '^$' -bench Serve
//
// # ADK's agent flow
//
// ADK is measured twice over. The adk and adk_tooladk rows call a tool the
// way ADK's LLM flow does for one function call (the arguments decoded
// into a map as genai decodes them, a ToolContext, Run, the response
// encoded): ADK's own functiontool, and the registry's tool through
// tooladk (Registry.Call inside). The adk_flow rows run a whole turn of an
// llmagent through ADK's runner, per call: a session created, the
// user's message, a scripted model that answers it with the function call
// (offline), the flow running the tool, the events appended, the model
// asked again, the session deleted; once with functiontool, once with
// tooladk. A turn costs far more than a tool call, so these rows say what
// a Toolbelt tool adds to an ADK agent's turn.
//
// # Running
//
// The table (median of 6 interleaved rounds of 1 s per benchmark, two to
// three minutes), then the acceptance table:
//
//	cd bench && GOWORK=off go run ./cmd/benchtable
//
// Each ratio to the floor is given by wall-clock time and by CPU time; on a
// busy shared machine the second is the steadier.
//
// The benchmarks in one go test run, and the check that every case returns
// the expected result and accepts what testdata/acceptance.md says:
//
//	cd bench && GOWORK=off go test -run '^$' -bench . -benchmem
//	cd bench && GOWORK=off go test ./...
//
// # Fairness
//
// Toolbelt's generated input schema is handed to every peer that takes a
// schema. Left to their own inference, the MCP Go SDK and ADK refuse the
// struct (google/jsonschema-go rejects "minLength=1,…" tags) and mcp-go
// publishes the tool with no schema at all, so its validation passes
// everything (TestPeersOwnInference). Eino's InferTool reads the same tags as
// Toolbelt for the schema the model sees, but never validates arguments
// against it. testdata/acceptance.md, checked by TestAcceptance, shows what
// each path does with each kind of bad argument.
//
// # Agent flows
//
// A framework's agent calls a tool inside a turn of its own flow. The
// eino_flow rows run one turn of Eino's adk ChatModelAgent under its Runner
// per call (a scripted model makes the call, the ReAct graph's ToolsNode
// runs the tool, the model is asked again and ends the turn), with Eino's
// InferTool, and with the registry's tool through tooleino: what a tool
// costs an Eino agent, and what Toolbelt's pipeline adds to a turn. In the
// flow, an error of InferTool (a wrong type, trailing data, cut-off
// arguments) ends the whole run, and the model is never answered ("ends the
// run" in the acceptance table); tooleino answers with the retry hint.
package bench
