package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/toolbelt-go/tool/internal/decode"
	"github.com/toolbelt-go/tool/internal/schema"
)

// New returns a typed tool that needs no host state. Its input schema is
// generated from In's struct tags (see [SchemaOf]) unless def.InputSchema
// is set. Each call is validated against the schema, decoded into In
// exactly as validated, checked by In's Validate() error method if it has
// one, and passed to fn. This happens in the registry's preflight, before
// any approval; called on its own, the tool does the same in Run.
//
// The result is built from fn's return values: a string Out becomes a text
// block; a *Result is used as it is; any other Out becomes structured JSON
// plus the same JSON as text. A nil pointer Out gives the JSON text "null".
// An error becomes an error result (see [Error] to add guidance).
//
// A problem with In or the definition (an unsupported field type, a bad
// name) is reported by [Registry.Add]; such a tool fails every call.
func New[In, Out any](def Definition, fn func(ctx context.Context, in In) (Out, error)) AnyTool {
	t := &typed[In, Out]{fn: fn}
	t.init(def, reflect.TypeFor[Out]())
	return t
}

// NewFor is [New] for tools that use the host's per-call state: fn also
// receives the [*Call], whose State field holds it.
func NewFor[C, In, Out any](def Definition, fn func(ctx context.Context, call *Call[C], in In) (Out, error)) Tool[C] {
	t := &typedFor[C, In, Out]{fn: fn}
	t.init(def, reflect.TypeFor[Out]())
	return t
}

// NewRaw returns a tool of the raw tier: fn receives the arguments as JSON
// and def.InputSchema, which is required, describes them. In a registry,
// preflight validates the arguments against that schema before fn runs;
// called on its own, the tool validates nothing.
func NewRaw(def Definition, fn func(ctx context.Context, args json.RawMessage) (*Result, error)) AnyTool {
	r := &raw{def: def, fn: fn}
	if len(def.InputSchema) == 0 {
		r.err = errors.New("NewRaw needs Definition.InputSchema")
	}
	return r
}

type raw struct {
	def Definition
	fn  func(context.Context, json.RawMessage) (*Result, error)
	err error
}

func (r *raw) Definition() Definition { return r.def }
func (r *raw) CheckDefinition() error { return r.err }

func (r *raw) Run(ctx context.Context, args json.RawMessage) (*Result, error) {
	if r.err != nil {
		return nil, r.err
	}
	return r.fn(ctx, args)
}

// typedCore is what New and NewFor share: the definition with its schema,
// the compiled schema, and the decoding of In.
type typedCore[In any] struct {
	def    Definition
	schema *schema.Schema
	err    error
	pf     *preflight // for calls outside a registry
}

func (c *typedCore[In]) init(def Definition, out reflect.Type) {
	if len(def.OutputSchema) == 0 {
		def.OutputSchema = outputSchemaFor(out)
	}
	if len(def.InputSchema) == 0 {
		s, err := SchemaOf[In]()
		if err != nil {
			c.err = err
			c.def = def
			return
		}
		def.InputSchema = s
	} else if err := checkType(reflect.TypeFor[In](), nil, map[reflect.Type]bool{}); err != nil {
		c.err = err
	} else if err := checkSettable(reflect.TypeFor[In](), nil, map[reflect.Type]bool{}); err != nil {
		c.err = err
	}
	c.def = def
	if c.err == nil {
		c.schema, c.err = schema.Compile(def.InputSchema, Limits{}.parser())
	}
	c.pf = &preflight{err: c.err, prep: c}
	if c.err == nil {
		c.pf.args = newArgsSchema(def.Name, c.schema, Limits{})
	}
}

func (c *typedCore[In]) Definition() Definition         { return c.def }
func (c *typedCore[In]) CheckDefinition() error         { return c.err }
func (c *typedCore[In]) compiledSchema() *schema.Schema { return c.schema }

// prepare decodes the validated tree into In. It is part of preflight,
// which then runs In's own Validate method, if it has one, as a bounded
// hook.
func (c *typedCore[In]) prepare(v any) (any, error) {
	in := new(In)
	if err := decode.Into(in, v); err != nil {
		return nil, err
	}
	return in, nil
}

func (c *typedCore[In]) inType() reflect.Type { return reflect.TypeFor[In]() }

// fresh returns a new *In, and the In it points to, for the plan to fill.
func (c *typedCore[In]) fresh() (any, reflect.Value) {
	in := new(In)
	return in, reflect.ValueOf(in).Elem()
}

// standalone runs preflight, with default limits, when the tool is called
// outside a registry.
func (c *typedCore[In]) standalone(raw json.RawMessage) (*In, *Result) {
	_, prepared, res := c.pf.run(context.Background(), defaultRuntime, c.def.Name, raw, false)
	if res != nil {
		return nil, res
	}
	return prepared.(*In), nil
}

type typed[In, Out any] struct {
	typedCore[In]
	fn func(context.Context, In) (Out, error)
}

func (t *typed[In, Out]) Run(ctx context.Context, args json.RawMessage) (*Result, error) {
	in, res := t.standalone(args)
	if res != nil {
		return res, nil
	}
	return outResult(t.fn(ctx, *in))
}

func (t *typed[In, Out]) runPrepared(ctx context.Context, prepared any) (*Result, error) {
	return outResult(t.fn(ctx, *prepared.(*In)))
}

type typedFor[C, In, Out any] struct {
	typedCore[In]
	fn func(context.Context, *Call[C], In) (Out, error)
}

func (t *typedFor[C, In, Out]) Run(ctx context.Context, call *Call[C]) (*Result, error) {
	if in, ok := call.preparedBy(t); ok {
		return outResult(t.fn(ctx, call, *in.(*In)))
	}
	in, res := t.standalone(call.Args())
	if res != nil {
		return res, nil
	}
	return outResult(t.fn(ctx, call, *in))
}

// outResult builds the result of a typed function.
func outResult[Out any](out Out, err error) (*Result, error) {
	if err != nil && !isNil(err) {
		return nil, err
	}
	switch o := any(out).(type) {
	case string:
		return ownedText(o), nil
	case *Result:
		return o, nil // the tool's own: copied before the pipeline writes into it
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, &Error{Internal: true, Cause: fmt.Errorf("tool output cannot be encoded as JSON: %w", err)}
	}
	res := ownedText(string(b))
	if string(b) != "null" {
		// A nil pointer's null is text alone: no client can use it as
		// structured output, and a tool with an outputSchema declared an
		// object.
		res.trusted, res.Structured = true, b
	}
	return res, nil
}

// ownedText returns a result the pipeline owns holding one text block,
// made in one allocation: the result and its block side by side.
func ownedText(s string) *Result {
	r := &struct {
		res   Result
		block [1]Content
	}{}
	r.block[0] = TextContent(s)
	r.res.Content, r.res.owned = r.block[:], true
	return &r.res
}
