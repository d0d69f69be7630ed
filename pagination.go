package tool

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"

	"github.com/toolbelt-go/tool/internal/canon"
	"github.com/toolbelt-go/tool/keyring"
)

// Paginated tools and their cursors: a tool made with [NewPaginated] gives
// its state for the next page, which is signed into an opaque next_cursor;
// the cursor check, the last step of preflight (checkCursor, below),
// verifies the cursor the model sends back and hands the tool its state
// through its context.

// PageArgs are the arguments every paginated tool takes. Embed it in the
// argument type of a tool made with [NewPaginated]:
//
//	type ListArgs struct {
//		Dir string `json:"dir"`
//		tool.PageArgs
//	}
type PageArgs struct {
	Cursor   string `json:"cursor,omitempty" jsonschema:"description=The next_cursor of the previous page; omit it for the first page. Keep the other arguments the same between pages."`
	PageSize int    `json:"page_size,omitempty" jsonschema:"minimum=1,maximum=1000,description=How many results per page"`
}

func (p *PageArgs) pageArgs() *PageArgs { return p }

// Page is what a paginated tool is told about the page it must produce.
type Page struct {
	// State is the state the tool returned with the previous page, verified:
	// the pipeline only passes on state it signed itself, for this tool,
	// session and arguments. Nil on the first page.
	State []byte
	// Size is the page size the model asked for (0 if it did not); it may
	// change from page to page.
	Size int
}

// Paged is the result of a paginated tool, as the model sees it.
type Paged[Out any] struct {
	Results Out `json:"results"`
	// NextCursor is set when there is another page.
	NextCursor string `json:"next_cursor,omitempty"`
	// Note is set when there is another page but no cursor could be given:
	// the call belongs to no conversation (Request.Session is empty), and
	// cursors are never shared between callers.
	Note string `json:"note,omitempty"`
}

// NewPaginated makes a tool whose results come in pages. fn produces one
// page and returns the state it needs to produce the next (an offset, a
// key; nil after the last page). The pipeline signs that state into an
// opaque next_cursor with the registry's [keyring.Keyring], bound to the
// tool, the session ([Request.Session]), the arguments other than cursor
// and page_size, and an expiry; the model receives a [Paged] result. On
// the next call preflight verifies the cursor, before approval, and hands
// fn the state back; a forged, altered, expired or foreign cursor is
// refused with a message that tells the model to start again without one. In must embed [PageArgs]. [NewPaginatedFor] is the
// same for a tool that reads the host's per-call state.
func NewPaginated[In, Out any](def Definition, fn func(ctx context.Context, in In, page Page) (Out, []byte, error)) AnyTool {
	inner := New(def, func(ctx context.Context, in In) (Paged[Out], error) {
		return nextPage(ctx, &in, func(p Page) (Out, []byte, error) { return fn(ctx, in, p) })
	})
	return &paginated{AnyTool: inner, err: checkPageArgs[In]()}
}

// NewPaginatedFor is [NewPaginated] for a tool that uses the host's
// per-call state: fn also receives the [*Call], whose State field holds it.
// The state is not part of what a cursor is bound to: a cursor holds for
// the same tool, session and arguments, whatever State the next call has.
func NewPaginatedFor[C, In, Out any](def Definition, fn func(ctx context.Context, call *Call[C], in In, page Page) (Out, []byte, error)) Tool[C] {
	inner := NewFor(def, func(ctx context.Context, call *Call[C], in In) (Paged[Out], error) {
		return nextPage(ctx, &in, func(p Page) (Out, []byte, error) { return fn(ctx, call, in, p) })
	})
	return &paginatedFor[C]{Tool: inner, err: checkPageArgs[In]()}
}

// checkPageArgs is the registration error of a paginated tool whose
// argument type does not embed PageArgs.
func checkPageArgs[In any]() error {
	if _, ok := any(new(In)).(interface{ pageArgs() *PageArgs }); !ok {
		return fmt.Errorf("the argument type %v must embed tool.PageArgs to be paginated", reflect.TypeFor[In]())
	}
	return nil
}

// nextPage runs one page of a paginated tool: page gets the verified state
// of the model's cursor and the page size, and the state it returns for
// the next page is signed into next_cursor.
func nextPage[In, Out any](ctx context.Context, in *In, page func(Page) (Out, []byte, error)) (Paged[Out], error) {
	ps, _ := ctx.Value(pageKey{}).(*pageScope)
	pa := any(in).(interface{ pageArgs() *PageArgs }).pageArgs()
	if ps == nil {
		if pa.Cursor != "" {
			return Paged[Out]{}, errors.New("tool: a cursor reached a paginated tool outside the pipeline")
		}
		ps = &pageScope{}
	}
	out, next, err := page(Page{State: ps.state, Size: pa.PageSize})
	if err != nil {
		return Paged[Out]{}, err
	}
	p := Paged[Out]{Results: out}
	if next != nil && ps.session == "" && ps.keyring != nil {
		p.Note = noPagesNote
		return p, nil
	}
	if next != nil {
		if ps.keyring == nil {
			return Paged[Out]{}, errors.New("tool: a paginated tool ran outside the pipeline and cannot sign its next page")
		}
		c, err := ps.keyring.Sign(keyring.Claims{Purpose: ps.tool, Session: ps.session, Digest: ps.argsHash, State: next})
		if err != nil {
			return Paged[Out]{}, err
		}
		p.NextCursor = c
	}
	return p, nil
}

// paginated and paginatedFor mark a tool as paginated (preflight checks
// its cursor) and carry the registration error of its argument type.
type (
	paginated struct {
		AnyTool
		err error
	}
	paginatedFor[C any] struct {
		Tool[C]
		err error
	}
)

func (p *paginated) Unwrap() any            { return p.AnyTool }
func (p *paginated) isPaginated()           {}
func (p *paginated) passesThrough()         {}
func (p *paginated) CheckDefinition() error { return checkPaginated(p.AnyTool, p.err) }

func (p *paginatedFor[C]) Unwrap() any            { return p.Tool }
func (p *paginatedFor[C]) isPaginated()           {}
func (p *paginatedFor[C]) CheckDefinition() error { return checkPaginated(p.Tool, p.err) }

func checkPaginated(inner any, err error) error {
	if err != nil {
		return err
	}
	if cc, ok := As[DefinitionChecker](inner); ok {
		return cc.CheckDefinition()
	}
	return nil
}

type pageMarker interface{ isPaginated() }

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
