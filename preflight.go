package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"

	"github.com/toolbelt-go/tool/internal/canon"
	"github.com/toolbelt-go/tool/internal/plan"
	"github.com/toolbelt-go/tool/internal/schema"
)

// preflight is what the pipeline knows of one tool's arguments: compiled
// once, when the tool is registered or wrapped.
type preflight struct {
	args      *argsSchema
	prep      preparer      // a typed tool that decodes in preflight, if it validated against the same schema
	plan      *plan.Plan    // the typed tool's one-pass decoder, if its schema allows one
	validator ArgsValidator // the tool's own extra check, if any
	paginated bool          // the cursor check runs after validation
	err       error         // the tool cannot run (bad definition)
}

// newPreflight compiles t's input schema, reusing the typed tool's own
// compiled schema when the definition still carries it unchanged.
func newPreflight[C any](t Tool[C], lim Limits) *preflight {
	def := t.Definition()
	pf := &preflight{}
	if cc, ok := As[DefinitionChecker](t); ok && cc.CheckDefinition() != nil {
		pf.err = cc.CheckDefinition()
		return pf
	}
	var s *schema.Schema
	if sp, ok := As[schemaProvider](t); ok && sp.compiledSchema() != nil && bytes.Equal(sp.compiledSchema().Raw(), def.InputSchema) {
		s = sp.compiledSchema()
		if err := s.CheckNumbers(lim.parser()); err != nil {
			pf.err = err
			return pf
		}
		if p, ok := As[preparer](t); ok {
			pf.prep = p
		}
	} else {
		var err error
		if s, err = schema.Compile(def.InputSchema, lim.parser()); err != nil {
			pf.err = err
			return pf
		}
	}
	pf.args = newArgsSchema(def.Name, s, lim)
	pf.validator, _ = As[ArgsValidator](t)
	_, pf.paginated = As[pageMarker](t)
	if pf.prep != nil {
		pf.plan = plan.Build(pf.prep.inType(), s.Root(), pf.args.limits)
		if pf.plan != nil {
			pf.plan.LimitDefaults(pf.args.work.Checks)
		}
	}
	return pf
}

// What preflight discovers of a typed tool through As: its compiled schema,
// and how it decodes its arguments, so that the value preflight validated
// is decoded once, in preflight, and handed to the tool (Call.preparedBy).
type (
	schemaProvider interface{ compiledSchema() *schema.Schema }
	preparer       interface {
		prepare(v any) (any, error)
		inType() reflect.Type
		fresh() (any, reflect.Value)
	}
)

// argsState is preflight's part of a call's state: the arguments, and what
// preflight made of them.
type argsState struct {
	raw             json.RawMessage // the model's bytes, or SetArgs'
	gen             uint64          // counts SetArgs: what an approval seal covers
	nullMeansAbsent bool            // Request.NullMeansAbsent
	validated       bool            // preflight passed raw
	tree            any             // the validated tree; nil when the plan decoded without one, until asked for
	canon           json.RawMessage // the canonical JSON of tree, made on first use
	prepared        any             // the typed tool's decoded arguments (*In)
	preparedFor     any             // the tool that decoded them
}

// preflightStage validates the call's arguments before anything else sees
// them: the strict read, the schema, the typed tool's decoding and its own
// checks, then, for a paginated tool, the cursor (pagination.go). It
// runs once per call; arguments changed later come back through
// revalidate.
func preflightStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) *Result {
		if res := checkArgs(ctx, call); res != nil {
			return res
		}
		return next(ctx, call)
	}
}

// revalidate is the one way back into preflight: arguments changed by
// [Call.SetArgs] since preflight passed them (a middleware's change, an
// approver's edit) are checked again as the preflight stage checks them.
// Approval calls it before it decides, the seal stage before the tool
// runs. It returns nil when the arguments are valid.
func revalidate[C any](ctx context.Context, call *Call[C]) *Result {
	if call.st.args.validated {
		return nil
	}
	return checkArgs(ctx, call)
}

// checkArgs runs preflight on the call's current arguments and returns the
// result for the model when they are not valid.
func checkArgs[C any](ctx context.Context, call *Call[C]) *Result {
	e := call.st.entry
	if e == nil {
		return misconfigured(call.Name, errNoPreflight)
	}
	a := &call.st.args
	v, prepared, res := e.pf.run(ctx, call.runtime(), call.Name, a.raw, a.nullMeansAbsent)
	if res != nil {
		return res
	}
	// v is nil when the typed tool's plan decoded the arguments without a
	// tree: Call.tree builds one if something asks for it.
	if e.pf.prep != nil {
		a.prepared, a.preparedFor = prepared, e.pf.prep
	}
	a.tree, a.validated, a.canon = v, true, nil
	if e.pf.paginated {
		if res := checkCursor(call); res != nil {
			a.tree, a.validated = nil, false
			return res
		}
	}
	return nil
}

