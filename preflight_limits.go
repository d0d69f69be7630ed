package tool

import (
	"strconv"

	"github.com/toolbelt-go/tool/internal/jsonparse"
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
	MaxExponent     int // a number's written exponent, ±; default 400 (a schema's numbers are held to these two as well)
	MaxElements     int // members of one object or items of one array; default 10,000

	// MaxSchemaChecks bounds the subschema checks validating one call may
	// take; default 32,768 (DefaultMaxSchemaChecks). A schema whose
	// alternatives (anyOf, oneOf, $ref) lead into the same nested value
	// checks it once per path, so a few bytes of deeply nested arguments
	// can cost millions of checks, each some hundreds of bytes of memory;
	// a long required, dependentRequired or enum list counts as one check
	// more per 64 entries. Preflight counts the checks before validating,
	// and a call past the bound is refused as invalid arguments that are
	// "too costly to check" ("send fewer or less deeply nested values").
	// Schemas built from Go types, and any schema without nested
	// alternatives or long lists, take about one check per value. Filling
	// in a valid call's defaults counts against the same bound: one per
	// value filled in, then the checks of the completed value.
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
