package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A schema can be well formed and still useless: a minimum above its
// maximum, an empty enum, a default its own subschema refuses, a $ref that
// loops without reading the arguments, a required property no value can
// satisfy. Every call of such a tool would come back Invalid with a hint
// the model cannot act on, so Compile refuses them, naming where.

// problems finds what makes the schema unusable. It looks at every node
// reachable from the root, each once.
func (s *Schema) problems(c *jsonschema.Compiler) []string {
	var out []string
	add := func(n *Node, format string, args ...any) {
		if len(out) < 8 {
			out = append(out, "at "+showPtr(n.ptr)+": "+fmt.Sprintf(format, args...))
		}
	}
	nodes := reachable(s.root)
	for _, n := range nodes {
		contradictions(n, add)
		if n.HasDefault {
			if err := validateAt(c, n.ptr, n.Default); err != nil {
				add(n, "the default %s does not satisfy its own schema (%s); a default must be a value the schema accepts",
					show(n.Default), oneLine(err.Error()))
			}
		}
	}
	for _, n := range nodes {
		if cyc := sameValueCycle(n); cyc {
			add(n, "its $ref leads back to itself without going into a property or an item, so no value can ever be checked against it; give the recursion a base case")
			break
		}
	}
	if len(out) == 0 && !satisfiable(nodes)[s.root] {
		out = append(out, "no value satisfies the schema: a required property leads, through $ref, to a subschema that requires itself again, or every branch of an anyOf/oneOf is impossible")
	}
	return out
}

func showPtr(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 80 {
		return "value"
	}
	return string(b)
}

