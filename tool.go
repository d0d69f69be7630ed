package tool

import (
	"context"
	"encoding/json"
	"time"
)

// Definition is what the model sees of a tool (name, description, input
// schema) and what the host's policies read (safety, tier, limits).
//
// Passed to [New] or [NewFor] with InputSchema empty, the schema is
// generated from the argument type.
type Definition struct {
	// Name is how the model calls the tool: 1 to 64 of a-z, A-Z, 0-9, '_'
	// and '-', which every major provider accepts. Matched exactly.
	Name string
	// Title is a display name for people; Name is used when it is empty.
	Title string
	// Description tells the model what the tool does and when to use it.
	// Required.
	Description string
	// InputSchema is the JSON Schema (draft 2020-12) of the arguments. Its
	// root must be an object schema, and it may refer only to itself.
	InputSchema json.RawMessage
	// OutputSchema optionally describes the structured result.
	OutputSchema json.RawMessage
	// Safety is the tool's static safety class, read by approval policies
	// and by [Registry.CallBatch] (only ReadOnly calls run in parallel). A
	// [Classifier] may refine it per call. The zero value,
	// [SafetyUnspecified], counts as [Mutating].
	Safety Safety
	// Tier says whether the tool runs without asking (Observe) or needs
	// confirmation (Confirm), for approval policies. The zero value leaves
	// the decision to the policy.
	Tier Tier
	// Timeout bounds one call to the tool, from when it starts (time spent
	// waiting for approval does not count). Zero means the registry's
	// default ([RegistryOptions.DefaultTimeout]). A call past its limit has
	// its context cancelled with a [TimeoutError] cause and ends TimedOut.
	Timeout time.Duration
	// IdleTimeout, if set, ends a call that reports no progress
	// ([ReportProgress], [ReportPartial]) for this long, with Timeout still
	// the absolute cap. For tools whose run time varies widely but which
	// can tell they are still working.
	IdleTimeout time.Duration
	// MaxOutputBytes caps the model view of one result: text blocks keep
	// their head and tail around a marker of what was cut. Zero means the
	// registry's cap ([RegistryOptions.MaxOutputBytes]).
	MaxOutputBytes int
	// Hidden tools can be called but are left out of [Registry.Definitions].
	Hidden bool
}

// DisplayName returns Title, or Name when Title is empty.
func (d Definition) DisplayName() string {
	if d.Title != "" {
		return d.Title
	}
	return d.Name
}

// Safety classifies what a call may do to the world.
type Safety uint8

const (
	// SafetyUnspecified is the zero value: the tool did not say.
	SafetyUnspecified Safety = iota
	// ReadOnly calls only read.
	ReadOnly
	// Mutating calls change state that can be restored (edit a file).
	Mutating
	// Destructive calls may lose data (delete, overwrite, rm -rf).
	Destructive
	// Network calls reach outside the machine.
	Network
)

func (s Safety) String() string {
	switch s {
	case ReadOnly:
		return "read-only"
	case Mutating:
		return "mutating"
	case Destructive:
		return "destructive"
	case Network:
		return "network"
	}
	return "unspecified"
}

// Tier says whether a tool may run without asking.
type Tier uint8

const (
	// TierUnspecified is the zero value: the policy decides from Safety.
	TierUnspecified Tier = iota
	// Observe tools run without asking.
	Observe
	// Confirm tools need an approval for each call.
	Confirm
)

func (t Tier) String() string {
	switch t {
	case Observe:
		return "observe"
	case Confirm:
		return "confirm"
	}
	return "unspecified"
}

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
	Call(ctx context.Context, call *Call[C]) (*Result, error)
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

// Adapt returns t as a Tool for registries with state type C. The state is
// not passed to t. Optional interfaces of t stay visible through [As].
func Adapt[C any](t AnyTool) Tool[C] {
	return &adapted[C]{t: t}
}

type adapted[C any] struct{ t AnyTool }

func (a *adapted[C]) Definition() Definition { return a.t.Definition() }
func (a *adapted[C]) Unwrap() any            { return a.t }

func (a *adapted[C]) Call(ctx context.Context, call *Call[C]) (*Result, error) {
	if r, ok := a.t.(preparedRunner); ok && call.preparedFor == a.t {
		return r.runPrepared(ctx, call.prepared)
	}
	return a.t.Run(ctx, call.Args)
}

// Wrapper is implemented by tools that wrap another tool. Unwrap returns the
// wrapped tool (a Tool[C] or an AnyTool); [As] follows it, so optional
// interfaces of the wrapped tool stay visible through any wrapper that
// implements Wrapper.
type Wrapper interface {
	Unwrap() any
}

// As finds the first tool in the chain t, t.Unwrap(), … that implements T,
// the way errors.As walks an error chain. It is how the pipeline discovers
// optional interfaces ([ArgsValidator] and those of later stages).
func As[T any](t any) (T, bool) {
	for i := 0; t != nil && i < 64; i++ {
		if v, ok := t.(T); ok {
			return v, true
		}
		w, ok := t.(Wrapper)
		if !ok {
			break
		}
		t = w.Unwrap()
	}
	var zero T
	return zero, false
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
