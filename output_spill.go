package tool

import (
	"container/list"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/toolbelt-go/tool/internal/text"
	"github.com/toolbelt-go/tool/keyring"
)

// SpillStore keeps the part of a result that the output cap cut, so the
// model can read it with the read_output tool instead of running the call
// again (see [RegistryOptions.Spill]). [NewMemorySpillStore] is the in-memory
// store; a host whose replicas share cursors backs the interface with a
// store they share. Implementations must be safe for concurrent use, and
// every method must return when ctx is done.
//
// The data is a string so that keeping it needs no copy: an in-memory store
// may keep the string itself, and a result of any size is spilled with no
// more memory than the result already holds. [tooltest.TestSpillStore] checks
// an implementation against this contract.
//
// An id the registry makes is "<session>.<unique>": a digest of the call's
// session, a dot, and random hex. A store shared by many sessions may bound
// what one session holds by the part before the dot, so that one
// session's flood of long results evicts its own spills and not others'
// ([MemorySpillStore] does).
type SpillStore interface {
	// Put keeps data under id until expires. A store that cannot keep it
	// (too large, full, unreachable) returns an error, and the result is
	// cut without a way to read on.
	Put(ctx context.Context, id string, data string, expires time.Time) error
	// Get returns up to n bytes of the data kept under id, from byte off,
	// or an error wrapping [ErrSpillGone] when it expired or was evicted.
	Get(ctx context.Context, id string, off, n int) (string, error)
}

// ErrSpillGone is the cause when the model asks for spilled output that is
// no longer kept.
var ErrSpillGone = errors.New("tool: the spilled output is no longer kept")

// defaultSpillBytes bounds a [MemorySpillStore] made with a size of zero.
const defaultSpillBytes = 64 << 20

// spillEntryCost is what one entry costs a MemorySpill besides its data:
// the map slot, the list elements (the store's and its session's), the
// entry and its id, as measured
// (TestMemorySpillCountsWhatItHolds). It is counted against the bound, so
// that many small entries cannot hold more memory than the bound says.
const spillEntryCost = 240

// MemorySpillStore is a [SpillStore] in memory, bounded in bytes (the data and
// each entry's bookkeeping): when a new entry does not fit, expired entries
// go first, then the oldest. One session (the part of an id before its
// first dot) holds at most an eighth of the store, or one entry if that is
// larger: past it, that session's own oldest entries go first, so that
// one session's flood of long results costs only that session. Put and Get
// take constant time, amortized.
type MemorySpillStore struct {
	// Now is the clock; nil means time.Now. Tests set it to a fake clock.
	Now func() time.Time

	mu       sync.Mutex
	max      int
	used     int
	entries  map[string]*list.Element // of *spillEntry
	order    list.List                // oldest first
	sessions map[string]*spillSession // by the id's part before its first dot
}

type spillEntry struct {
	id      string
	data    string
	expires time.Time
	session *spillSession
	mine    *list.Element // in session.order
}

// spillSession is what one session holds in a MemorySpillStore.
type spillSession struct {
	name  string
	used  int
	order list.List // of *list.Element in the store's order, oldest first
}

// spillShare is the part of a MemorySpillStore one session may hold.
const spillShare = 8

// spillSessionOf is the part of id that names its session, before the
// first dot; ok is false for an id without one, which no session bounds.
func spillSessionOf(id string) (name string, ok bool) {
	name, _, ok = strings.Cut(id, ".")
	return name, ok
}

// spillID is the store id of a spill of session: a digest of the session
// (fixed length, whatever the session's), a dot, the spill's random id.
func spillID(session string, id [16]byte) string {
	d := sha256.Sum256([]byte(session))
	return hex.EncodeToString(d[:8]) + "." + hex.EncodeToString(id[:])
}

func (e *spillEntry) cost() int { return len(e.data) + len(e.id) + spillEntryCost }

// NewMemorySpillStore returns an in-memory store that keeps at most maxBytes;
// zero means 64 MiB.
func NewMemorySpillStore(maxBytes int) *MemorySpillStore {
	if maxBytes <= 0 {
		maxBytes = defaultSpillBytes
	}
	return &MemorySpillStore{max: maxBytes, entries: map[string]*list.Element{}, sessions: map[string]*spillSession{}}
}

