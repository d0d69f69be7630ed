package tool

import (
	"errors"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolbelt-go/tool/internal/canon"
	"github.com/toolbelt-go/tool/internal/jsonparse"
	"github.com/toolbelt-go/tool/internal/text"
)

var printer = message.NewPrinter(language.English)

// describe turns the authority's verdict into problems for the model: at
// most maxProblems of them, with the total.
func (a *argsSchema) describe(err error, sent any) ([]Problem, int) {
	// The authority's error comes as it is: errors.As is for a cause
	// wrapped on the way, and costs a heap variable per target.
	ve, _ := err.(*jsonschema.ValidationError)
	if ve == nil {
		var costly *errTooCostly
		if errors.As(err, &costly) {
			return []Problem{{Code: "too_costly", Message: costly.modelText()}}, 1
		}
		var wrapped *jsonschema.ValidationError
		if !errors.As(err, &wrapped) {
			return []Problem{{Code: "schema", Message: "the arguments could not be validated: " + text.Clean(text.Cut(err.Error(), maxCheckBytes))}}, 1
		}
		ve = wrapped
	}
	// The validator walks the arguments' objects, and some of the
	// schema's keywords (patternProperties, dependentRequired,
	// dependentSchemas, propertyNames…), in map order: the leaves are put
	// in the schema's order of their places (then by key), then by the
	// subschema that failed, then by the name a map gave them, so the same
	// arguments always get the same hint. Leaves that tie on all three
	// keep the validator's order, which is then its fixed keyword order.
	var buf [maxProblems]failedLeaf
	leaves := failedLeaves(buf[:0], ve, "")
	n := 0
	for _, lf := range leaves {
		n += problemCount(lf.e)
	}
	l := &problemList{problems: make([]Problem, 0, max(1, min(n, maxProblems)))}
	if len(leaves) > 1 {
		slices.SortStableFunc(leaves, func(x, y failedLeaf) int {
			if c := a.schema.CompareLocations(x.e.InstanceLocation, y.e.InstanceLocation); c != 0 {
				return c
			}
			if c := strings.Compare(x.e.SchemaURL, y.e.SchemaURL); c != 0 {
				return c
			}
			return strings.Compare(x.key, y.key)
		})
	}
	for _, lf := range leaves {
		e := lf.e
		if l.full() {
			l.skip(problemCount(e))
			continue
		}
		a.leaf(e, sent, l)
	}
	if l.total == 0 {
		l.add(Problem{Code: "schema", Message: "the arguments do not match the schema"})
	}
	return l.problems, l.total
}

// failedLeaf is one leaf of the authority's error tree.
type failedLeaf struct {
	e   *jsonschema.ValidationError
	key string // the property a map-ordered keyword failed for
}

// failedLeaves appends the leaves of the error tree e to leaves, each with
// the key of the map-ordered keyword above it, if any.
func failedLeaves(leaves []failedLeaf, e *jsonschema.ValidationError, key string) []failedLeaf {
	switch k := e.ErrorKind.(type) {
	case *kind.PropertyNames:
		key = k.Property
	case *kind.DependentRequired:
		key = k.Prop
	case *kind.Dependency:
		key = k.Prop
	}
	if len(e.Causes) == 0 {
		return append(leaves, failedLeaf{e, key})
	}
	for _, c := range e.Causes {
		leaves = failedLeaves(leaves, c, key)
	}
	return leaves
}

// problemList keeps the first maxProblems problems and counts them all.
// Past the first, problems are only counted, never described: describing
// one is not free (the closest of the allowed values or keys is an edit
// distance to each), and one call can fail thousands of times.
type problemList struct {
	problems []Problem
	total    int
}

func (l *problemList) add(p Problem) {
	l.total++
	if len(l.problems) < maxProblems {
		l.problems = append(l.problems, p)
	}
}

func (l *problemList) full() bool { return len(l.problems) >= maxProblems }

func (l *problemList) skip(n int) { l.total += n }

// problemCount is the number of problems leaf adds for e.
func problemCount(e *jsonschema.ValidationError) int {
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return len(k.Missing)
	case *kind.AdditionalProperties:
		return len(k.Properties)
	}
	return 1
}

