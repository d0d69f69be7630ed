package tool

import (
	"crypto/sha256"
	"fmt"

	"github.com/toolbelt-go/tool/internal/canon"
	"github.com/toolbelt-go/tool/keyring"
)

// pageScope is the cursor check's part of a call's state, for a paginated
// tool: what its next cursor is bound to, and the state the model's cursor
// carried. The deadline stage puts it in the tool's context.
type pageScope struct {
	keyring  *keyring.Keyring
	tool     string
	session  string
	argsHash [sha256.Size]byte
	state    []byte
}

type pageKey struct{}

// checkCursor is the cursor check, the last step of preflight for a
// paginated tool: it hashes the validated arguments other than cursor and
// page_size and, when the model sent a cursor, verifies it. It runs before
// approval: a cursor is part of the arguments, so a bad one is an invalid
// call the model can fix, not something to ask a person about, and the
// approver is only ever shown a call that can run.
func checkCursor[C any](call *Call[C]) *Result {
	m, _ := call.tree().(map[string]any)
	rest := make(map[string]any, len(m))
	for k, v := range m {
		if k != "cursor" && k != "page_size" {
			rest[k] = v
		}
	}
	ps := &pageScope{keyring: call.runtime().cursorKeyring(), tool: call.Name, session: call.Session, argsHash: sha256.Sum256(canon.Encode(rest))}
	if c, _ := m["cursor"].(string); c != "" {
		args := call.st.entry.pf.args
		if call.Session == "" {
			// No conversation, no cursor: one from another caller must
			// not be honoured, and none was issued to this one.
			return invalidResult(args.refuse([]Problem{cursorProblem(call.Name, nil)}, fmt.Errorf("%w: %w", ErrCursorRefused, keyring.ErrOtherSession)))
		}
		state, err := ps.keyring.Verify(c, keyring.Claims{Purpose: ps.tool, Session: ps.session, Digest: ps.argsHash})
		if err != nil {
			return invalidResult(args.refuse([]Problem{cursorProblem(call.Name, err)}, fmt.Errorf("%w: %w", ErrCursorRefused, err)))
		}
		ps.state = state
	}
	call.st.page = ps
	return nil
}
