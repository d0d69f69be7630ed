package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool/internal/decode"
	"github.com/toolbelt-go/tool/internal/jsonparse"
	"github.com/toolbelt-go/tool/internal/schema"
	"github.com/toolbelt-go/tool/internal/text"
)

// Limits bounds the arguments preflight accepts. The size limits are
// checked in one linear pass over the bytes, before any schema validation;
// MaxSchemaChecks then bounds the validation itself, so validation time and
// memory stay bounded whatever the schema and whatever the model sends. A
// zero field means its default.
type Limits struct {
	MaxBytes        int // whole argument document; default 1 MiB
	MaxDepth        int // nesting of objects and arrays; default 64
	MaxStringBytes  int // one string; default 64 KiB
	MaxNumberLength int // one number token; default 100 characters
	MaxExponent     int // a number's written exponent, ±; default 400
	MaxElements     int // members of one object or items of one array; default 10,000

	// MaxSchemaChecks bounds the subschema checks validating one call may
	// take; default 32,768 (DefaultMaxSchemaChecks). A schema whose
	// alternatives (anyOf, oneOf, $ref) lead into the same nested value
	// checks it once per path, so a few bytes of deeply nested arguments
	// can cost millions of checks, each some hundreds of bytes of memory.
	// Preflight counts the checks before validating, and a call past the
	// bound is refused as invalid arguments ("send a smaller or shallower
	// value"). Schemas built from Go types, and any schema without nested
	// alternatives, take about one check per value.
	MaxSchemaChecks int
}

// DefaultMaxSchemaChecks is the default of [Limits.MaxSchemaChecks]: at
// most about 50 MB and 100 ms of validation per call in the worst case,
// room for several thousand values of a schema with alternatives.
const DefaultMaxSchemaChecks = 1 << 15

func (l Limits) parser() jsonparse.Limits {
	or := func(v, d int) int {
		if v > 0 {
			return v
		}
		return d
	}
	return jsonparse.Limits{
		MaxBytes:       or(l.MaxBytes, 1<<20),
		MaxDepth:       or(l.MaxDepth, 64),
		MaxStringBytes: or(l.MaxStringBytes, 64<<10),
		MaxNumberLen:   or(l.MaxNumberLength, 100),
		MaxExponent:    or(l.MaxExponent, 400),
		MaxElements:    or(l.MaxElements, 10000),
	}
}

// ArgsError is the host's structured view of arguments that failed
// preflight; Result.Err holds one for every StatusInvalid result. Its Error text
// is exactly what the model was told.
type ArgsError struct {
	Tool      string
	Problems  []Problem // at most maxProblems; Total counts them all
	Total     int
	Truncated bool     // the arguments were cut off mid-document
	Required  []string // the required top-level keys
	Example   string   // a corrected example of the arguments, from the schema
	Cause     error    // a schema validator failure or an ArgsValidator error
	text      string
}

// Problem is one thing wrong with the arguments.
type Problem struct {
	Pointer    string   // RFC 6901 pointer to the value ("" for the whole)
	Code       string   // machine-readable: "type", "required", "unknown_key", "truncated", …
	Message    string   // one line for the model, escaped
	Expected   string   // what the schema wants, when known
	Got        string   // what was sent, quoted, escaped and cut
	Allowed    []string // allowed values or keys, when there is a list
	Suggestion string   // the closest allowed key or value
}

func (e *ArgsError) Error() string { return e.text }

// Unwrap returns the cause, if any.
func (e *ArgsError) Unwrap() error { return e.Cause }

const (
	maxProblems   = 8
	maxGotBytes   = 64
	maxExample    = 1024
	maxCheckBytes = 512
)

