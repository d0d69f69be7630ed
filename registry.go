package tool

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolbelt-go/tool/internal/schema"
	"github.com/toolbelt-go/tool/internal/text"
	"github.com/toolbelt-go/tool/keyring"
)

// RegistryOptions configures a [Registry]. A nil *RegistryOptions, or a
// zero field, means the documented default.
type RegistryOptions struct {
	// Limits bounds the arguments preflight accepts; see [Limits] for the
	// defaults.
	Limits Limits
	// DefaultTimeout bounds calls to tools whose Definition sets no
	// Timeout. Zero means [DefaultTimeout]; negative means no limit.
	DefaultTimeout time.Duration
	// Grace is how long a tool has to return after its context is done
	// before the call is given up on and its result is dropped (see
	// [Registry.Stats]). Zero means [DefaultGrace].
	Grace time.Duration
	// Observer, if set, receives the events of every call.
	Observer Observer
	// Keyring signs and verifies the cursors of paginated tools. Nil means
	// a random key made for this registry: cursors then work only in this
	// process. Replicas that share cursors share a Keyring
	// ([keyring.FromSecret]).
	Keyring *keyring.Keyring
	// MaxOutputBytes caps the model view of a result for tools whose
	// Definition sets no cap. Zero means [DefaultMaxOutputBytes].
	MaxOutputBytes int
	// HookTimeout bounds each call of the host's hooks: a Classifier,
	// Requirer, Describer, ArgsValidator or Validate method, the approval
	// memory, the spill store. One that has not answered by then is left
	// running (counted in [Registry.Stats]) and the call goes on with the
	// hook's fallback: the worst safety class, asking every time, the basic
	// preview, "not remembered", the plain cut; an argument check that does
	// not answer means the tool does not run. Zero means 5 seconds.
	HookTimeout time.Duration
	// ObserverTimeout bounds how long a call waits, at its end, for its
	// observer to have seen its events. Zero means 1 second.
	ObserverTimeout time.Duration
	// KeepInvisible lets text the model sees keep the characters that are
	// invisible or reorder text when displayed: bidirectional controls
	// (U+202A–U+202E, U+2066–U+2069), zero-width spaces and joiners other
	// than ZWJ/ZWNJ, and the Unicode tag characters (U+E0000–U+E007F), a
	// known channel for hidden instructions. By default they are escaped
	// (\u202e), as control characters always are.
	KeepInvisible bool
	// AllowCostlySchemas registers tools whose input schema may cost more
	// than the budget to validate (a pattern whose program is large for
	// the argument size limit, subschemas fanning out through anyOf and
	// $ref), with a warning ([Registry.Warnings]) instead of refusing them.
	// See [Limits] for the budget.
	AllowCostlySchemas bool
	// Spill, if set, keeps the part of a result the cap cut (for caps of
	// 1 KiB and more), and the registry gets a read-only tool named
	// [ReadOutputTool] with which the model reads it by cursor: the marker
	// where the output was cut gives the first cursor. The cursors are
	// signed with Keyring and bound to the session; what is kept expires
	// with them. A call with no session (Request.Session) is never spilled:
	// its cursor could only be shared with other callers. Nil means cut
	// output is gone. [NewMemorySpillStore] is the in-memory store.
	Spill SpillStore
}

// Registry holds a set of tools under unique names and runs calls to them
// through the pipeline: lookup, recover, preflight, the middlewares added
// with [Registry.Use] (first outermost), then the tool.
//
// A zero Registry is ready to use with default options. A Registry is safe
// for concurrent use; Add and Use may run while calls are in flight, which
// see the registry as it was when they started.
type Registry[C any] struct {
	opts     RegistryOptions
	mu       sync.Mutex // serializes Add and Use
	watchers map[*func()]struct{}
	warnings []*DefinitionError

	// tools maps names to entries. Tools are only ever added, so readers
	// need no snapshot: a sync.Map reads without locking and adds in
	// constant time, where copying a map per Add made registering n tools
	// one by one quadratic.
	tools   sync.Map     // string → *entry[C]
	count   atomic.Int64 // tools added
	listing atomic.Pointer[listing]
	chain   atomic.Pointer[chain[C]]

	rtOnce sync.Once
	rt     *runtimeConfig
}

// chain is the middlewares and the handler they make, swapped whole by Use
// so a call sees one chain from start to end.
type chain[C any] struct {
	mws     []Middleware[C]
	handler Handler[C]
}

// listing is the sorted view of the visible tools, made on first use after
// a change.
type listing struct {
	count int64        // of tools it was made from
	defs  []Definition // sorted by name, hidden left out
	names []string     // visible names, sorted
}

