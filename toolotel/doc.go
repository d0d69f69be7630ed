// Package toolotel records tool calls in OpenTelemetry: a span per call,
// following the GenAI semantic conventions for tool execution, and metrics
// of calls by tool and status, their duration and the calls abandoned.
//
// It is an [Observer], which sees every call — those preflight refused,
// calls to unknown tools and calls cancelled before they started included —
// with its approval and progress events, plus a [Middleware], which gives
// the spans of the calls that pass preflight their parent from the call's
// context and puts the span in the context the tool runs with, so that
// what the tool does (an HTTP request, a query) is traced as its child:
//
//	obs, err := toolotel.NewObserver(nil) // the global providers
//	reg := tool.NewRegistry[State](&tool.RegistryOptions{Observer: obs})
//	reg.Use(toolotel.Middleware[State](obs)) // first: outermost
//	reg.Use(tool.Approval(approvalOptions))
//	unregister, err := obs.ObserveStats(reg.Stats)
//
// Why both: an observer gets no context (events carry none), so alone its
// spans would have no parent; a middleware runs after preflight, so alone
// it would miss the calls a model gets wrong, and it does not see the
// events. Events are delivered on another goroutine, so the Observer and
// the middleware meet on the call ID and tool name, whichever comes first.
// A call whose ID and tool another call in flight shares may get a span
// without a parent, as a call preflight refused does; every call still
// gets exactly one span. Install the Observer once per call (as the
// registry's observer or the call's, not both). Metrics come from the
// Observer alone.
//
// # Spans
//
// Conventions followed: the execute_tool span of the OpenTelemetry
// semantic conventions for GenAI spans, v1.41.0 (the last release of
// github.com/open-telemetry/semantic-conventions that holds them,
// docs/gen-ai/gen-ai-spans.md#execute-tool-span), and the
// gen_ai.execute_tool.duration metric of
// github.com/open-telemetry/semantic-conventions-genai v0.1.0. Both are
// marked Development there and may change.
//
// A span is named "execute_tool {tool}" ("execute_tool" alone for a tool
// that does not exist, whose name the model made up), is INTERNAL, and
// has gen_ai.operation.name "execute_tool", gen_ai.tool.name,
// gen_ai.tool.call.id, gen_ai.tool.type "function", and, where the
// middleware ran, gen_ai.tool.description and gen_ai.conversation.id (the
// call's session). It ends with toolbelt.call.status (the [tool.Status]
// name) and, when the call did not complete, error.type and status Error
// with the host view's error as its description. error.type is one of
// invalid, denied, canceled, timed_out, abandoned (a tool that ignored
// its context and was given up on), failed, panicked, unknown_tool. A
// call awaiting approval is not an error. A panic adds an exception event
// with the stack.
//
// Approval and progress are events on the span:
// toolbelt.approval.requested, toolbelt.approval.decided,
// toolbelt.progress and toolbelt.partial.
//
// Arguments and results are not recorded unless the host opts in
// ([Options.RecordArguments], [Options.RecordResults]): the conventions
// make gen_ai.tool.call.arguments and gen_ai.tool.call.result opt-in,
// since they may hold secrets. Without the opt-in, the error of a call
// preflight refused names where the problems are and their kinds, not the
// values sent.
//
// # Metrics
//
//   - gen_ai.execute_tool.duration (histogram, s): every call's duration
//     through the pipeline, with gen_ai.operation.name, gen_ai.tool.name,
//     gen_ai.tool.type and error.type.
//   - toolbelt.tool.calls (counter, {call}): calls by gen_ai.tool.name and
//     toolbelt.call.status.
//   - a registry's [tool.Stats], once [Observer.ObserveStats] is called:
//     toolbelt.tool.abandoned and toolbelt.tool.abandoned.running (calls
//     given up on because their tool ignored its context, and those whose
//     tool still runs), toolbelt.hook.abandoned and toolbelt.hook.running
//     (the same for host hooks: approver, approval memory, spill store…),
//     toolbelt.observer.timeouts and toolbelt.events.dropped.
//
// A tool name that no tool has (the model made it up) is recorded in
// metrics as "_OTHER", so that a model cannot grow their cardinality.
package toolotel
