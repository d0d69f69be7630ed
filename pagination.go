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

// ErrCursorRefused is the host-side cause of a refused page cursor,
// wrapped around the [keyring] error that says why (errors.Is finds both).
// The model is told to call again without a cursor.
var ErrCursorRefused = errors.New("tool: cursor refused")

// cursorText is what the model is told of a refused cursor.
func cursorText(err error) string {
	switch err {
	case keyring.ErrExpired:
		return "this cursor has expired"
	case keyring.ErrOtherPurpose, keyring.ErrOtherSession, keyring.ErrOtherDigest:
		return "this cursor is for a different request (the other arguments must stay the same between pages)"
	}
	return "this cursor is invalid (use next_cursor exactly as it was returned; never write one yourself)"
}

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
// opaque next_cursor with the registry's [keyring.Keyring], bound to the tool, the
// session ([Request.Session]), the arguments other than cursor and
// page_size, and an expiry. On the next call it verifies the cursor during
// preflight and hands fn the state back; a forged, altered, expired or
// foreign cursor is refused with a message that tells the model to start
// again without one. In must embed [PageArgs].
func NewPaginated[In, Out any](def Definition, fn func(ctx context.Context, in In, page Page) (Out, []byte, error)) AnyTool {
	var err error
	if _, ok := any(new(In)).(interface{ pageArgs() *PageArgs }); !ok {
		err = fmt.Errorf("the argument type %v must embed tool.PageArgs to be paginated", reflect.TypeFor[In]())
	}
	inner := New(def, func(ctx context.Context, in In) (Paged[Out], error) {
		ps, _ := ctx.Value(pageKey{}).(*pageScope)
		pa := any(&in).(interface{ pageArgs() *PageArgs }).pageArgs()
		if ps == nil {
			if pa.Cursor != "" {
				return Paged[Out]{}, errors.New("tool: a cursor reached a paginated tool outside the pipeline")
			}
			ps = &pageScope{}
		}
		out, next, err := fn(ctx, in, Page{State: ps.state, Size: pa.PageSize})
		if err != nil {
			return Paged[Out]{}, err
		}
		p := Paged[Out]{Results: out}
		if next != nil && ps.session == "" && ps.keyring != nil {
			p.Note = "More results exist, but they cannot be paged in this conversation; narrow the request to see the rest."
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
	})
	return &paginated{AnyTool: inner, err: err}
}

type paginated struct {
	AnyTool
	err error
}

func (p *paginated) Unwrap() any  { return p.AnyTool }
func (p *paginated) isPaginated() {}

func (p *paginated) CheckDefinition() error {
	if p.err != nil {
		return p.err
	}
	if cc, ok := As[DefinitionChecker](p.AnyTool); ok {
		return cc.CheckDefinition()
	}
	return nil
}

type pageMarker interface{ isPaginated() }

// pageScope is the cursor stage's state for one call of a paginated tool.
type pageScope struct {
	keyring  *keyring.Keyring
	tool     string
	session  string
	argsHash [sha256.Size]byte
	state    []byte
}

type pageKey struct{}

// verifyCursor is the cursor stage, run in preflight for paginated tools:
// it hashes the arguments other than cursor and page_size and, when the
// model sent a cursor, verifies it.
func verifyCursor[C any](call *Call[C]) *Result {
	m, _ := call.tree().(map[string]any)
	rest := make(map[string]any, len(m))
	for k, v := range m {
		if k != "cursor" && k != "page_size" {
			rest[k] = v
		}
	}
	ps := &pageScope{keyring: call.runtime().cursorKeyring(), tool: call.Name, session: call.Session, argsHash: sha256.Sum256(canon.Encode(rest))}
	if c, _ := m["cursor"].(string); c != "" {
		if call.Session == "" {
			// No conversation, no cursor: one from another caller must
			// not be honoured, and none was issued to this one.
			p := Problem{Pointer: "/cursor", Code: "cursor", Message: "cursors cannot be used in this conversation; call " + call.Name + " again without a cursor"}
			return invalidResult(call.pf.args.fail([]Problem{p}, 1, false, nil, fmt.Errorf("%w: %w", ErrCursorRefused, keyring.ErrOtherSession)))
		}
		state, err := ps.keyring.Verify(c, keyring.Claims{Purpose: ps.tool, Session: ps.session, Digest: ps.argsHash})
		if err != nil {
			p := Problem{Pointer: "/cursor", Code: "cursor", Message: cursorText(err) + "; call " + call.Name + " again without a cursor to start from the first page"}
			return invalidResult(call.pf.args.fail([]Problem{p}, 1, false, nil, fmt.Errorf("%w: %w", ErrCursorRefused, err)))
		}
		ps.state = state
	}
	call.page = ps
	return nil
}
