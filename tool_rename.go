package tool

// Rename returns t under another name: a ready-made tool (a toolset's, a
// remote server's) offered to the model as name. Everything else is t's:
// its description, schemas and behaviour, and its optional interfaces
// (approval hooks, argument checks, pagination), which stay visible
// through [As]. A name that is not valid, or that another tool has, is
// refused when the tool is registered, as any tool's.
//
// Calls to the renamed tool are the new name's: what the pipeline binds to
// a tool's name (page cursors, "allow always" answers, records, limits)
// binds to name.
func Rename(t AnyTool, name string) AnyTool {
	return &renamed{AnyTool: t, name: name}
}

// RenameFor is [Rename] for a tool that uses the host's per-call state.
func RenameFor[C any](t Tool[C], name string) Tool[C] {
	return &renamedFor[C]{Tool: t, name: name}
}

type (
	renamed struct {
		AnyTool
		name string
	}
	renamedFor[C any] struct {
		Tool[C]
		name string
	}
)

func (r *renamed) Definition() Definition {
	d := r.AnyTool.Definition()
	d.Name = r.name
	return d
}

func (r *renamed) Unwrap() any { return r.AnyTool }

// passesThrough: its Run is the wrapped tool's, so the arguments
// preflight decoded for a typed tool inside go to it as they are.
func (r *renamed) passesThrough() {}

func (r *renamedFor[C]) Definition() Definition {
	d := r.Tool.Definition()
	d.Name = r.name
	return d
}

func (r *renamedFor[C]) Unwrap() any { return r.Tool }
