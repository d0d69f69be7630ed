package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/toolbelt-go/tool/internal/jsonparse"
	"github.com/toolbelt-go/tool/internal/schema"
	"github.com/toolbelt-go/tool/internal/text"
)

// argsSchema is what preflight knows of one tool's input.
type argsSchema struct {
	tool   string
	schema *schema.Schema
	limits jsonparse.Limits
	work   schema.Work // the most validation one call may take
	hints  sync.Map    // what a hint says of the schema's enums and bounds, made when one first fails (enumHintFor, keyCandidates, boundText)
}

func newArgsSchema(tool string, s *schema.Schema, lim Limits) *argsSchema {
	checks := lim.MaxSchemaChecks
	if checks <= 0 {
		checks = DefaultMaxSchemaChecks
	}
	return &argsSchema{tool: tool, schema: s, limits: lim.parser(),
		work: schema.Work{Checks: checks, PatternSteps: patternWorkRefused}}
}

// errTooCostly is the cause when validating the arguments would take more
// than the limits allow.
type errTooCostly struct{ work, budget schema.Work }

func (e *errTooCostly) Error() string {
	return fmt.Sprintf("validating the arguments would take more than %d schema checks or %d pattern steps (counted %d and %d before stopping)",
		e.budget.Checks, e.budget.PatternSteps, e.work.Checks, e.work.PatternSteps)
}

// errDefaultsTooCostly is the cause when filling in the schema's defaults
// would take more than Limits.MaxSchemaChecks.
var errDefaultsTooCostly = errors.New("filling in the schema's defaults would take more than Limits.MaxSchemaChecks (one per value filled, then the checks of the completed value)")

// modelText tells the model what went past the budget and what to send
// instead. It names no count: where the count stopped depends on the order
// the arguments' keys were visited in, and the hint must be the same every
// time.
func (e *errTooCostly) modelText() string {
	if e.work.PatternSteps > e.budget.PatternSteps {
		return "these arguments are too costly to check against the tool's schema: its patterns would run over too much text " +
			"(long strings, checked by several patterns or several times each); send shorter strings, or split the work into several calls"
	}
	return "these arguments are too costly to check against the tool's schema, which checks each value against many rules " +
		"(alternatives that lead into nested values again and again, or long lists of required keys or allowed values); " +
		"send fewer or less deeply nested values, or split the work into several calls"
}

// check runs preflight on the arguments: the strict read, strict-mode
// nulls, keys folded onto declared ones, the fast path or the authority,
// then the schema's defaults for what was not sent. It returns the
// validated tree, the error for the model, or ctx's error when the call
// ended before validation did.
func (a *argsSchema) check(ctx context.Context, rt *runtimeConfig, raw json.RawMessage, nullMeansAbsent bool) (any, *ArgsError, error) {
	v, perr := parseArgs(raw, a.limits, a.schema.Names())
	if perr != nil {
		return nil, a.fail([]Problem{*perr}, 1, perr.Code == "truncated", nil, nil), nil
	}
	if nullMeansAbsent {
		a.schema.DropOptionalNulls(v)
	}
	if f, ok := a.schema.FoldedKey(v); ok {
		p := Problem{Pointer: f.Pointer + "/" + jsonparse.EscapePointerToken(f.Key), Code: "case_folded_key", Got: text.QuoteASCII(f.Key, maxGotBytes),
			Expected: strconv.Quote(f.Declared), Suggestion: f.Declared,
			Message: "the key " + text.QuoteASCII(f.Key, maxGotBytes) + " is not " + strconv.Quote(f.Declared) +
				"; keys are case-sensitive, so send " + strconv.Quote(f.Declared) + " exactly as the schema spells it"}
		return nil, a.fail([]Problem{p}, 1, false, v, nil), nil
	}
	err, stopped := a.validate(ctx, rt, v, len(raw))
	if stopped != nil {
		return nil, nil, stopped
	}
	if err != nil {
		problems, total := a.describe(err, v)
		return nil, a.fail(problems, total, false, v, err), nil
	}
	// Defaults are annotations: what was sent is validated as sent, and
	// only then are the absent optional keys filled in (registration made
	// sure every default satisfies its own subschema).
	if !a.schema.ApplyDefaults(v, a.work.Checks) {
		p := Problem{Code: "too_costly", Message: "these arguments are valid, but too costly to complete: the tool's schema fills in a default " +
			"for each optional key left out, item by item, and these would take too many; send fewer items, " +
			"or send the optional keys' values yourself"}
		return nil, a.fail([]Problem{p}, 1, false, v, errDefaultsTooCostly), nil
	}
	return v, nil, nil
}

func (a *argsSchema) verdict(v any) error {
	if a.schema.Valid(v) {
		return nil
	}
	// The authority's work is counted first: it has no bound of its own.
	if w := a.schema.Work(v, a.work); !w.Within(a.work) {
		return &errTooCostly{work: w, budget: a.work}
	}
	return a.schema.Validate(v)
}

// inlineValidation is the argument size under which validation runs on the
// caller's goroutine: below it the worst case registration allows is
// milliseconds. Above it validation runs on a goroutine of its own, so the
// call can end when its context does; the validation then finishes in the
// background, its cost bounded by registration (see [Limits]).
const inlineValidation = 64 << 10

// validate runs the fast path, then the authority where the fast path is
// unsure. It returns the authority's verdict, or ctx's error when the call
// ended first.
func (a *argsSchema) validate(ctx context.Context, rt *runtimeConfig, v any, size int) (verdict, stopped error) {
	if size < inlineValidation || ctx.Done() == nil {
		return a.verdict(v), nil
	}
	// Run like a hook with no bound of its own: counted in
	// Stats.HooksRunning while it finishes after the call has ended.
	err, outcome := callHookFor(ctx, rt, 0, func(context.Context) error { return a.verdict(v) })
	switch outcome {
	case hookTimedOut:
		return nil, context.Cause(ctx)
	case hookPanicked:
		return errors.New("the schema validator panicked"), nil
	}
	return err, nil
}
