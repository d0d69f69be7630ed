package schema

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The authority has no memory of what it already checked: a value that
// two anyOf branches both lead to is checked twice, and a schema whose
// alternatives nest (anyOf of $refs whose targets are anyOf again) checks
// a value nested d deep 2^d times. Each check allocates (the validator's
// frame, and an error with its location when it fails), so a 40-byte call
// could take gigabytes. Two bounds keep that from happening:
//
//   - at registration, multiplicity predicts the most checks one value can
//     get at any depth the argument limits allow, whatever keys the model
//     picks, and the registry refuses (or warns about) schemas past its
//     budget;
//   - at call time, Checks counts the checks these arguments would take
//     before the authority runs, and a call past the budget is refused as
//     an argument error instead of validated.
//
// Both read the authority's own compiled schema, so every keyword that
// applies a subschema is counted (including $dynamicRef, contains,
// propertyNames and the unevaluated keywords). Where the count depends on
// what matches (a patternProperties key, an if, a oneOf branch), it counts
// as if everything matched, so the bound is never below what the authority
// does.

// costGraph is the compiled schema as the two counters read it: one node
// per subschema, with the subschemas that apply to the same value and those
// that apply to each kind of member.
type costGraph struct {
	root     *costNode
	nodes    []*costNode
	closures sync.Pool // *closure, sized for nodes
}

type costNode struct {
	id int

	same []*costNode // applied to the same value: $ref, allOf, anyOf, if/then/else…

	props      map[string]*costNode
	patterns   []*costNode // patternProperties: counted as matching every key
	addl       *costNode   // additionalProperties (or nil)
	propNames  *costNode   // applied to every key, as a string
	unevalProp *costNode   // counted as applying to every member

	prefix      []*costNode // prefixItems (or draft-7 tuple items)
	items       *costNode   // items after the prefix (or additionalItems)
	contains    *costNode
	unevalItems *costNode
	unique      bool // uniqueItems: every item is hashed

	patternInsts int // program size of the node's pattern, 0 without one

	// Keywords whose check walks a list: each entry costs the validator
	// a lookup or a comparison (and, for a missing required key, an entry
	// in the error), so long lists count as more than one check.
	listed    int // enum values, against any value
	objListed int // required and dependentRequired names, against an object
}

// listedPerCheck is how many list entries count as one more check: a
// check costs about a microsecond and some hundreds of bytes, a list entry
// some nanoseconds and at most a few words.
const listedPerCheck = 64

// weight is the checks n costs on v, reached by count paths.
func (n *costNode) weight(count int, v any) int {
	extra := n.listed
	if _, ok := v.(map[string]any); ok {
		extra += n.objListed
	}
	if extra < listedPerCheck {
		return count
	}
	w := 1 + extra/listedPerCheck
	if count > saturate/w {
		return saturate
	}
	return count * w
}