// run is the whole of preflight for one set of arguments: the strict read
// and schema check, the typed tool's decoding and Validate method, and the
// tool's ArgsValidator. It returns the validated tree and the decoded
// arguments, or the result for the model.
func (pf *preflight) run(ctx context.Context, rt *runtimeConfig, name string, raw json.RawMessage, nullMeansAbsent bool) (v, prepared any, res *Result) {
	if pf.err != nil {
		return nil, nil, misconfigured(name, pf.err)
	}
	if pf.plan != nil && !nullMeansAbsent {
		// The one-pass decoder: when it is sure, there is no tree (the
		// tool's own checks are given one if they need it); when it is
		// not, the slow path below reads the arguments again.
		in, dst := pf.prep.fresh()
		if pf.plan.Decode(raw, dst) {
			if res := pf.ownChecks(ctx, rt, name, in, func() any { return pf.tree(raw) }); res != nil {
				return nil, nil, res
			}
			return nil, in, nil
		}
	}
	v, aerr, stopped := pf.args.check(ctx, rt, raw, nullMeansAbsent)
	if stopped != nil {
		return nil, nil, canceledResult(ctx, name, notStarted)
	}
	if aerr != nil {
		return nil, nil, invalidResult(aerr)
	}
	if pf.prep != nil {
		var err error
		if prepared, err = pf.prep.prepare(v); err != nil {
			return nil, nil, invalidResult(pf.args.checkError(err))
		}
	}
	if res := pf.ownChecks(ctx, rt, name, prepared, func() any { return v }); res != nil {
		return nil, nil, res
	}
	return v, prepared, nil
}

// ownChecks runs the typed arguments' Validate method and the tool's
// ArgsValidator, each as a bounded hook.
func (pf *preflight) ownChecks(ctx context.Context, rt *runtimeConfig, name string, prepared any, tree func() any) *Result {
	if vd, ok := prepared.(interface{ Validate() error }); ok {
		if res := pf.hookCheck(ctx, rt, name, vd.Validate); res != nil {
			return res
		}
	}
	if pf.validator != nil {
		validator, v := pf.validator, tree()
		if res := pf.hookCheck(ctx, rt, name, func() error { return validator.ValidateArgs(v) }); res != nil {
			return res
		}
	}
	return nil
}

// tree builds the validated tree of arguments the plan decoded without
// one: they parse, and their absent optional keys get their defaults, as on
// the slow path.
func (pf *preflight) tree(raw json.RawMessage) any {
	v, perr := parseArgs(raw, pf.args.limits, pf.args.schema.Names())
	if perr != nil {
		return map[string]any{} // cannot happen: the plan read the same bytes
	}
	// Within the budget: the plan decoded only arguments whose defaults
	// fit it, and the fast path it implies is sure of the completed value.
	pf.args.schema.ApplyDefaults(v, pf.args.work.Checks)
	return v
}

// hookCheck runs a tool's own argument check (an ArgsValidator, the
// argument type's Validate method) as a bounded hook. A check that fails
// makes the arguments invalid; one that panics or does not answer in time
// means the tool does not run, and the model is told it was not its fault.
func (pf *preflight) hookCheck(ctx context.Context, rt *runtimeConfig, name string, check func() error) *Result {
	err, outcome := callHook(ctx, rt, func(context.Context) error { return check() })
	switch outcome {
	case hookPanicked:
		return panicResult(name, "the argument check panicked", false)
	case hookTimedOut:
		if ctx.Err() != nil {
			return canceledResult(ctx, name, notStarted)
		}
		return hookTimeoutResult(name)
	}
	if err != nil {
		return invalidResult(pf.args.checkError(err))
	}
	return nil
}

// Value returns the validated argument tree (map[string]any with
// json.Number numbers, schema defaults filled in) and reports whether
// preflight has validated the current Args.
func (c *Call[C]) Value() (any, bool) {
	if !c.st.args.validated {
		return nil, false
	}
	return c.tree(), true
}

// tree returns the validated tree, built from the arguments the first time
// it is asked for when preflight decoded them without one.
func (c *Call[C]) tree() any {
	a := &c.st.args
	if a.tree == nil && a.validated && c.st.entry != nil && c.st.entry.pf.args != nil {
		a.tree = c.st.entry.pf.tree(a.raw)
	}
	return a.tree
}

// Args returns the arguments: the model's bytes before preflight, and after
// it the canonical JSON of the value that was validated (schema defaults
// filled in), which is exactly what the tool is handed and what an approval
// covers. Change them only through [Call.SetArgs].
func (c *Call[C]) Args() json.RawMessage {
	a := &c.st.args
	if !a.validated {
		return a.raw
	}
	if a.canon == nil {
		a.canon = canon.Encode(c.tree())
	}
	return a.canon
}

// SetArgs replaces the arguments (an approver's edit, say). The new
// arguments go back through preflight before anything reads them as
// validated: before Approval decides, and before the tool runs.
func (c *Call[C]) SetArgs(args json.RawMessage) {
	c.st.args = argsState{raw: args, gen: c.st.args.gen + 1, nullMeansAbsent: c.st.args.nullMeansAbsent}
}

// preparedBy returns the arguments preflight decoded for the typed tool t,
// if t is the tool that decoded them: the value it validated, never
// decoded twice.
func (c *Call[C]) preparedBy(t any) (any, bool) {
	a := &c.st.args
	return a.prepared, a.validated && a.prepared != nil && a.preparedFor == t
}

// argsGeneration counts the call's SetArgs: what an approval seal covers.
func (c *Call[C]) argsGeneration() uint64 { return c.st.args.gen }
