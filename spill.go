package tool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// SpillStore keeps the part of a result that the output cap cut, so the
// model can read it with the read_output tool instead of running the call
// again (see [RegistryOptions.Spill]). [NewMemorySpill] is the in-memory
// store; a host whose replicas share cursors backs the interface with a
// store they share. Implementations must be safe for concurrent use.
type SpillStore interface {
	// Put keeps data under id until expires. The store may keep data
	// itself: the caller does not modify it afterwards. A store that
	// cannot keep it returns an error, and the result is cut without a way
	// to read on.
	Put(ctx context.Context, id string, data []byte, expires time.Time) error
	// Get returns up to n bytes of the data kept under id, from byte off,
	// or an error wrapping [ErrSpillGone] when it expired or was evicted.
	Get(ctx context.Context, id string, off, n int) ([]byte, error)
}

// ErrSpillGone is the cause when the model asks for spilled output that is
// no longer kept.
var ErrSpillGone = errors.New("tool: the spilled output is no longer kept")

// DefaultSpillBytes bounds a [MemorySpill] made with a size of zero.
const DefaultSpillBytes = 64 << 20

// MemorySpill is a [SpillStore] in memory, bounded in size: when a new
// entry does not fit, expired entries go first, then the oldest.
type MemorySpill struct {
	// Now is the clock; nil means time.Now. Tests set it to a fake clock.
	Now func() time.Time

	mu      sync.Mutex
	max     int
	used    int
	entries map[string]spillEntry
	order   []string // ids, oldest first; may name evicted entries
}

type spillEntry struct {
	data    []byte
	expires time.Time
}

// NewMemorySpill returns an in-memory store that keeps at most maxBytes of
// output; zero means [DefaultSpillBytes].
func NewMemorySpill(maxBytes int) *MemorySpill {
	if maxBytes <= 0 {
		maxBytes = DefaultSpillBytes
	}
	return &MemorySpill{max: maxBytes, entries: map[string]spillEntry{}}
}

func (m *MemorySpill) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// Put implements [SpillStore]. Data larger than the whole store is refused.
func (m *MemorySpill) Put(_ context.Context, id string, data []byte, expires time.Time) error {
	if len(data) > m.max {
		return fmt.Errorf("tool: %d bytes of output do not fit in a spill store of %d bytes", len(data), m.max)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for id, e := range m.entries {
		if !now.Before(e.expires) {
			m.drop(id, e)
		}
	}
	for m.used+len(data) > m.max && len(m.order) > 0 {
		oldest := m.order[0]
		m.order = m.order[1:]
		if e, ok := m.entries[oldest]; ok {
			m.drop(oldest, e)
		}
	}
	if old, ok := m.entries[id]; ok {
		m.drop(id, old)
	}
	m.entries[id] = spillEntry{data: data, expires: expires}
	m.used += len(data)
	m.order = append(m.order, id)
	if len(m.order) > 2*len(m.entries)+16 {
		m.compact()
	}
	return nil
}

func (m *MemorySpill) drop(id string, e spillEntry) {
	delete(m.entries, id)
	m.used -= len(e.data)
}

// compact forgets the ids of entries that are gone, so order stays
// proportional to what is kept.
func (m *MemorySpill) compact() {
	kept := m.order[:0]
	for _, id := range m.order {
		if _, ok := m.entries[id]; ok {
			kept = append(kept, id)
		}
	}
	m.order = kept
}

// Get implements [SpillStore].
func (m *MemorySpill) Get(_ context.Context, id string, off, n int) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[id]
	if !ok || !m.now().Before(e.expires) {
		return nil, ErrSpillGone
	}
	if off < 0 || n < 0 || off > len(e.data) {
		return nil, fmt.Errorf("tool: spill read at %d of %d bytes is out of range", off, len(e.data))
	}
	return e.data[off:min(off+n, len(e.data))], nil
}

// Len reports the bytes the store holds, expired entries included until
// they are swept.
func (m *MemorySpill) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}