// The validation budget. A pattern costs the regexp engine about its
// program size in work per byte it checks (some 8 ns per instruction and
// byte, measured), and the arguments hold at most Limits.MaxBytes, so a
// schema's worst case is about instructions × MaxBytes; subschemas that
// check the same value (anyOf, $ref, allOf…) multiply the work per value.
// Past the refusal budgets (about 8 s for one call at worst) a schema is
// refused at registration, past the warning budgets (about 1 s) it
// registers with a warning.
const (
	patternWorkRefused = 1 << 30
	patternWorkWarned  = 1 << 27
	fanOutRefused      = 4096
	fanOutWarned       = 256
)

// costProblems judges the schema's worst case against the budget: costly
// past the refusal budget, warn past the warning one.
func (a *argsSchema) costProblems() (costly, warn string) {
	c := a.schema.Cost(a.limits.MaxDepth)
	work := c.PatternInstructions * a.limits.MaxBytes
	switch {
	case work > patternWorkRefused:
		costly = "the pattern " + strconv.Quote(text.Cut(c.Pattern, 80)) + " compiles to " + strconv.Itoa(c.PatternInstructions) +
			" instructions; checking arguments of up to " + strconv.Itoa(a.limits.MaxBytes) + " bytes against it could take seconds per call. " +
			"Bound its repetitions (use + or * rather than {1,1000}), anchor it, or lower Limits.MaxBytes"
	case c.FanOut > fanOutRefused:
		costly = "up to " + fanOutText(c.FanOut) + " subschema checks can fall on one value (alternatives such as anyOf, oneOf and $ref " +
			"that lead into the same nested member multiply with every level), so a small call could take seconds and gigabytes to validate. " +
			"Flatten the alternatives, or make them differ by key so that only one leads into each member"
	case work > patternWorkWarned:
		warn = "the pattern " + strconv.Quote(text.Cut(c.Pattern, 80)) + " compiles to " + strconv.Itoa(c.PatternInstructions) +
			" instructions: a call near the argument size limit may take about a second to validate"
	case c.FanOut > fanOutWarned:
		warn = fanOutText(c.FanOut) + " subschema checks can fall on one value: calls with deeply nested values may be refused as too costly to validate"
	case !c.FanOutComplete:
		warn = "the schema is too intricate to predict its validation cost; each call's cost is still bounded by Limits.MaxSchemaChecks"
	}
	return costly, warn
}

func fanOutText(n int) string {
	if n >= 1<<20 {
		return "over a million"
	}
	return strconv.Itoa(n)
}

// argsSchema is what preflight knows of one tool's input.
type argsSchema struct {
	tool   string
	schema *schema.Schema
	limits jsonparse.Limits
	work   schema.Work // the most validation one call may take
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

// check runs preflight on the arguments: the strict read, strict-mode
// nulls, keys folded onto declared ones, the fast path or the authority,
// then the schema's defaults for what was not sent. It returns the
// validated tree, the error for the model, or ctx's error when the call
// ended before validation did.
func (a *argsSchema) check(ctx context.Context, rt *runtimeConfig, raw json.RawMessage, nullMeansAbsent bool) (any, *ArgsError, error) {
	v, perr := parseArgs(raw, a.limits)
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
	a.schema.ApplyDefaults(v)
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

// parseArgs reads the arguments, which must be one JSON object.
func parseArgs(raw []byte, lim jsonparse.Limits) (any, *Problem) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return map[string]any{}, nil
	}
	v, err := jsonparse.Parse(raw, lim)
	if err != nil {
		return nil, syntaxProblem(err)
	}
	switch x := v.(type) {
	case map[string]any:
		return x, nil
	case nil:
		return map[string]any{}, nil
	case string:
		inner := strings.TrimSpace(x)
		if strings.HasPrefix(inner, "{") {
			if iv, err := jsonparse.Parse([]byte(inner), lim); err == nil {
				if _, ok := iv.(map[string]any); ok {
					return nil, &Problem{Code: "string_wrapped_object", Expected: "object", Got: "string",
						Message: "the arguments are a JSON string that contains an object; send the object itself, not a string"}
				}
			}
		}
		return nil, &Problem{Code: "not_object", Expected: "object", Got: "string " + text.Quote(x, maxGotBytes),
			Message: "the arguments must be a JSON object like {\"key\": value}, not a string"}
	case []any:
		return nil, &Problem{Code: "not_object", Expected: "object", Got: "array",
			Message: "the arguments must be a JSON object like {\"key\": value}, not an array"}
	default:
		return nil, &Problem{Code: "not_object", Expected: "object", Got: decode.Kind(v),
			Message: "the arguments must be a JSON object like {\"key\": value}, not a " + decode.Kind(v)}
	}
}