func (a *argsSchema) leaf(e *jsonschema.ValidationError, sent any, l *problemList) {
	loc := e.InstanceLocation
	ptr := pointerOf(loc)
	got := valueAt(sent, loc)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for i, m := range k.Missing {
			if l.full() {
				l.skip(len(k.Missing) - i)
				break
			}
			p := Problem{Pointer: ptr + "/" + jsonparse.EscapePointerToken(m), Code: "required", Got: "nothing"}
			p.Expected = a.expectedAt(append(loc[:len(loc):len(loc)], m))
			p.Message = "missing required key " + text.Quote(m, maxGotBytes)
			if p.Expected != "" {
				p.Message += " (" + p.Expected + ")"
			}
			l.add(p)
		}
	case *kind.AdditionalProperties:
		allowed := a.allowedKeys(loc)
		// Listed in map order: sorted, so the same keys get the same hint
		// (and the same ones are shown when not all fit).
		for i, prop := range slices.Sorted(slices.Values(k.Properties)) {
			if l.full() {
				l.skip(len(k.Properties) - i)
				break
			}
			p := Problem{Pointer: ptr + "/" + jsonparse.EscapePointerToken(prop), Code: "unknown_key", Allowed: slices.Clone(allowed)}
			p.Message = "unknown key " + text.QuoteASCII(prop, maxGotBytes)
			if len(allowed) > 0 {
				p.Message += "; allowed keys: " + joinLimited(allowed, 30)
				if s := a.keyCandidates(allowed).Closest(prop, 1); len(s) > 0 {
					p.Suggestion = s[0]
					p.Message += ". Did you mean " + strconv.Quote(s[0]) + "?"
				}
			} else {
				p.Message += "; this object takes no keys"
			}
			l.add(p)
		}
	case *kind.Type:
		// The message is written once; what was expected and what was got
		// are its substrings.
		var buf [192]byte
		b := append(buf[:0], "expected "...)
		e0 := len(b)
		for i, w := range k.Want {
			if i > 0 {
				b = append(b, " or "...)
			}
			b = append(b, w...)
		}
		e1 := len(b)
		b = append(b, ", got "...)
		g0 := len(b)
		b = appendGot(b, got)
		g1 := len(b)
		if s, ok := got.(string); ok && wantsNumber(k.Want) {
			if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				b = append(b, "; send the number without quotes"...)
			}
		}
		msg := string(b)
		l.add(Problem{Pointer: ptr, Code: "type", Message: msg, Expected: msg[e0:e1], Got: msg[g0:g1]})
	case *kind.Enum:
		h := a.enumHintFor(k.Want)
		var buf [192]byte
		b := append(append(append(buf[:0], "must be one of "...), h.list...), ", got "...)
		g0 := len(b)
		b = appendGot(b, got)
		g1 := len(b)
		var suggestion string
		if s, ok := got.(string); ok {
			if c := h.strings.Closest(s, 1); len(c) > 0 {
				suggestion = c[0]
				b = append(strconv.AppendQuote(append(b, ". Did you mean "...), suggestion), '?')
			}
		}
		msg := string(b)
		l.add(Problem{Pointer: ptr, Code: "enum", Message: msg, Got: msg[g0:g1], Allowed: slices.Clone(h.allowed), Suggestion: suggestion})
	case *kind.Const:
		var buf [192]byte
		b := append(buf[:0], "must be "...)
		e0 := len(b)
		b = append(b, displayJSON(k.Want)...)
		e1 := len(b)
		b = append(b, ", got "...)
		g0 := len(b)
		b = appendGot(b, got)
		msg := string(b)
		l.add(Problem{Pointer: ptr, Code: "const", Message: msg, Expected: msg[e0:e1], Got: msg[g0:]})
	case *kind.Minimum:
		l.add(a.bound(ptr, "minimum", "at least", k.Want, got))
	case *kind.Maximum:
		l.add(a.bound(ptr, "maximum", "at most", k.Want, got))
	case *kind.ExclusiveMinimum:
		l.add(a.bound(ptr, "exclusive_minimum", "greater than", k.Want, got))
	case *kind.ExclusiveMaximum:
		l.add(a.bound(ptr, "exclusive_maximum", "less than", k.Want, got))
	case *kind.MinLength:
		l.add(Problem{Pointer: ptr, Code: "min_length", Expected: "at least " + plural(k.Want, "character"), Got: strconv.Itoa(k.Got),
			Message: "must be at least " + plural(k.Want, "character") + " long, got " + strconv.Itoa(k.Got)})
	case *kind.MaxLength:
		l.add(Problem{Pointer: ptr, Code: "max_length", Expected: "at most " + plural(k.Want, "character"), Got: strconv.Itoa(k.Got),
			Message: "must be at most " + plural(k.Want, "character") + " long, got " + strconv.Itoa(k.Got)})
	case *kind.Pattern:
		p := Problem{Pointer: ptr, Code: "pattern", Expected: "a string matching " + text.Cut(k.Want, 200), Got: gotValue(got)}
		p.Message = "must match the pattern " + text.Quote(k.Want, 200) + ", got " + p.Got
		l.add(p)
	case *kind.MinItems:
		l.add(Problem{Pointer: ptr, Code: "min_items", Expected: "at least " + plural(k.Want, "item"), Got: plural(k.Got, "item"),
			Message: "must have at least " + plural(k.Want, "item") + ", got " + strconv.Itoa(k.Got)})
	case *kind.MaxItems:
		l.add(Problem{Pointer: ptr, Code: "max_items", Expected: "at most " + plural(k.Want, "item"), Got: plural(k.Got, "item"),
			Message: "must have at most " + plural(k.Want, "item") + ", got " + strconv.Itoa(k.Got)})
	case *kind.FalseSchema:
		l.add(Problem{Pointer: ptr, Code: "not_allowed", Got: gotValue(got), Message: "no value is allowed here"})
	default:
		msg := e.ErrorKind.LocalizedString(printer)
		code := "schema"
		if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
			code = kp[len(kp)-1]
		}
		l.add(Problem{Pointer: ptr, Code: code, Got: gotValue(got), Message: text.Clean(text.Cut(msg, maxCheckBytes))})
	}
}

