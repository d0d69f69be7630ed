package tool

import (
	"container/heap"
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// defaultRecordStoreBytes bounds a store from [NewMemoryRecordStore] made
// with a size of zero: two thousand results at the default output cap.
const defaultRecordStoreBytes = 64 << 20

// recordEntryCost is what one entry costs besides its strings.
const recordEntryCost = 128

// recordReplaceSlack is how much longer than the claim it replaces a new
// claim may be when the store, or the session, has no room left: the
// pipeline's replacements (renewed, started, given back, marked as run
// without a record) are never more than a hundred bytes longer.
const recordReplaceSlack = 128

// ErrRecordTooLarge is the error of an in-memory Record whose value is
// larger than a session may hold: the record is not kept, and its claim
// stays until it expires.
var ErrRecordTooLarge = errors.New("tool: the record is larger than a session may hold")

// NewMemoryRecordStore returns an in-memory store bounded to maxBytes of
// claims and records (zero means 64 MiB), one session holding at most a
// sixteenth of them.
func NewMemoryRecordStore(maxBytes int) *MemoryRecordStore {
	if maxBytes <= 0 {
		maxBytes = defaultRecordStoreBytes
	}
	return &MemoryRecordStore{max: maxBytes, maxSession: max(maxBytes/16, 1), entries: map[string]*recordEntry{}, sessions: map[string]*recordSession{}}
}

// MemoryRecordStore is a [RecordStore] in memory, for one process.
// Expired entries are dropped first. Past its bound, or its session's, the
// oldest records (of the session) are forgotten, which means that a
// repeat of their call runs again; a claim, whose call is in progress, is
// never forgotten before it expires: when claims alone fill the room, a
// new claim is refused ([ErrRecordStoreFull]) and its call does not run.
// A session's own bound, a sixteenth of the store, keeps one
// conversation's flood of calls from forgetting the records, or refusing
// the calls, of the others. It is safe for concurrent use.
type MemoryRecordStore struct {
	mu              sync.Mutex
	max, maxSession int
	bytes           int
	entries         map[string]*recordEntry
	records         list.List // of *recordEntry, the records, oldest first
	claims          claimHeap // the claims, soonest to expire first
	sessions        map[string]*recordSession
}

type recordSession struct {
	records list.List // of *recordEntry, the session's records, oldest first
	bytes   int       // of its claims and records
	entries int
}

type recordEntry struct {
	key, session, value string
	expires             time.Time
	size                int
	record              bool          // a record, which may be forgotten; else a claim
	el, inSession       *list.Element // a record's places in the lists
	index               int           // a claim's place in the heap
}

// Claim implements [RecordStore].
func (m *MemoryRecordStore) Claim(_ context.Context, session, id, value string, expires time.Time) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	key := answerKey(session, id)
	if e := m.get(key, now); e != nil {
		return e.value, false, nil
	}
	if !now.Before(expires) {
		return "", true, nil // kept until a time already past: nothing to keep
	}
	e := &recordEntry{key: key, session: session, value: value, expires: expires, size: recordEntryCost + len(key) + len(value)}
	if err := m.room(session, e.size); err != nil {
		return "", false, err
	}
	s := m.session(session)
	s.bytes += e.size
	s.entries++
	m.bytes += e.size
	m.entries[key] = e
	heap.Push(&m.claims, e)
	return "", true, nil
}

// Replace implements [RecordStore].
func (m *MemoryRecordStore) Replace(_ context.Context, session, id, old, value string, expires time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	e := m.get(answerKey(session, id), now)
	if e == nil || e.record || e.value != old {
		return false, nil
	}
	if !now.Before(expires) {
		m.remove(e)
		return true, nil
	}
	grow := len(value) - len(e.value)
	if err := m.room(session, grow); err != nil && grow > recordReplaceSlack {
		return false, err
	}
	m.resize(e, grow)
	e.value, e.expires = value, expires
	heap.Fix(&m.claims, e.index)
	return true, nil
}

