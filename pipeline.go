package tool

// pipeline is the handler every call runs through, once lookup
// ([Registry.Call], registry_call.go) has found its tool and the events
// stage has sent Started. The stages run in the order listed, each calling
// the next; each is in its own file, with the state it keeps of the call.
// Two files keep the names of the design the library was built from:
// pagination.go, the paginated tools and preflight's cursor check, and
// context.go, the tool's context the deadline stage makes (what a tool
// reads from it: its call, its progress, its page).
// A stage reads the call's request facts and its own state; what it hands
// the next one is the call and, from deadline on, the tool's context.
// Two hand-overs go beyond that, each named in its line: Approval leaves
// what a dry run found in its state for the dry-run stage, and the record
// stage leaves the call's hold on its ID for the run stage, which makes it
// last the tool's time limit as the tool starts and marks the call as one
// whose tool started (read on the way back by the record stage and by
// approval, whatever result a middleware made of it).
// Results come back up the same way, and Registry.Call ends every call
// with its host view and the Finished event. docs/design.md says why each
// stage sits where it does.
//
// To add a stage: write it as a Middleware[C] in a file of its own, with
// the part of callState it keeps, and add one line here.
func pipeline[C any](mws []Middleware[C]) Handler[C] {
	return Chain(
		recoverStage[C],   // recover: a panic in any stage below becomes a Panicked result (recover.go)
		preflightStage[C], // preflight: read, validate and decode the arguments once, then check a page cursor (preflight.go, pagination.go)
		recordStage[C],    // record: a call whose ID already ran in its session is answered from its record; a twin waits; hands the run stage its hold on the ID (record.go)
		Chain(mws...),     // the host's middlewares, first outermost; Approval classifies, describes and asks (approval.go)
		sealStage[C],      // seal: changed arguments go back through preflight; what changed after approval does not run (approval_seal.go)
		dryRunStage[C],    // dry run: ends a dry run with what would run and how approval found it (dryrun.go)
		limitStage[C],     // limit: the tool's CallLimits; a call waits for a place or is refused (limit.go)
		deadlineStage[C],  // deadline: the tool's context, with its time limit (TaskTimeout for a task, task.go), idle limit, progress and page (deadline.go, context.go)
		outputStage[C],    // output: on the way back, the model view escaped and capped, the cut part spilled (output.go)
	)(runStage[C]) // run: makes the record stage's hold last the tool's time limit, then the tool, on a goroutine other than the caller's; marks the call as one whose tool started (run.go)
}