type entry[C any] struct {
	tool       Tool[C]
	def        Definition
	pf         *preflight
	classifier Classifier // nil if the tool has none
}

// NewRegistry returns an empty registry. opts may be nil.
func NewRegistry[C any](opts *RegistryOptions) *Registry[C] {
	r := &Registry[C]{}
	if opts != nil {
		r.opts = *opts
	}
	if r.opts.Spill != nil {
		limit := r.opts.MaxOutputBytes
		if limit <= 0 {
			limit = DefaultMaxOutputBytes
		}
		r.MustAdd(readOutput[C]{store: r.opts.Spill, limit: max(limit, minSpillCap)})
	}
	return r
}

func (r *Registry[C]) lookup(name string) (*entry[C], bool) {
	e, ok := r.tools.Load(name)
	if !ok {
		return nil, false
	}
	return e.(*entry[C]), true
}

func (r *Registry[C]) loadChain() *chain[C] {
	if c := r.chain.Load(); c != nil {
		return c
	}
	c := &chain[C]{handler: r.makeChain(nil)}
	r.chain.CompareAndSwap(nil, c)
	return r.chain.Load()
}

// list returns the sorted view of the visible tools, made again when tools
// were added since the last one.
func (r *Registry[C]) list() *listing {
	n := r.count.Load()
	if l := r.listing.Load(); l != nil && l.count == n {
		return l
	}
	l := &listing{count: n}
	r.tools.Range(func(_, v any) bool {
		if e := v.(*entry[C]); !e.def.Hidden {
			l.defs = append(l.defs, e.def)
		}
		return true
	})
	slices.SortFunc(l.defs, func(a, b Definition) int { return strings.Compare(a.Name, b.Name) })
	for _, d := range l.defs {
		l.names = append(l.names, d.Name)
	}
	r.listing.Store(l)
	return l
}

// DefinitionError is one problem with a tool that [Registry.Add] refused.
type DefinitionError struct {
	Tool    string // the tool's name as given (may be invalid)
	Index   int    // its position in the Add call
	Problem string
	Err     error // the underlying error, if any
}

func (e *DefinitionError) Error() string {
	name := e.Tool
	if name == "" {
		name = "#" + strconv.Itoa(e.Index)
	}
	return "tool " + strconv.Quote(name) + ": " + e.Problem
}

func (e *DefinitionError) Unwrap() error { return e.Err }

// Definer is anything with a [Definition]: a [Tool] that takes the host's
// state, or an [AnyTool] that needs none. It is what [Registry.Add] takes,
// so one call registers both kinds.
type Definer interface {
	Definition() Definition
}

// Add registers tools: each a [Tool] of the registry's state type C, or an
// [AnyTool] (from [New], [NewRaw], [NewPaginated]), which needs no state.
// Either all of them are added or, if any has a problem, none is, and the
// error lists every problem found, one [*DefinitionError] each (use
// errors.As, or errors.Join's Unwrap() []error): an invalid or duplicate
// name, an empty description, an input schema that does not compile, whose
// root is not an object, or that refers outside itself, a tool whose
// argument type cannot be used, a tool for another state type.
func (r *Registry[C]) Add(tools ...Definer) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	added := make(map[string]*entry[C], len(tools))
	var errs []error
	var warnings []*DefinitionError
	for i, d := range tools {
		t, problem := r.toolOf(i, d)
		if problem != nil {
			errs = append(errs, problem)
			continue
		}
		e, problems, warns := r.check(i, t)
		warnings = append(warnings, warns...)
		if e != nil {
			if _, dup := r.lookup(e.def.Name); dup {
				problems = append(problems, &DefinitionError{Tool: e.def.Name, Index: i, Problem: "a tool with this name is already registered"})
			} else if _, dup := added[e.def.Name]; dup {
				problems = append(problems, &DefinitionError{Tool: e.def.Name, Index: i, Problem: "the name appears twice in this Add call"})
			} else if len(problems) == 0 {
				added[e.def.Name] = e
			}
		}
		errs = append(errs, problems...)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for n, e := range added {
		r.tools.Store(n, e)
	}
	r.count.Add(int64(len(added)))
	r.warnings = append(r.warnings, warnings...)
	r.changed()
	return nil
}

// Warnings returns the problems found in registered tools that did not stop
// them from being registered: a schema that may be slow to validate (see
// RegistryOptions.AllowCostlySchemas), a struct tag that was read in a way
// its author may not expect. Review them once, at start-up.
func (r *Registry[C]) Warnings() []*DefinitionError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.warnings)
}

