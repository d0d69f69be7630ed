package tool

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"time"
)

// defaultRecordStoreBytes bounds a store from [NewMemoryRecordStore] made
// with a size of zero: two thousand results at the default output cap.
const defaultRecordStoreBytes = 64 << 20

// recordEntryCost is what one entry costs besides its strings.
const recordEntryCost = 128

// ErrRecordTooLarge is the error of an in-memory Replace whose value is
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
// Expired entries are dropped first; past its bound, or its session's, the
// oldest entries (of the session) are forgotten, which means that a
// repeat of their call runs again. A session's own bound, a sixteenth of
// the store, keeps one conversation's flood of calls from forgetting the
// records of the others. It is safe for concurrent use.
type MemoryRecordStore struct {
	mu              sync.Mutex
	max, maxSession int
	bytes           int
	entries         map[string]*recordEntry
	order           list.List // of *recordEntry, oldest first
	sessions        map[string]*recordSession
}

type recordSession struct {
	order list.List // of *recordEntry, oldest first
	bytes int
}

type recordEntry struct {
	key, session, value string
	expires             time.Time
	size                int
	el, inSession       *list.Element
}

// Claim implements [RecordStore].
func (m *MemoryRecordStore) Claim(_ context.Context, session, id, value string, expires time.Time) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	key := answerKey(session, id)
	if e := m.entries[key]; e != nil {
		if now.Before(e.expires) {
			return e.value, false, nil
		}
		m.remove(e)
	}
	if err := m.add(key, session, value, expires, now); err != nil {
		return "", false, err
	}
	return "", true, nil
}

// Replace implements [RecordStore].
func (m *MemoryRecordStore) Replace(_ context.Context, session, id, old, value string, expires time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	key := answerKey(session, id)
	e := m.entries[key]
	if e == nil || !now.Before(e.expires) || e.value != old {
		return false, nil
	}
	if recordEntryCost+len(key)+len(value) > m.maxSession {
		return false, ErrRecordTooLarge // before anything changes: the claim stays
	}
	m.remove(e)
	if err := m.add(key, session, value, expires, now); err != nil {
		return false, err
	}
	return true, nil
}

// add keeps value under key, making room: the expired entries, then the
// session's oldest, then the store's oldest. An expiry already past keeps
// nothing.
func (m *MemoryRecordStore) add(key, session, value string, expires, now time.Time) error {
	for f := m.order.Front(); f != nil && !now.Before(f.Value.(*recordEntry).expires); f = m.order.Front() {
		m.remove(f.Value.(*recordEntry))
	}
	if !now.Before(expires) {
		return nil
	}
	e := &recordEntry{key: key, session: session, value: value, expires: expires, size: recordEntryCost + len(key) + len(value)}
	if e.size > m.maxSession {
		return ErrRecordTooLarge
	}
	s := m.sessions[session]
	for s != nil && s.bytes+e.size > m.maxSession {
		m.remove(s.order.Front().Value.(*recordEntry))
		s = m.sessions[session]
	}
	for m.bytes+e.size > m.max {
		m.remove(m.order.Front().Value.(*recordEntry))
	}
	if s = m.sessions[session]; s == nil {
		s = &recordSession{}
		m.sessions[session] = s
	}
	e.el, e.inSession = m.order.PushBack(e), s.order.PushBack(e)
	s.bytes += e.size
	m.bytes += e.size
	m.entries[key] = e
	return nil
}

func (m *MemoryRecordStore) remove(e *recordEntry) {
	m.order.Remove(e.el)
	s := m.sessions[e.session]
	s.order.Remove(e.inSession)
	s.bytes -= e.size
	if s.order.Len() == 0 {
		delete(m.sessions, e.session)
	}
	m.bytes -= e.size
	delete(m.entries, e.key)
}

var _ RecordStore = (*MemoryRecordStore)(nil)
