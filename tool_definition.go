package tool

import (
	"encoding/json"
	"time"
)

// Definition is what the model sees of a tool (name, description, input
// schema) and what the host's policies read (safety, tier, limits).
//
// Passed to [New] or [NewFor] with InputSchema empty, the schema is
// generated from the argument type, and with OutputSchema empty, the
// output schema from the result type when it is a struct.
//
// Its JSON form is what a model or an MCP client sees: name, title,
// description, inputSchema, outputSchema and annotations (see
// [Definition.Annotations]); the host's settings (tier, limits, Hidden) are
// left out.
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
	// [SafetyUnspecified], counts as [SafetyMutating].
	Safety Safety
	// Tier says whether the tool runs without asking (TierObserve) or is
	// asked about (TierConfirm), for approval policies. The zero value leaves
	// the decision to the policy.
	Tier Tier
	// Timeout bounds one call to the tool, from when it starts (time spent
	// waiting for approval does not count). Zero means the registry's
	// default ([RegistryOptions.DefaultTimeout]). A call past its limit has
	// its context cancelled with a [TimeoutError] cause and ends StatusTimedOut.
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
	// CallLimits bound the calls to the tool: how many may run at once,
	// how many may start per interval, for all sessions together or each
	// apart. Nil means none, unless [RegistryOptions.CallLimits] sets them.
	CallLimits []CallLimit
	// Idempotent says that repeating a call with the same arguments has no
	// further effect (setting a value, writing a file whole). MCP clients
	// read it as idempotentHint.
	Idempotent bool
	// Hidden tools can be called but are left out of [Registry.Definitions].
	Hidden bool
	// Task says whether the tool may run as a task ([Tasks]): never (the
	// zero value), may, or must. Frontends that speak tasks (MCP's tasks
	// extension) start a call of a tool that may or must as a task; one
	// that must is refused by frontends that cannot follow a task.
	Task TaskSupport
	// TaskTimeout bounds the tool's run when it runs as a task, in place of
	// Timeout (which bounds it as a plain call). Zero means
	// [DefaultTaskTimeout].
	TaskTimeout time.Duration
}

// DisplayName returns Title, or Name when Title is empty.
func (d Definition) DisplayName() string {
	if d.Title != "" {
		return d.Title
	}
	return d.Name
}

// Annotations are the hints about a tool's behaviour that MCP clients read
// (MCP's ToolAnnotations). Each is a hint for the client's interface, never
// a guarantee: approval decides from [Safety], not from these.
type Annotations struct {
	Title       string `json:"title,omitempty"`
	ReadOnly    *bool  `json:"readOnlyHint,omitempty"`
	Destructive *bool  `json:"destructiveHint,omitempty"`
	Idempotent  *bool  `json:"idempotentHint,omitempty"`
	OpenWorld   *bool  `json:"openWorldHint,omitempty"`
}

// Annotations returns the hints the definition implies: readOnlyHint for a
// ReadOnly tool; destructiveHint for Destructive (and false for Mutating
// and Network); idempotentHint from Idempotent; openWorldHint for Network
// (false for the others). A tool whose Safety is unspecified gives no hint
// but idempotentHint, so a client assumes the worst, as MCP's defaults do.
func (d Definition) Annotations() Annotations {
	a := Annotations{Title: d.Title}
	yes, no := true, false
	switch d.Safety {
	case SafetyReadOnly:
		a.ReadOnly, a.OpenWorld = &yes, &no
	case SafetyMutating:
		a.ReadOnly, a.Destructive, a.OpenWorld = &no, &no, &no
	case SafetyDestructive:
		a.ReadOnly, a.Destructive, a.OpenWorld = &no, &yes, &no
	case SafetyNetwork:
		a.ReadOnly, a.Destructive, a.OpenWorld = &no, &no, &yes
	}
	if d.Safety != SafetyReadOnly {
		idem := d.Idempotent
		a.Idempotent = &idem
	}
	return a
}

// definitionJSON is the wire form of a Definition.
type definitionJSON struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *Annotations    `json:"annotations,omitempty"`
}

// MarshalJSON writes what a model or an MCP client sees of the tool.
func (d Definition) MarshalJSON() ([]byte, error) {
	j := definitionJSON{Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: d.InputSchema, OutputSchema: d.OutputSchema}
	if a := d.Annotations(); a != (Annotations{}) {
		j.Annotations = &a
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes (and MCP's Tool): the
// annotations set Safety (readOnlyHint: ReadOnly, destructiveHint:
// Destructive, openWorldHint: Network, any other hint: Mutating) and
// Idempotent.
func (d *Definition) UnmarshalJSON(b []byte) error {
	var j definitionJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*d = Definition{Name: j.Name, Title: j.Title, Description: j.Description, InputSchema: j.InputSchema, OutputSchema: j.OutputSchema}
	if a := j.Annotations; a != nil {
		is := func(p *bool) bool { return p != nil && *p }
		switch {
		case is(a.ReadOnly):
			d.Safety = SafetyReadOnly
		case is(a.Destructive):
			d.Safety = SafetyDestructive
		case is(a.OpenWorld):
			d.Safety = SafetyNetwork
		case a.ReadOnly != nil || a.Destructive != nil || a.OpenWorld != nil:
			d.Safety = SafetyMutating
		}
		d.Idempotent = is(a.Idempotent)
		if d.Title == "" {
			d.Title = a.Title
		}
	}
	return nil
}

// Safety classifies what a call may do to the world.
type Safety uint8

const (
	// SafetyUnspecified is the zero value: the tool did not say.
	SafetyUnspecified Safety = iota
	// SafetyReadOnly calls only read.
	SafetyReadOnly
	// SafetyMutating calls change state that can be restored (edit a file).
	SafetyMutating
	// SafetyDestructive calls may lose data (delete, overwrite, rm -rf).
	SafetyDestructive
	// SafetyNetwork calls reach outside the machine.
	SafetyNetwork
)

func (s Safety) String() string {
	switch s {
	case SafetyReadOnly:
		return "read-only"
	case SafetyMutating:
		return "mutating"
	case SafetyDestructive:
		return "destructive"
	case SafetyNetwork:
		return "network"
	}
	return "unspecified"
}

// Tier says whether a tool may run without asking.
type Tier uint8

const (
	// TierUnspecified is the zero value: the policy decides from Safety.
	TierUnspecified Tier = iota
	// TierObserve tools run without asking.
	TierObserve
	// TierConfirm tools are asked about, whatever their safety class: the
	// person confirms them, and an "allow always" answer covers the tool
	// for the session as for any ask (RequireAskAlways asks every time).
	TierConfirm
)

func (t Tier) String() string {
	switch t {
	case TierObserve:
		return "observe"
	case TierConfirm:
		return "confirm"
	}
	return "unspecified"
}