func (a *argsSchema) bound(ptr, code, rel string, want *big.Rat, got any) Problem {
	var buf [192]byte
	b := append(buf[:0], "must be "...)
	e0 := len(b)
	b = append(append(append(b, rel...), ' '), a.boundText(want)...)
	e1 := len(b)
	b = append(b, ", got "...)
	g0 := len(b)
	b = appendGot(b, got)
	msg := string(b)
	return Problem{Pointer: ptr, Code: code, Message: msg, Expected: msg[e0:e1], Got: msg[g0:]}
}

// What a hint says of the schema's keywords is made once per keyword, the
// first time a call fails it, and kept on the argsSchema: the keys are the
// compiled schema's own values (an enum's slice of values, a bound's
// number), the same for every call, so there is at most one entry per
// keyword of the schema.
type (
	// enumHint is what a hint says of one enum: its values as the model
	// reads them, their list, and those that are strings, for "Did you
	// mean".
	enumHint struct {
		allowed []string
		list    string
		strings *text.Candidates
	}
)

// enumHintFor returns the enumHint of the enum whose values are want.
func (a *argsSchema) enumHintFor(want []any) *enumHint {
	if len(want) == 0 {
		return &enumHint{}
	}
	if h, ok := a.hints.Load(&want[0]); ok {
		return h.(*enumHint)
	}
	h := &enumHint{allowed: make([]string, 0, len(want)), strings: text.NewCandidates(stringsOf(want))}
	for _, w := range want {
		h.allowed = append(h.allowed, displayJSON(w))
	}
	h.list = joinLimited(h.allowed, 30)
	stored, _ := a.hints.LoadOrStore(&want[0], h)
	return stored.(*enumHint)
}

// keyCandidates returns an object's declared names (allowedKeys'), prepared
// for "Did you mean".
func (a *argsSchema) keyCandidates(names []string) *text.Candidates {
	if len(names) == 0 {
		return nil
	}
	if c, ok := a.hints.Load(&names[0]); ok {
		return c.(*text.Candidates)
	}
	c, _ := a.hints.LoadOrStore(&names[0], text.NewCandidates(names))
	return c.(*text.Candidates)
}

// boundText is the number of the bound want, as the hint writes it.
func (a *argsSchema) boundText(want *big.Rat) string {
	if s, ok := a.hints.Load(want); ok {
		return s.(string)
	}
	s := ratString(want)
	a.hints.Store(want, s)
	return s
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func wantsNumber(want []string) bool {
	for _, w := range want {
		if w == "integer" || w == "number" {
			return true
		}
	}
	return false
}

// expectedAt describes the schema at loc briefly ("string", "integer ≥ 1").
func (a *argsSchema) expectedAt(loc []string) string {
	n := a.schema.At(loc)
	if n == nil {
		return ""
	}
	s := strings.Join(n.TypeList, " or ")
	if n.HasEnum {
		vals := make([]string, 0, len(n.Enum))
		for _, v := range n.Enum {
			vals = append(vals, displayJSON(v))
		}
		s = "one of " + joinLimited(vals, 10)
	}
	return s
}

func (a *argsSchema) allowedKeys(loc []string) []string {
	n := a.schema.At(loc)
	if n == nil {
		return nil
	}
	return n.PropOrder
}

func valueAt(v any, loc []string) any {
	for _, t := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func pointerOf(tokens []string) string {
	if len(tokens) == 1 {
		return "/" + jsonparse.EscapePointerToken(tokens[0])
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(jsonparse.EscapePointerToken(t))
	}
	return b.String()
}

func displayJSON(v any) string {
	return text.Clean(text.Cut(string(canon.Encode(v)), 100))
}

func stringsOf(vals []any) []string {
	var out []string
	for _, v := range vals {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