// OnChange registers fn to be called after every change to the registry's
// tools (a successful Add), so an exporter can tell its clients (MCP's
// notifications/tools/list_changed). fn runs on the goroutine that made the
// change, with no lock held, and must not block. The returned function
// unregisters it.
func (r *Registry[C]) OnChange(fn func()) (cancel func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watchers == nil {
		r.watchers = map[*func()]struct{}{}
	}
	key := &fn
	r.watchers[key] = struct{}{}
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.watchers, key)
	}
}

// changed calls the watchers; r.mu is held, and released while they run.
func (r *Registry[C]) changed() {
	if len(r.watchers) == 0 {
		return
	}
	fns := make([]func(), 0, len(r.watchers))
	for fn := range r.watchers {
		fns = append(fns, *fn)
	}
	r.mu.Unlock()
	defer r.mu.Lock()
	for _, fn := range fns {
		func() {
			defer func() { _ = recover() }() // a broken watcher must not break Add
			fn()
		}()
	}
}

// toolOf returns d as a Tool[C]: itself, or an AnyTool adapted. Anything
// else, a tool for another state type say, is a problem.
func (r *Registry[C]) toolOf(i int, d Definer) (Tool[C], *DefinitionError) {
	if d == nil || isNilPointer(d) {
		return nil, &DefinitionError{Index: i, Problem: "the tool is nil"}
	}
	switch t := d.(type) {
	case Tool[C]:
		return t, nil
	case AnyTool:
		return Adapt[C](t), nil
	}
	name := ""
	if def, err := safeDefinition(d); err == nil {
		name = def.Name
	}
	want := reflect.TypeFor[C]().String()
	problem := "it is neither a tool.Tool[" + want + "] nor a tool.AnyTool (it has no matching Run method)"
	if m, ok := reflect.TypeOf(d).MethodByName("Run"); ok && m.Type.NumIn() == 3 {
		if got := m.Type.In(2).String(); strings.Contains(got, "tool.Call[") {
			problem = "it takes host state of another type (its Run takes " + got + "), and this registry's state type is " + want +
				": register it in a registry of its own state type, or build it with tool.New to need no state"
		}
	}
	return nil, &DefinitionError{Tool: name, Index: i, Problem: problem}
}

// check validates one tool; it returns its entry (nil when the tool is
// unusable) and its problems.
func (r *Registry[C]) check(i int, t Tool[C]) (e *entry[C], problems []error, warnings []*DefinitionError) {
	def, err := safeDefinition(t)
	if err != nil {
		return nil, []error{&DefinitionError{Index: i, Problem: err.Error(), Err: err}}, nil
	}
	bad := func(problem string, err error) {
		problems = append(problems, &DefinitionError{Tool: def.Name, Index: i, Problem: problem, Err: err})
	}
	if !ValidName(def.Name) {
		bad("invalid name "+text.Quote(def.Name, 80)+": use 1 to 64 of a-z, A-Z, 0-9, '_' and '-'", nil)
	}
	if strings.TrimSpace(def.Description) == "" {
		bad("the description is empty; the model needs it to know when to call the tool", nil)
	}
	if def.Timeout < 0 || def.IdleTimeout < 0 {
		bad("Timeout and IdleTimeout must not be negative", nil)
	}
	if def.MaxOutputBytes < 0 {
		bad("MaxOutputBytes is negative", nil)
	}
	pf := newPreflight(t, r.opts.Limits)
	if pf.err != nil {
		bad(pf.err.Error(), pf.err)
	} else if pf.args != nil {
		costly, warn := pf.args.costProblems()
		switch {
		case costly != "" && r.opts.AllowCostlySchemas:
			warnings = append(warnings, &DefinitionError{Tool: def.Name, Index: i, Problem: costly})
		case costly != "":
			bad(costly+" (set RegistryOptions.AllowCostlySchemas to register it anyway)", nil)
		case warn != "":
			warnings = append(warnings, &DefinitionError{Tool: def.Name, Index: i, Problem: warn})
		}
	}
	if len(def.OutputSchema) > 0 {
		if _, err := schema.Compile(def.OutputSchema); err != nil {
			bad("output schema: "+err.Error(), err)
		}
	}
	c, _ := As[Classifier](t)
	return &entry[C]{tool: t, def: def, pf: pf, classifier: c}, problems, warnings
}

func safeDefinition(t Definer) (def Definition, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("Definition panicked: %v", p)
		}
	}()
	return t.Definition(), nil
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// ValidName reports whether name is a valid tool name: 1 to 64 of a-z,
// A-Z, 0-9, '_' and '-'.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// MustAdd is like Add but panics on error, for tools registered at init.
func (r *Registry[C]) MustAdd(tools ...Definer) {
	if err := r.Add(tools...); err != nil {
		panic("tool: " + err.Error())
	}
}

