package tool

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
	// (\u202e), as control characters always are; in structured output,
	// as JSON escapes, so that a decoder reads the same value.
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
	// CallLimits sets the limits of tools by name, in place of their
	// Definition's CallLimits: for tools whose definitions you do not
	// write (a ready-made toolset). See [CallLimit].
	CallLimits map[string][]CallLimit
	// Limiter counts the calls that the tools' limits are enforced with.
	// Nil means a [NewMemoryLimiter] for this registry, which holds them
	// in this process. Replicas that hold their limits together share a
	// Limiter on a store they share (toolredis.NewLimiter), and the same
	// limits.
	Limiter Limiter
	// Records, if set, answers a call from its record when an earlier
	// call with the same ID in the same session ran: the tool does not run
	// again, and the model is given what it was given then
	// ([Result.FromRecord]). A call whose ID was used for other arguments
	// or another tool, that arrives while its twin runs and does not end
	// in time, or whose twin ran but could not be recorded, is refused
	// ([StatusConflict]: [ErrCallIDReused], [ErrCallInFlight],
	// [ErrCallUnrecorded]); a twin waits for the first within its own
	// deadline. Only calls whose tool started are recorded; one that did
	// not start frees its ID, within seconds even if its process died.
	// Calls with no session or no ID are never recorded. Nil means every
	// call runs. [NewMemoryRecordStore] is the in-memory store.
	Records RecordStore
	// RecordFor is how long a record is kept, and how long a call that
	// was started and never finished (its process died) holds its ID.
	// Zero means an hour.
	RecordFor time.Duration
}

// Registry holds a set of tools under unique names and runs calls to them
// through the pipeline: lookup, recover, preflight, the record, the
// middlewares added with [Registry.Use] (first outermost), the seal, the
// dry run, the limits, the deadline, the tool, output and events.
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

// entry is a registered tool: what lookup hands the pipeline, all of it
// decided at registration.
type entry[C any] struct {
	tool       Tool[C]
	def        Definition
	pf         *preflight // the tool's compiled preflight
	classifier Classifier // nil if the tool has none
	// run is how the run stage calls the tool: a tool made by Wrap runs
	// its middlewares around its tool (see runner), any other its Run.
	run func(context.Context, *Call[C]) (*Result, error)
	rt  *runtimeConfig // the registry's options
	// limits are the tool's CallLimits, each counted under its limitKey
	// (limit.go).
	limits    []CallLimit
	limitKeys []string
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
	c := &chain[C]{handler: pipeline[C](nil)}
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

// Use appends middlewares to the registry's chain. They run after
// preflight, in the order given across all Use calls (the first added is
// outermost), around every tool.
func (r *Registry[C]) Use(mws ...Middleware[C]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.loadChain()
	next := &chain[C]{mws: append(slices.Clip(old.mws), mws...)}
	next.handler = pipeline(next.mws)
	r.chain.Store(next)
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