// reachable lists the nodes reachable from root through any keyword.
func reachable(root *Node) []*Node {
	seen := map[*Node]bool{root: true}
	out := []*Node{root}
	for i := 0; i < len(out); i++ {
		for _, c := range children(out[i]) {
			if c != nil && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

func children(n *Node) []*Node {
	out := []*Node{n.Ref, n.Addl, n.Items, n.Not, n.If, n.Then, n.Else}
	for _, k := range n.PropOrder {
		out = append(out, n.Props[k])
	}
	for _, group := range [][]*Node{n.AllOf, n.AnyOf, n.OneOf, n.PrefixItems, n.DependentSchemas, n.PatternProps} {
		out = append(out, group...)
	}
	return out
}

// contradictions reports the keywords of one node that no value of the
// types it allows can satisfy together.
func contradictions(n *Node, add func(*Node, string, ...any)) {
	if n.MaxLen >= 0 && n.MinLen > n.MaxLen {
		add(n, "minLength %d is above maxLength %d", n.MinLen, n.MaxLen)
	}
	if n.MaxItems >= 0 && n.MinItems > n.MaxItems {
		add(n, "minItems %d is above maxItems %d", n.MinItems, n.MaxItems)
	}
	if n.MaxProps >= 0 && n.MinProps > n.MaxProps {
		add(n, "minProperties %d is above maxProperties %d", n.MinProps, n.MaxProps)
	}
	if n.MaxProps >= 0 && len(uniq(n.Required)) > n.MaxProps {
		add(n, "%d properties are required but maxProperties is %d", len(uniq(n.Required)), n.MaxProps)
	}
	if n.AddlFalse && len(n.PatternProps) == 0 {
		for _, r := range n.Required {
			if _, ok := n.Props[r]; !ok {
				add(n, "%q is required but not among the properties, and additionalProperties is false", r)
			}
		}
	}
	if lo, hi, ok := numberRange(n); ok {
		if c := lo.v.Cmp(hi.v); c > 0 || c == 0 && (lo.open || hi.open) {
			add(n, "the lower bound %s is not below the upper bound %s", lo.v.RatString(), hi.v.RatString())
		} else if n.Types == tInteger && !hasInteger(lo, hi) {
			add(n, "no integer lies between %s and %s", lo.v.RatString(), hi.v.RatString())
		}
	}
	if n.HasEnum {
		if len(n.Enum) == 0 {
			add(n, "the enum is empty, so no value is allowed")
		} else if n.Types != 0 && !slices.ContainsFunc(n.Enum, n.typeAllows) {
			add(n, "no value of the enum has the type %s", strings.Join(n.TypeList, " or "))
		}
	}
	if n.HasCon && n.Types != 0 && !n.typeAllows(n.Const) {
		add(n, "the const %s does not have the type %s", show(n.Const), strings.Join(n.TypeList, " or "))
	}
}

func uniq(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}

// typeAllows reports whether v's JSON type is one the node allows.
func (n *Node) typeAllows(v any) bool {
	switch x := v.(type) {
	case nil:
		return n.Types&tNull != 0
	case bool:
		return n.Types&tBool != 0
	case string:
		return n.Types&tString != 0
	case json.Number:
		if n.Types&tNumber != 0 {
			return true
		}
		r, ok := new(big.Rat).SetString(string(x))
		return ok && r.IsInt() && n.Types&tInteger != 0
	case map[string]any:
		return n.Types&tObject != 0
	case []any:
		return n.Types&tArray != 0
	}
	return false
}

type limit struct {
	v    *big.Rat
	open bool // exclusive
}

// numberRange returns the tighter of the inclusive and exclusive bounds on
// each side, when the node has bounds on both sides and only numbers (or
// integers) may be valid.
func numberRange(n *Node) (lo, hi limit, ok bool) {
	if n.Types == 0 || n.Types&^(tNumber|tInteger) != 0 {
		return lo, hi, false
	}
	pick := func(incl, excl *bound, lower bool) (limit, bool) {
		switch {
		case incl == nil && excl == nil:
			return limit{}, false
		case excl == nil:
			return limit{v: incl.exact}, true
		case incl == nil:
			return limit{v: excl.exact, open: true}, true
		}
		c := incl.exact.Cmp(excl.exact)
		if lower == (c > 0) {
			return limit{v: incl.exact}, true
		}
		return limit{v: excl.exact, open: true}, true
	}
	lo, okLo := pick(n.Min, n.ExMin, true)
	hi, okHi := pick(n.Max, n.ExMax, false)
	return lo, hi, okLo && okHi
}

// hasInteger reports whether an integer lies between the bounds.
func hasInteger(lo, hi limit) bool {
	first := ceil(lo.v)
	if lo.open && new(big.Rat).SetInt(first).Cmp(lo.v) == 0 {
		first.Add(first, big.NewInt(1))
	}
	c := new(big.Rat).SetInt(first).Cmp(hi.v)
	return c < 0 || c == 0 && !hi.open
}

func ceil(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// validateAt validates v against the subschema at ptr.
func validateAt(c *jsonschema.Compiler, ptr string, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the validator panicked: %v", r)
		}
	}()
	sub, err := c.Compile(resourceURL + "#" + ptr)
	if err != nil {
		return nil // not addressable alone; the whole schema compiled, so let it be
	}
	return sub.Validate(v)
}

// sameValueCycle reports whether n reaches itself through applicators that
// check the same value ($ref, allOf, anyOf, oneOf, not, if/then/else,
// dependentSchemas): a loop the validator would never leave.
func sameValueCycle(n *Node) bool {
	seen := map[*Node]bool{}
	stack := []*Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range sameValue(c) {
			if s == n {
				return true
			}
			if !seen[s] {
				seen[s] = true
				stack = append(stack, s)
			}
		}
	}
	return false
}

func sameValue(n *Node) []*Node {
	out := []*Node{}
	for _, c := range []*Node{n.Ref, n.Not, n.If, n.Then, n.Else} {
		if c != nil {
			out = append(out, c)
		}
	}
	for _, group := range [][]*Node{n.AllOf, n.AnyOf, n.OneOf, n.DependentSchemas} {
		out = append(out, group...)
	}
	return out
}

// satisfiable computes, as a least fixed point, which nodes some value can
// satisfy, judging only what makes a node impossible for certain: false,
// contradictions, a required property that is impossible, an impossible
// $ref or allOf member, anyOf/oneOf with every branch impossible, at least
// one item required of an impossible items schema. Keywords it does not
// reason about (not, if/then/else, patterns) count as satisfiable, so it
// never refuses a schema some value satisfies.
func satisfiable(nodes []*Node) map[*Node]bool {
	sat := map[*Node]bool{}
	for changed := true; changed; {
		changed = false
		for _, n := range nodes {
			if !sat[n] && canSatisfy(n, sat) {
				sat[n] = true
				changed = true
			}
		}
	}
	return sat
}

func canSatisfy(n *Node, sat map[*Node]bool) bool {
	if n.Bool != nil {
		return *n.Bool
	}
	impossible := false
	contradictions(n, func(*Node, string, ...any) { impossible = true })
	if impossible {
		return false
	}
	if n.Ref != nil && !sat[n.Ref] {
		return false
	}
	for _, a := range n.AllOf {
		if !sat[a] {
			return false
		}
	}
	for _, group := range [][]*Node{n.AnyOf, n.OneOf} {
		if len(group) > 0 && !slices.ContainsFunc(group, func(b *Node) bool { return sat[b] }) {
			return false
		}
	}
	if n.Types == tObject { // required says nothing of values that are not objects
		for _, r := range n.Required {
			if c, ok := n.Props[r]; ok && !sat[c] {
				return false
			}
		}
	}
	if n.Types == tArray && n.MinItems > 0 && n.Items != nil && !sat[n.Items] && len(n.PrefixItems) < n.MinItems {
		return false
	}
	return true
}

// Cost is what registration checks to bound the time one call can take to
// validate: work grows with the argument bytes times the instructions of
// the largest pattern, and with how many subschemas check one value.
type Cost struct {
	// PatternInstructions is the size of the largest compiled pattern
	// (pattern, patternProperties). The regexp engine does at most about
	// that much work per byte of a string it checks.
	PatternInstructions int
	// Pattern is that pattern.
	Pattern string
	// FanOut is the most subschema checks one value can get, at any depth
	// and whatever keys lead to it: subschemas that apply to the same value
	// ($ref, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas) add
	// up, and alternatives that each lead into the same member multiply
	// with every level of nesting.
	FanOut int
	// FanOutComplete reports whether FanOut was computed over every shape
	// of arguments; when the schema is too intricate to explore, FanOut is
	// the most found, and the call-time bound ([Schema.Checks]) still holds.
	FanOutComplete bool
}

// fanOutExplore bounds the work of computing FanOut: the states explored
// (a state being the set of subschemas that reach one value).
const fanOutExplore = 20000

// Cost returns the schema's worst case for arguments nested at most
// maxDepth deep, for the registry to judge against its limits. It is
// computed once per schema and depth.
func (s *Schema) Cost(maxDepth int) Cost {
	if c, ok := s.costs.Load(maxDepth); ok {
		return c.(Cost)
	}
	c := s.computeCost(maxDepth)
	s.costs.Store(maxDepth, c)
	return c
}

func (s *Schema) computeCost(maxDepth int) Cost {
	var c Cost
	for _, n := range reachable(s.root) {
		if n.Pattern != nil {
			if k := patternInsts(n.Pattern.String()); k > c.PatternInstructions {
				c.PatternInstructions, c.Pattern = k, n.Pattern.String()
			}
		}
		for _, p := range n.patternKeys {
			if k := patternInsts(p); k > c.PatternInstructions {
				c.PatternInstructions, c.Pattern = k, p
			}
		}
	}
	c.FanOut, c.FanOutComplete = s.cost.multiplicity(maxDepth, fanOutExplore)
	return c
}

func patternInsts(p string) int {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return 0
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0
	}
	return len(prog.Inst)
}

func (c Cost) String() string {
	return "largest pattern " + strconv.Itoa(c.PatternInstructions) + " instructions, fan-out " + strconv.Itoa(c.FanOut)
}