// Use appends middlewares to the registry's chain. They run after
// preflight, in the order given across all Use calls (the first added is
// outermost), around every tool.
func (r *Registry[C]) Use(mws ...Middleware[C]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.loadChain()
	next := &chain[C]{mws: append(slices.Clip(old.mws), mws...)}
	next.handler = r.makeChain(next.mws)
	r.chain.Store(next)
}

func (r *Registry[C]) makeChain(mws []Middleware[C]) Handler[C] {
	return recoverStage(preflightStage(Chain(mws...)(invoke[C])))
}

// Definitions returns the definitions of the registered tools that are not
// hidden, sorted by name. The slice is the caller's; the schemas in it are
// shared and must not be modified.
func (r *Registry[C]) Definitions() []Definition {
	return slices.Clone(r.list().defs)
}

// Stats returns figures about the registry's calls so far.
func (r *Registry[C]) Stats() Stats { return r.runtime().counters.stats() }

func (r *Registry[C]) runtime() *runtimeConfig {
	r.rtOnce.Do(func() { r.rt = newRuntime(&r.opts) })
	return r.rt
}

// Lookup returns the tool registered under name, hidden or not.
func (r *Registry[C]) Lookup(name string) (Tool[C], bool) {
	e, ok := r.lookup(name)
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// Call runs one call through the pipeline and returns its result; it never
// returns nil and never panics. state is passed to the tool as
// [Call.State].
func (r *Registry[C]) Call(ctx context.Context, state C, req Request) *Result {
	start := time.Now()
	ch := r.loadChain()
	rt := r.runtime()
	var events *emitter
	if obs := bothObservers(rt.observer, req.Observer); obs != nil {
		events = newEmitter(obs, &req, rt.counters)
		events.fromPipeline(Event{Kind: EventStarted})
	}
	e, ok := r.lookup(req.Name)
	var res *Result
	switch {
	case ctx.Err() != nil:
		// Nothing runs for a call that is over before it starts: not the
		// approver, not the tool.
		res = canceledResult(ctx, req.Name, notStarted)
	case !ok:
		res = unknownTool(req.Name, r.list().names)
	default:
		call := &Call[C]{ID: req.ID, Name: req.Name, State: state, args: req.Args, Session: req.Session, answer: req.Approval, nullMeansAbsent: req.NullMeansAbsent,
			tool: e.tool, def: &e.def, pf: e.pf, rt: rt, events: events}
		res = ch.handler(ctx, call)
		if res == nil {
			res = &Result{owned: true, Status: StatusFailed, IsError: true, Err: errors.New("tool: a middleware returned a nil *Result"),
				Content: []Content{TextContent("tool " + req.Name + " returned no result")}}
		}
	}
	res = finish(rt, res.own(), req, start)
	if events != nil {
		events.finish(Event{Kind: EventFinished, Result: res}, rt.observerTimeout)
	}
	return res
}

// finish fills in the host view and makes the model view safe: every text
// block escaped, the status and IsError consistent.
func finish(rt *runtimeConfig, res *Result, req Request, start time.Time) *Result {
	res.CallID, res.Tool = req.ID, text.Clean(text.Cut(req.Name, 128))
	res.Started, res.Duration = start, time.Since(start)
	switch {
	case res.Status == StatusOK && res.IsError:
		res.Status = StatusFailed
	case res.Status != StatusOK:
		res.IsError = true
	}
	// Results made by middlewares have not been through the output stage;
	// the others pass this again in a scan that allocates nothing.
	keep := rt.keepInvisible
	for i := range res.Content {
		res.Content[i].Text = text.CleanModel(res.Content[i].Text, keep)
		res.Content[i].Name = text.CleanModel(res.Content[i].Name, keep)
	}
	return res
}

// ErrUnknownTool is the host-side cause of an UnknownTool result.
var ErrUnknownTool = errors.New("unknown tool")

func unknownTool(name string, names []string) *Result {
	var b strings.Builder
	b.WriteString("Error: there is no tool named " + text.QuoteASCII(name, 64) + " (names are case-sensitive).")
	if close := text.Closest(name, names, 3); len(close) > 0 {
		b.WriteString(" Did you mean " + strconv.Quote(close[0]))
		for _, c := range close[1:] {
			b.WriteString(" or " + strconv.Quote(c))
		}
		b.WriteString("?")
	}
	if len(names) > 0 {
		b.WriteString(" Available tools: " + joinLimited(names, 40) + ".")
	}
	return &Result{owned: true, Status: StatusUnknownTool, IsError: true, Err: fmt.Errorf("%w %q", ErrUnknownTool, text.Cut(name, 128)),
		Content: []Content{TextContent(b.String())}}
}