var parseCodes = map[jsonparse.ErrorKind]string{
	jsonparse.Truncated: "truncated", jsonparse.Syntax: "syntax", jsonparse.TrailingData: "trailing_data",
	jsonparse.DuplicateKey: "duplicate_key", jsonparse.NumberOutOfRange: "number_out_of_range",
	jsonparse.InvalidUTF8: "invalid_utf8", jsonparse.LoneSurrogate: "lone_surrogate",
	jsonparse.TooLarge: "too_large", jsonparse.TooDeep: "too_deep", jsonparse.StringTooLong: "string_too_long",
	jsonparse.NumberTooLong: "number_too_long", jsonparse.ExponentTooLarge: "exponent_too_large",
	jsonparse.TooManyElements: "too_many_elements",
}

func syntaxProblem(e *jsonparse.Error) *Problem {
	p := &Problem{Pointer: e.Pointer, Code: parseCodes[e.Kind]}
	at := "at byte " + strconv.Itoa(e.Offset)
	switch e.Kind {
	case jsonparse.Truncated:
		where := ""
		if e.Pointer != "" {
			where = " inside " + showPointer(e.Pointer)
		}
		p.Message = "the JSON ends after " + strconv.Itoa(e.Offset) + " bytes" + where + ", while " + e.Detail +
			" was expected. Send the complete arguments again; if a value is very long, split the work into smaller calls"
	case jsonparse.Syntax:
		p.Message = "the arguments are not valid JSON " + at + ": " + text.Clean(e.Detail)
	case jsonparse.TrailingData:
		if e.Detail != "" {
			p.Message = "the arguments hold more than one JSON document (a second one starts " + at + "); send exactly one object"
		} else {
			p.Message = "unexpected text after the arguments object " + at + "; send exactly one JSON object and nothing else"
		}
	case jsonparse.DuplicateKey:
		p.Message = "the key " + text.QuoteASCII(e.Key, maxGotBytes) + " appears twice; send each key once"
	case jsonparse.NumberOutOfRange:
		p.Message = "a number " + at + " is beyond what a 64-bit float holds (about ±1.8e308); send an ordinary number"
	case jsonparse.InvalidUTF8:
		p.Message = "the arguments contain bytes that are not valid UTF-8 " + at + "; send text only, escaping anything else"
	case jsonparse.LoneSurrogate:
		p.Message = "the string holds a lone surrogate escape " + text.Clean(e.Detail) + " " + at + ", which is not a character; use a complete surrogate pair or the character itself"
	case jsonparse.TooLarge:
		p.Message = "the arguments are " + strconv.Itoa(e.Size) + " bytes, over the limit of " + strconv.Itoa(e.Limit) + "; send less data per call"
	case jsonparse.TooDeep:
		p.Message = "the arguments nest deeper than " + strconv.Itoa(e.Limit) + " levels; flatten them"
	case jsonparse.StringTooLong:
		p.Message = "a string is longer than the limit of " + strconv.Itoa(e.Limit) + " bytes; send less per call"
	case jsonparse.NumberTooLong:
		p.Message = "a number is written with more than " + strconv.Itoa(e.Limit) + " characters; send an ordinary number"
	case jsonparse.ExponentTooLarge:
		p.Message = "a number's exponent is beyond ±" + strconv.Itoa(e.Limit) + "; send an ordinary number"
	case jsonparse.TooManyElements:
		p.Message = "an object or array has more than " + strconv.Itoa(e.Limit) + " " + e.Detail + "; send fewer per call"
	default:
		p.Message = "the arguments are not valid JSON " + at
	}
	return p
}

