package tool

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
