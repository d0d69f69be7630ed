// Package tool is the layer between an LLM agent loop and the tools it
// calls: typed tools whose input schema comes from struct tags, a registry
// that refuses bad definitions, and a call pipeline that checks the model's
// arguments before anything runs and always answers with one result.
//
// # Quick start
//
// Write a tool as a Go function of a struct:
//
//	type SearchArgs struct {
//		Query string `json:"query" jsonschema:"description=Text to find,minLength=1"`
//		Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100,default=20"`
//	}
//
//	search := tool.New(tool.Definition{Name: "search", Description: "Search the code base."},
//		func(ctx context.Context, in SearchArgs) ([]Hit, error) { ... })
//
// Register it and hand the definitions to the model:
//
//	reg := tool.NewRegistry[struct{}](nil)
//	if err := reg.Add(search); err != nil { ... } // names every problem
//	defs := reg.Definitions()                         // name, description, JSON Schema
//
// Run each tool call the model makes and send the result back:
//
//	res := reg.Call(ctx, struct{}{}, tool.Request{ID: id, Name: name, Args: args})
//	reply(id, res.Text(), res.IsError)
//
// # Tools and host state
//
// [New] makes an [AnyTool], which needs no host state. [NewFor] makes a
// [Tool] that receives the host's per-call state C (an agent, an LSP
// client, a session) as [Call.State]; a [Registry] has one state type.
// [NewRaw], or implementing [Tool] directly, is the raw tier: the function
// gets the arguments as JSON and the definition carries the schema.
//
// # The pipeline
//
// [Registry.Call] runs lookup (exact name; an unknown name gets the closest
// ones back), recover (a panic, even runtime.Goexit, becomes a result),
// preflight, the record ([RegistryOptions].Records), the middlewares added
// with [Registry.Use] (first outermost), the seal (what changed after
// approval does not run), the dry run, the limits, the deadline, then the
// tool on a goroutine of its own, and output. Preflight reads the
// arguments once, strictly (duplicate or case-folded keys, invalid UTF-8,
// trailing data and anything past [Limits] are refused), fills schema defaults,
// validates against the schema, and decodes into the argument type exactly
// what was validated; a problem comes back to the model as a retry hint
// with the JSON pointer, what was expected, the allowed values and a
// corrected example.
//
// The tool runs under a deadline: its Definition's Timeout or the
// registry's default, with a [TimeoutError] cause. A tool that ignores its
// context is abandoned after a grace period and counted in
// [Registry.Stats].
//
// # Approval, events and batches
//
// [Approval] is the middleware that asks before a call changes anything:
// a [Policy] decides from the call's [Safety] class, [Tier] and
// [Requirement] ([AskForWritesPolicy] by default; [DenyDestructivePolicy]
// refuses deleting outright); an [Approver] is shown a [Preview] and
// answers, now or later ([ApprovalAnswer]); what runs is bound to what was
// approved. An [Observer] in [RegistryOptions]
// receives each call's events in order ([ReportProgress] adds progress),
// and [Registry.CallBatch] runs one model turn's calls, read-only ones in
// parallel.
//
// # Results
//
// A type that is a call ([Request], [Call], [CallInfo]) names the call's
// fields ID and Name; a type that is about a call ([Result], [Event],
// [ApprovalRequest], [PolicyInput], [ArgsError]) names them CallID and
// Tool.
//
// Every call produces one [*Result] with two views: the model view
// (Content, Structured, IsError), escaped and bounded, and the host view
// (Status, Err, timings) that never reaches the model. Tool errors can
// carry guidance for the model; see [Error]. The host view's Err says why
// a call did not succeed the same way in every stage: a sentinel found with
// errors.Is ([ErrDenied], [ErrCursorRefused], …) for a cause without data
// of its own, a type found with errors.As ([*ArgsError], [*PanicError],
// [*TimeoutError]) for one with.
package tool