func showPointer(p string) string {
	if p == "" {
		return "the top level"
	}
	return text.Clean(text.Cut(p, 200))
}

// fail builds the error and the model's text.
func (a *argsSchema) fail(problems []Problem, total int, truncated bool, sent any, cause error) *ArgsError {
	e := &ArgsError{Tool: a.tool, Problems: problems, Total: total, Truncated: truncated, Cause: cause}
	if a.schema != nil {
		e.Required = a.schema.Root().Required
		e.Example = a.schema.Skeleton(sent, maxExample)
	}
	var b strings.Builder
	size := 3*len(a.tool) + len(e.Example) + 160
	for _, p := range problems {
		size += len(p.Pointer) + len(p.Message) + 8
	}
	for _, r := range e.Required {
		size += len(r) + 2
	}
	b.Grow(size)
	if truncated {
		b.WriteString("Your arguments for ")
		b.WriteString(a.tool)
		b.WriteString(" were cut off: ")
		b.WriteString(problems[0].Message)
		b.WriteString(".\n")
	} else {
		b.WriteString("Invalid arguments for ")
		b.WriteString(a.tool)
		if total == 1 {
			b.WriteString(":\n")
		} else {
			b.WriteString(" (" + strconv.Itoa(total) + " problems):\n")
		}
		for _, p := range problems {
			b.WriteString("- ")
			if p.Pointer != "" {
				b.WriteString(showPointer(p.Pointer))
				b.WriteString(": ")
			}
			b.WriteString(p.Message)
			b.WriteByte('\n')
		}
		if total > len(problems) {
			b.WriteString("- … and " + strconv.Itoa(total-len(problems)) + " more\n")
		}
	}
	if len(e.Required) > 0 {
		b.WriteString("Required keys: ")
		for i, r := range e.Required {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(r)
		}
		b.WriteString(".\n")
	}
	if e.Example != "" && e.Example != "{}" {
		b.WriteString("Expected shape: ")
		b.WriteString(e.Example)
		b.WriteByte('\n')
	}
	b.WriteString("Fix the arguments and call ")
	b.WriteString(a.tool)
	b.WriteString(" again.")
	e.text = b.String()
	return e
}

// checkError turns an ArgsValidator or Validate() error into an ArgsError.
func (a *argsSchema) checkError(err error, sent any) *ArgsError {
	msg := err.Error()
	var te *Error
	hint := ""
	if errors.As(err, &te) {
		if te.Internal {
			msg = "the arguments were rejected"
		} else {
			msg = te.Message
		}
		hint = te.Hint
	}
	p := Problem{Code: "check", Message: text.Clean(text.Cut(msg, maxCheckBytes))}
	var de *decode.Error
	if errors.As(err, &de) {
		p = Problem{Pointer: de.Pointer, Code: "decode", Expected: de.Expected, Got: de.Got,
			Message: text.Clean(text.Cut("expected "+de.Expected+", got "+de.Got+detailSuffix(de.Detail), maxCheckBytes))}
	}
	if hint != "" {
		p.Message += " (" + text.Clean(text.Cut(hint, maxCheckBytes)) + ")"
	}
	return a.fail([]Problem{p}, 1, false, sent, err)
}

func detailSuffix(d string) string {
	if d == "" {
		return ""
	}
	return ": " + d
}

// gotValue describes a sent value for a message: strings quoted, escaped
// and cut; containers by kind and size.
func gotValue(v any) string {
	switch x := v.(type) {
	case string:
		return "string " + text.Quote(x, maxGotBytes)
	case json.Number:
		return decode.Kind(x) + " " + text.Cut(string(x), 40)
	case map[string]any:
		return "an object with " + plural(len(x), "key")
	case []any:
		return "an array of " + plural(len(x), "item")
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
