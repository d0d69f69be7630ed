package tool

import (
	"context"
	"encoding/json"
)

// Tool is a tool that receives the host's per-call state C (an agent, an
// LSP manager, a session), through [Call.State].
//
// Call returns the model's answer as a [*Result]. An error return is a
// failure the pipeline turns into an error result; a returned Result is
// used as it is. Implementations must be safe for concurrent use.
//
// Implement Tool directly for the raw tier: the registry validates the
// arguments against Definition().InputSchema before Call runs, and Call
// reads them from [Call.Args] (or the decoded tree from [Call.Value]).
// [NewFor] builds a typed Tool from a function instead.
type Tool[C any] interface {
	Definition() Definition
	Run(ctx context.Context, call *Call[C]) (*Result, error)
}

// AnyTool is a tool that needs no host state, so any registry, exporter or
// adapter accepts it, whatever its state type (see [Adapt]).
//
// Run receives the raw arguments. A typed AnyTool (from [New]) validates
// them itself; a raw one (from [NewRaw]) relies on the registry to have done
// so. Implementations must be safe for concurrent use.
type AnyTool interface {
	Definition() Definition
	Run(ctx context.Context, args json.RawMessage) (*Result, error)
}

// ArgsValidator is an optional interface: a tool that implements it adds
// its own cheap check to preflight, after the schema check and before any
// approval. It must not do I/O. args is the validated argument tree
// (map[string]any with json.Number numbers). A returned [*Error] keeps its
// hint; any other error becomes an invalid-arguments result.
//
// Typed tools get the same by giving their argument type a method
// Validate() error.
type ArgsValidator interface {
	ValidateArgs(args any) error
}

// DefinitionChecker is an optional interface of a tool whose construction
// can fail (a typed tool whose argument type cannot be used, a program
// that was not named): [Registry.Add] calls CheckDefinition and refuses the
// tool with the error it returns, with every other problem found. Tool
// constructors outside this package report their problems this way, so
// that they surface at registration and not at the first call.
type DefinitionChecker interface {
	CheckDefinition() error
}