func newCostGraph(root *jsonschema.Schema) *costGraph {
	g := &costGraph{}
	byPtr := map[*jsonschema.Schema]*costNode{}
	type late struct {
		from   *costNode
		static *costNode
		anchor string // "" for $recursiveRef
		known  bool   // the reference is inside a JSON Schema metaschema
	}
	var lates []late
	anchors := map[string][]*costNode{}
	var recursiveAnchors []*costNode
	var node func(s *jsonschema.Schema) *costNode
	node = func(s *jsonschema.Schema) *costNode {
		if s == nil {
			return nil
		}
		if n, ok := byPtr[s]; ok {
			return n
		}
		n := &costNode{id: len(g.nodes)}
		byPtr[s] = n
		g.nodes = append(g.nodes, n)
		if s.DynamicAnchor != "" {
			anchors[s.DynamicAnchor] = append(anchors[s.DynamicAnchor], n)
		}
		if s.RecursiveAnchor {
			recursiveAnchors = append(recursiveAnchors, n)
		}
		add := func(c *jsonschema.Schema) {
			if c != nil {
				n.same = append(n.same, node(c))
			}
		}
		add(s.Ref)
		known := strings.HasPrefix(s.Location, "https://json-schema.org/")
		if s.RecursiveRef != nil {
			lates = append(lates, late{from: n, static: node(s.RecursiveRef), known: known})
		}
		if s.DynamicRef != nil {
			lates = append(lates, late{from: n, static: node(s.DynamicRef.Ref), anchor: s.DynamicRef.Anchor, known: known})
		}
		for _, group := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, c := range group {
				add(c)
			}
		}
		add(s.Not)
		add(s.If)
		add(s.Then)
		add(s.Else)
		for _, k := range sortedKeys(s.DependentSchemas) {
			add(s.DependentSchemas[k])
		}
		for _, k := range sortedKeys(s.Dependencies) {
			if c, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
				add(c)
			}
		}

		if len(s.Properties) > 0 {
			n.props = make(map[string]*costNode, len(s.Properties))
			for _, k := range sortedKeys(s.Properties) {
				n.props[k] = node(s.Properties[k])
			}
		}
		for re, c := range s.PatternProperties {
			n.patterns = append(n.patterns, node(c))
			n.patternInsts = max(n.patternInsts, patternInsts(re.String()))
		}
		if c, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			n.addl = node(c)
		}
		n.propNames = node(s.PropertyNames)
		n.unevalProp = node(s.UnevaluatedProperties)

		for _, c := range s.PrefixItems {
			n.prefix = append(n.prefix, node(c))
		}
		n.items = node(s.Items2020)
		switch items := s.Items.(type) {
		case *jsonschema.Schema:
			n.items = node(items)
		case []*jsonschema.Schema:
			for _, c := range items {
				n.prefix = append(n.prefix, node(c))
			}
			if c, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
				n.items = node(c)
			}
		}
		n.contains = node(s.Contains)
		n.unevalItems = node(s.UnevaluatedItems)
		n.unique = s.UniqueItems
		if s.Enum != nil {
			n.listed = len(s.Enum.Values)
		}
		n.objListed = len(s.Required)
		for _, names := range s.DependentRequired {
			n.objListed += len(names)
		}
		if s.Pattern != nil {
			n.patternInsts = max(n.patternInsts, patternInsts(s.Pattern.String()))
		}
		return n
	}
	g.root = node(root)
	g.closures.New = func() any { return newClosure(len(g.nodes)) }

	// $dynamicRef (and draft 2019's $recursiveRef) checks one schema: the
	// outermost one in the dynamic scope with its anchor, which depends on
	// the path. Inside the JSON Schema metaschemas, the outermost is the
	// anchor nearest the root (the metaschema the tool's schema refers to),
	// so that one is counted. Anywhere else, every schema it could be is
	// counted: more than the validator does, never less.
	var dist []int
	for _, l := range lates {
		candidates := recursiveAnchors
		if l.anchor != "" {
			candidates = anchors[l.anchor]
		}
		candidates = append([]*costNode{l.static}, candidates...)
		if !l.known {
			l.from.same = append(l.from.same, candidates...)
			continue
		}
		if dist == nil {
			dist = g.distances()
		}
		nearest := l.static
		for _, c := range candidates {
			if dist[c.id] < dist[nearest.id] {
				nearest = c
			}
		}
		l.from.same = append(l.from.same, nearest)
	}
	return g
}

// distances returns each node's distance from the root, over every edge.
func (g *costGraph) distances() []int {
	dist := make([]int, len(g.nodes))
	for i := range dist {
		dist[i] = len(g.nodes) // unreachable
	}
	dist[g.root.id] = 0
	queue := []*costNode{g.root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, c := range n.edges() {
			if c != nil && dist[c.id] > dist[n.id]+1 {
				dist[c.id] = dist[n.id] + 1
				queue = append(queue, c)
			}
		}
	}
	return dist
}

