package tool

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
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
// the map slot, the list element, the entry and its id, as measured
// (TestMemorySpillCountsWhatItHolds). It is counted against the bound, so
// that many small entries cannot hold more memory than the bound says.
const spillEntryCost = 160

// MemorySpillStore is a [SpillStore] in memory, bounded in bytes (the data and
// each entry's bookkeeping): when a new entry does not fit, expired entries
// go first, then the oldest. Put and Get take constant time, amortized.
type MemorySpillStore struct {
	// Now is the clock; nil means time.Now. Tests set it to a fake clock.
	Now func() time.Time

	mu      sync.Mutex
	max     int
	used    int
	entries map[string]*list.Element // of *spillEntry
	order   list.List                // oldest first
}

type spillEntry struct {
	id      string
	data    string
	expires time.Time
}

func (e *spillEntry) cost() int { return len(e.data) + len(e.id) + spillEntryCost }

// NewMemorySpillStore returns an in-memory store that keeps at most maxBytes;
// zero means 64 MiB.
func NewMemorySpillStore(maxBytes int) *MemorySpillStore {
	if maxBytes <= 0 {
		maxBytes = defaultSpillBytes
	}
	return &MemorySpillStore{max: maxBytes, entries: map[string]*list.Element{}}
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
	for m.used+e.cost() > m.max {
		m.remove(m.order.Front())
	}
	m.entries[id] = m.order.PushBack(e)
	m.used += e.cost()
	return nil
}

func (m *MemorySpillStore) remove(el *list.Element) {
	e := m.order.Remove(el).(*spillEntry)
	delete(m.entries, e.id)
	m.used -= e.cost()
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