// Record implements [RecordStore].
func (m *MemoryRecordStore) Record(_ context.Context, session, id, old, value string, expires time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	e := m.get(answerKey(session, id), now)
	if e == nil || e.record || e.value != old {
		return false, nil
	}
	if !now.Before(expires) {
		m.remove(e)
		return true, nil
	}
	if recordEntryCost+len(e.key)+len(value) > m.maxSession {
		return false, ErrRecordTooLarge // before anything changes: the claim stays
	}
	grow := len(value) - len(e.value)
	if err := m.room(session, grow); err != nil {
		return false, err
	}
	m.resize(e, grow)
	heap.Remove(&m.claims, e.index)
	e.value, e.expires, e.record = value, expires, true
	e.el, e.inSession = m.records.PushBack(e), m.session(session).records.PushBack(e)
	return true, nil
}

// get returns the unexpired entry under key, or nil, having dropped the
// expired entries it came across.
func (m *MemoryRecordStore) get(key string, now time.Time) *recordEntry {
	for len(m.claims) > 0 && !now.Before(m.claims[0].expires) {
		m.remove(m.claims[0])
	}
	for f := m.records.Front(); f != nil && !now.Before(f.Value.(*recordEntry).expires); f = m.records.Front() {
		m.remove(f.Value.(*recordEntry))
	}
	e := m.entries[key]
	if e != nil && !now.Before(e.expires) {
		m.remove(e)
		return nil
	}
	return e
}

// room makes room for n more bytes of session: it forgets the session's
// oldest records while the session is over its bound, then the store's
// oldest while the store is. It reports an error wrapping
// [ErrRecordStoreFull] if claims fill what is left.
func (m *MemoryRecordStore) room(session string, n int) error {
	if n <= 0 {
		return nil
	}
	used := 0
	if s := m.sessions[session]; s != nil {
		for s.records.Len() > 0 && s.bytes+n > m.maxSession {
			m.remove(s.records.Front().Value.(*recordEntry))
		}
		used = s.bytes
	}
	if used+n > m.maxSession {
		return fmt.Errorf("%w: the session's %d bytes of calls in progress leave no room for %d more (a session may hold %d)", ErrRecordStoreFull, used, n, m.maxSession)
	}
	for m.records.Len() > 0 && m.bytes+n > m.max {
		m.remove(m.records.Front().Value.(*recordEntry))
	}
	if m.bytes+n > m.max {
		return fmt.Errorf("%w: %d bytes of calls in progress leave no room for %d more (the store holds %d)", ErrRecordStoreFull, m.bytes, n, m.max)
	}
	return nil
}

func (m *MemoryRecordStore) session(name string) *recordSession {
	s := m.sessions[name]
	if s == nil {
		s = &recordSession{}
		m.sessions[name] = s
	}
	return s
}

func (m *MemoryRecordStore) resize(e *recordEntry, grow int) {
	e.size += grow
	m.sessions[e.session].bytes += grow
	m.bytes += grow
}

func (m *MemoryRecordStore) remove(e *recordEntry) {
	s := m.sessions[e.session]
	if e.record {
		m.records.Remove(e.el)
		s.records.Remove(e.inSession)
	} else {
		heap.Remove(&m.claims, e.index)
	}
	s.bytes -= e.size
	if s.entries--; s.entries == 0 {
		delete(m.sessions, e.session)
	}
	m.bytes -= e.size
	delete(m.entries, e.key)
}

// claimHeap is the claims of a store, soonest to expire first
// (container/heap).
type claimHeap []*recordEntry

func (h claimHeap) Len() int           { return len(h) }
func (h claimHeap) Less(i, j int) bool { return h[i].expires.Before(h[j].expires) }
func (h claimHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *claimHeap) Push(x any) {
	e := x.(*recordEntry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *claimHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

var _ RecordStore = (*MemoryRecordStore)(nil)