// edges lists every subschema n applies, to the value or to its members.
func (n *costNode) edges() []*costNode {
	out := append([]*costNode{n.addl, n.propNames, n.unevalProp, n.items, n.contains, n.unevalItems}, n.same...)
	for _, k := range sortedKeys(n.props) {
		out = append(out, n.props[k])
	}
	out = append(out, n.patterns...)
	return append(out, n.prefix...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// weighted is a subschema reached by count paths.
type weighted struct {
	n     *costNode
	count int
}

// saturate is where counts stop growing, far above any budget, so that
// sums of counts never overflow.
const saturate = 1 << 40

func addCount(a, b int) int { return min(a+b, saturate) }

// closure finds the subschemas that check one value, given those that
// reach it, with the number of paths that lead to each: the closure under
// same-value applicators, each subschema counted once with the sum of its
// paths (in topological order, so the work is linear in the subschemas,
// not in the paths). Registration refuses same-value cycles; one that got
// through (through $dynamicRef, say) makes every count saturate.
type closure struct {
	stamp []uint32 // == epoch: discovered in this expansion
	state []uint8  // 1: on the DFS stack, 2: done
	count []int
	epoch uint32

	order []*costNode
	stack []frame
	arena []weighted // for checkCounter, kept with the rest for reuse
}

type frame struct {
	n    *costNode
	next int
}

func newClosure(nodes int) *closure {
	return &closure{stamp: make([]uint32, nodes), state: make([]uint8, nodes), count: make([]int, nodes)}
}

// expand appends the closure of start to out and returns it.
func (c *closure) expand(start []weighted, out []weighted) []weighted {
	if len(start) == 1 && len(start[0].n.same) == 0 {
		return append(out, start[0])
	}
	c.epoch++
	if c.epoch == 0 { // wrapped: forget every stamp
		clear(c.stamp)
		c.epoch = 1
	}
	c.order = c.order[:0]
	cyclic := false
	for _, w := range start {
		if c.stamp[w.n.id] == c.epoch {
			continue
		}
		c.discover(w.n)
		for len(c.stack) > 0 {
			top := &c.stack[len(c.stack)-1]
			if top.next == len(top.n.same) {
				c.state[top.n.id] = 2
				c.order = append(c.order, top.n)
				c.stack = c.stack[:len(c.stack)-1]
				continue
			}
			next := top.n.same[top.next]
			top.next++
			switch {
			case c.stamp[next.id] != c.epoch:
				c.discover(next)
			case c.state[next.id] == 1:
				cyclic = true
			}
		}
	}
	for _, w := range start {
		c.count[w.n.id] = addCount(c.count[w.n.id], w.count)
	}
	// order is a postorder: walked backwards, every subschema comes before
	// those it applies.
	for i := len(c.order) - 1; i >= 0; i-- {
		n := c.order[i]
		if cyclic {
			c.count[n.id] = saturate
		}
		for _, s := range n.same {
			c.count[s.id] = addCount(c.count[s.id], c.count[n.id])
		}
		out = append(out, weighted{n, c.count[n.id]})
	}
	return out
}

func (c *closure) discover(n *costNode) {
	c.stamp[n.id] = c.epoch
	c.state[n.id] = 1
	c.count[n.id] = 0
	c.stack = append(c.stack, frame{n: n})
}

func total(ws []weighted) int {
	t := 0
	for _, w := range ws {
		t = addCount(t, w.count)
	}
	return t
}

// member returns the subschemas that reach the member of an object named
// key, or, with index ≥ 0, the item of an array at that index.
func member(here []weighted, key string, index int, out []weighted) []weighted {
	add := func(n *costNode, count int) {
		if n != nil {
			out = append(out, weighted{n, count})
		}
	}
	for _, w := range here {
		n := w.n
		if index < 0 {
			if p, ok := n.props[key]; ok {
				add(p, w.count)
			} else {
				add(n.addl, w.count)
			}
			for _, p := range n.patterns {
				add(p, w.count)
			}
			add(n.unevalProp, w.count)
			continue
		}
		if index < len(n.prefix) {
			add(n.prefix[index], w.count)
		} else {
			add(n.items, w.count)
		}
		add(n.contains, w.count)
		add(n.unevalItems, w.count)
	}
	return out
}

// keyNames returns the subschemas that check a member's name as a string.
func keyNames(here []weighted, out []weighted) []weighted {
	for _, w := range here {
		if w.n.propNames != nil {
			out = append(out, weighted{w.n.propNames, w.count})
		}
	}
	return out
}

// Work is what validating one value takes from the authority.
type Work struct {
	// Checks counts subschemas applied to values (a subschema that checks
	// a value, plus one per item uniqueItems hashes, plus one per
	// listedPerCheck names or values of its required, dependentRequired
	// and enum lists). Each costs the
	// validator about a microsecond and some hundreds of bytes.
	Checks int
	// PatternSteps counts instructions times bytes of the patterns run
	// (pattern and patternProperties): the regexp engine's work, about
	// 8 ns each.
	PatternSteps int
}

// Within reports whether w is within budget on both counts.
func (w Work) Within(budget Work) bool {
	return w.Checks <= budget.Checks && w.PatternSteps <= budget.PatternSteps
}

// Work counts what the authority would do to validate v, stopping as soon
// as the count passes budget (then the result is past it, not exact).
// Counting costs a small fraction of the validation it predicts.
func (s *Schema) Work(v any, budget Work) Work {
	cl := s.cost.closures.Get().(*closure)
	c := checkCounter{budget: budget, cl: cl, arena: cl.arena[:0]}
	c.value([]weighted{{s.cost.root, 1}}, v)
	cl.arena = c.arena[:0]
	s.cost.closures.Put(cl)
	return c.used
}

type checkCounter struct {
	budget, used Work
	cl           *closure
	arena        []weighted // the subschema lists of the values on the current path
}

func (c *checkCounter) spend(checks, patternSteps int) bool {
	c.used.Checks = addCount(c.used.Checks, checks)
	c.used.PatternSteps = addCount(c.used.PatternSteps, patternSteps)
	return c.used.Within(c.budget)
}

// patternSteps is count runs of a pattern of insts instructions over n
// bytes, saturating.
func patternSteps(count, insts, n int) int {
	if insts == 0 || n == 0 {
		return 0
	}
	if count > saturate/insts/n {
		return saturate
	}
	return count * insts * n
}

// value counts the checks of v, reached by the subschemas in reach.
// Lists live in c.arena, truncated on the way back up: a slice of it stays
// readable while later appends grow it, since they never write below the
// length it had.
func (c *checkCounter) value(reach []weighted, v any) bool {
	mark := len(c.arena)
	defer func() { c.arena = c.arena[:mark] }()
	c.arena = c.cl.expand(reach, c.arena)
	here := c.arena[mark:len(c.arena):len(c.arena)]
	checks := 0
	for _, w := range here {
		checks = addCount(checks, w.n.weight(w.count, v))
	}
	if !c.spend(checks, 0) {
		return false
	}
	// next appends one member's list to the arena and returns it.
	next := func(fill func([]weighted) []weighted) []weighted {
		start := len(c.arena)
		c.arena = fill(c.arena)
		return c.arena[start:]
	}
	switch x := v.(type) {
	case string:
		for _, w := range here {
			if !c.spend(0, patternSteps(w.count, w.n.patternInsts, len(x))) {
				return false
			}
		}
	case map[string]any:
		names := next(func(out []weighted) []weighted { return keyNames(here, out) })
		for k, m := range x {
			if len(names) > 0 && !c.value(names, k) {
				return false
			}
			for _, w := range here {
				if len(w.n.patterns) > 0 && !c.spend(0, patternSteps(w.count, w.n.patternInsts*len(w.n.patterns), len(k))) {
					return false
				}
			}
			at := len(c.arena)
			reach := next(func(out []weighted) []weighted { return member(here, k, -1, out) })
			if len(reach) > 0 && !c.value(reach, m) {
				return false
			}
			c.arena = c.arena[:at]
		}
	case []any:
		for _, w := range here {
			if w.n.unique && !c.spend(patternSteps(w.count, 1, len(x)), 0) {
				return false
			}
		}
		for i, m := range x {
			at := len(c.arena)
			reach := next(func(out []weighted) []weighted { return member(here, "", i, out) })
			if len(reach) > 0 && !c.value(reach, m) {
				return false
			}
			c.arena = c.arena[:at]
		}
	}
	return true
}

// multiplicity predicts the most subschema checks one value can get,
// whatever the keys and indexes on its path, for values nested at most
// maxDepth deep. It explores at most limit states (a state is the set of
// subschemas reaching a value, with their path counts) and returns the
// largest count found; complete reports whether it explored them all (a
// schema too intricate to explore registers with a warning, and the
// call-time count still bounds it).
func (g *costGraph) multiplicity(maxDepth, limit int) (most int, complete bool) {
	m := multiplicityWalk{memo: map[string]walked{}, limit: limit, cl: newClosure(len(g.nodes))}
	most = m.walk([]weighted{{g.root, 1}}, maxDepth)
	return most, m.steps <= limit
}

type multiplicityWalk struct {
	memo  map[string]walked // by state
	steps int
	limit int
	cl    *closure
}

// walked is what the walk found below a state, exploring depth more
// levels; busy while it is being explored.
type walked struct {
	depth, most int
	busy        bool
}

func (m *multiplicityWalk) walk(reach []weighted, depth int) int {
	here := m.cl.expand(reach, nil)
	most := total(here)
	if depth == 0 || most >= saturate || m.steps > m.limit {
		return most
	}
	// A state met again finds what it found before, if that was
	// explored at least as deep (more depth never finds less, so the
	// answer is never too low). A state met again below itself is a cycle
	// that adds no paths (the counts would differ otherwise): what lies
	// beyond it is what the walk is already exploring from it.
	key := stateKey(here)
	if w, ok := m.memo[key]; ok && (w.busy || w.depth >= depth) {
		return max(most, w.most)
	}
	m.memo[key] = walked{busy: true}
	// The keys that lead somewhere different: each declared name, one
	// name no schema declares, each position of a prefix and one after.
	declared := map[string]bool{}
	prefix := 0
	for _, w := range here {
		for k := range w.n.props {
			declared[k] = true
		}
		prefix = max(prefix, len(w.n.prefix))
	}
	try := func(next []weighted) {
		m.steps++
		if len(next) > 0 && m.steps <= m.limit {
			most = max(most, m.walk(next, depth-1))
		}
	}
	for _, k := range sortedKeys(declared) {
		try(member(here, k, -1, nil))
	}
	try(member(here, undeclaredKey(declared), -1, nil))
	try(keyNames(here, nil))
	for i := 0; i <= prefix; i++ {
		try(member(here, "", i, nil))
	}
	m.memo[key] = walked{depth: depth, most: most}
	return most
}

// undeclaredKey returns a key none of declared is.
func undeclaredKey(declared map[string]bool) string {
	k := "\x00"
	for declared[k] {
		k += "\x00"
	}
	return k
}

func stateKey(ws []weighted) string {
	ids := make([]weighted, len(ws))
	copy(ids, ws)
	slices.SortFunc(ids, func(a, b weighted) int { return a.n.id - b.n.id })
	var b strings.Builder
	for _, w := range ids {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(w.n.id))
		b.WriteByte('*')
		b.WriteString(strconv.Itoa(w.count))
	}
	return b.String()
}
