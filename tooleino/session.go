package tooleino

import "context"

type sessionKey struct{}

// WithSession returns a copy of ctx that says which conversation the Eino
// run belongs to: give it to the runner's Run and Resume (or a graph's
// Invoke), and every call of this package's tools in that run has it as
// its [tool.Request].Session, unless [Options].Session says otherwise.
// Records, read_output, "allow always" and resumed approvals are bound to
// the session; a call with none is never recorded or spilled. Use one
// that stays the same when the run is resumed, elsewhere too: the
// checkpoint ID is a good one.
func WithSession(ctx context.Context, session string) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

// SessionFrom returns the session [WithSession] put in ctx, or "".
func SessionFrom(ctx context.Context) string {
	s, _ := ctx.Value(sessionKey{}).(string)
	return s
}