func (m *MemorySpillStore) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// Put implements [SpillStore]. Data larger than the whole store is refused
// before anything is done with it.
func (m *MemorySpillStore) Put(_ context.Context, id string, data string, expires time.Time) error {
	e := &spillEntry{id: id, data: data, expires: expires}
	if e.cost() > m.max {
		return fmt.Errorf("tool: %d bytes of output do not fit in a spill store of %d bytes", len(data), m.max)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.entries[id]; ok {
		m.remove(old)
	}
	// Entries are kept in the order they came, and most expire in that
	// order too (one TTL for all), so the expired ones are at the front.
	now := m.now()
	for f := m.order.Front(); f != nil && !now.Before(f.Value.(*spillEntry).expires); f = m.order.Front() {
		m.remove(f)
	}
	var ss *spillSession
	if name, ok := spillSessionOf(id); ok {
		if ss = m.sessions[name]; ss == nil {
			ss = &spillSession{name: name}
		}
		for share := max(m.max/spillShare, e.cost()); ss.used+e.cost() > share; {
			m.remove(ss.order.Front().Value.(*list.Element))
		}
	}
	for m.used+e.cost() > m.max {
		m.remove(m.order.Front())
	}
	el := m.order.PushBack(e)
	m.entries[id] = el
	m.used += e.cost()
	if ss != nil {
		e.session, e.mine = ss, ss.order.PushBack(el)
		ss.used += e.cost()
		m.sessions[ss.name] = ss // after the removals, which drop a session left empty
	}
	return nil
}

func (m *MemorySpillStore) remove(el *list.Element) {
	e := m.order.Remove(el).(*spillEntry)
	delete(m.entries, e.id)
	m.used -= e.cost()
	if ss := e.session; ss != nil {
		ss.order.Remove(e.mine)
		if ss.used -= e.cost(); ss.order.Len() == 0 {
			delete(m.sessions, ss.name)
		}
	}
}

// Get implements [SpillStore].
func (m *MemorySpillStore) Get(_ context.Context, id string, off, n int) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.entries[id]
	if !ok {
		return "", ErrSpillGone
	}
	e := el.Value.(*spillEntry)
	if !m.now().Before(e.expires) {
		m.remove(el)
		return "", ErrSpillGone
	}
	if off < 0 || n < 0 || off > len(e.data) {
		return "", fmt.Errorf("tool: spill read at %d of %d bytes is out of range", off, len(e.data))
	}
	return e.data[off:min(off+n, len(e.data))], nil
}

// Len reports the bytes the store counts against its bound: the data and
// each entry's bookkeeping, expired entries included until they are swept.
func (m *MemorySpillStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// minSpillCap is the smallest cap under which a result is spilled: below
// it the marker, which holds a cursor, would leave little room for output.
const minSpillCap = 1024

// spillState is the state signed into a read_output cursor: which spill,
// and the part of it still to read. Fixed width, so every cursor of one
// session has the same length and the marker can be sized before it is
// signed.
type spillState struct {
	id       [16]byte
	off, end uint64
}

func (s spillState) bytes() []byte {
	b := append([]byte(nil), s.id[:]...)
	b = binary.BigEndian.AppendUint64(b, s.off)
	return binary.BigEndian.AppendUint64(b, s.end)
}

func parseSpillState(b []byte) (spillState, bool) {
	var s spillState
	if len(b) != 32 {
		return s, false
	}
	copy(s.id[:], b)
	s.off, s.end = binary.BigEndian.Uint64(b[16:]), binary.BigEndian.Uint64(b[24:])
	return s, s.off <= s.end
}

// readOutputArgsHash is what read_output cursors bind as their arguments:
// read_output takes nothing besides the cursor.
var readOutputArgsHash = sha256.Sum256([]byte("{}"))

// signSpill signs a read_output cursor for the call's session.
func signSpill[C any](call *Call[C], st spillState) (string, error) {
	return call.runtime().cursorKeyring().Sign(keyring.Claims{Purpose: ReadOutputTool, Session: call.Session, Digest: readOutputArgsHash, State: st.bytes()})
}

// spillOutput is the output stage's cap when the registry has a spill
// store: the text blocks, joined, keep their head and tail, and the part
// cut between them is kept in the store, behind a cursor for read_output
// printed in the marker. It reports false, having changed nothing, when the
// output cannot be spilled; the plain cap applies then.
func spillOutput[C any](ctx context.Context, call *Call[C], res *Result, limit int, store SpillStore) bool {
	if limit < minSpillCap {
		return false
	}
	var st spillState
	if _, err := rand.Read(st.id[:]); err != nil {
		return false
	}
	var signErr error
	marker := func(cut int) string {
		st.end = uint64(cut)
		c, err := signSpill(call, st)
		if err != nil {
			signErr = err
		}
		return spillMarker(cut, c)
	}
	full := res.Text()
	kept, headEnd, tailStart := text.HeadTailMarked(full, limit-blockCost, marker)
	if signErr != nil || headEnd == tailStart {
		return false
	}
	cut := full[headEnd:tailStart] // a substring: nothing is copied
	// What is kept expires with the cursors that lead to it. The store is
	// host code: one that fails, panics or hangs leaves the plain cut.
	id, exp := spillID(call.Session, st.id), call.runtime().cursorKeyring().Expiry()
	err, outcome := callHook(ctx, call.runtime(), func(ctx context.Context) error { return store.Put(ctx, id, cut, exp) })
	if outcome != hookOK || err != nil {
		return false
	}
	res.Truncated += len(cut) + len(res.Structured)
	res.Structured = nil
	res.Content = []Content{TextContent(kept)}
	return true
}
