package tool

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// NewMemoryTaskStore returns a [TaskStore] that keeps tasks in this
// process: for a single replica, and for tests.
func NewMemoryTaskStore() *MemoryTaskStore {
	return &MemoryTaskStore{sessions: map[string]*memSession{}}
}

// MemoryTaskStore is a [TaskStore] in memory. Expired tasks are dropped
// when their session is next written or listed, and are not read. It is
// safe for concurrent use.
type MemoryTaskStore struct {
	mu       sync.Mutex
	sessions map[string]*memSession
}

type memSession struct {
	tasks map[string]*memTask
	bytes int64
	next  time.Time // the earliest expiry: no task expired before it
}

type memTask struct {
	value   string
	expires time.Time
}

// session returns session's tasks with the expired ones dropped; nil if
// it has none.
func (m *MemoryTaskStore) session(session string, now time.Time) *memSession {
	ms := m.sessions[session]
	if ms == nil || now.Before(ms.next) {
		return ms
	}
	ms.next = time.Time{}
	for id, t := range ms.tasks {
		if !now.Before(t.expires) {
			delete(ms.tasks, id)
			ms.bytes -= int64(len(t.value))
			continue
		}
		if ms.next.IsZero() || t.expires.Before(ms.next) {
			ms.next = t.expires
		}
	}
	if len(ms.tasks) == 0 {
		delete(m.sessions, session)
		return nil
	}
	return ms
}

// Create implements [TaskStore].
func (m *MemoryTaskStore) Create(_ context.Context, session, id, value string, expires time.Time, max TaskLimits) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms := m.session(session, time.Now())
	if ms == nil {
		ms = &memSession{tasks: map[string]*memTask{}, next: expires}
		m.sessions[session] = ms
	}
	if _, ok := ms.tasks[id]; ok {
		return fmt.Errorf("tool: task %s exists", id)
	}
	if max.Count > 0 && len(ms.tasks) >= max.Count {
		return fmt.Errorf("%w (%d tasks)", ErrTaskLimit, max.Count)
	}
	if max.Bytes > 0 && ms.bytes+int64(len(value)) > max.Bytes {
		return fmt.Errorf("%w (%d bytes)", ErrTaskLimit, max.Bytes)
	}
	ms.tasks[id] = &memTask{value: value, expires: expires}
	ms.bytes += int64(len(value))
	if expires.Before(ms.next) {
		ms.next = expires
	}
	return nil
}

// Get implements [TaskStore].
func (m *MemoryTaskStore) Get(_ context.Context, session, id string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms := m.sessions[session]
	if ms == nil {
		return "", ErrTaskNotFound
	}
	t, ok := ms.tasks[id]
	if !ok || !time.Now().Before(t.expires) {
		return "", ErrTaskNotFound
	}
	return t.value, nil
}

// Replace implements [TaskStore].
func (m *MemoryTaskStore) Replace(_ context.Context, session, id, old, value string, expires time.Time, maxBytes int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms := m.session(session, time.Now())
	if ms == nil || ms.tasks[id] == nil {
		return false, ErrTaskNotFound
	}
	t := ms.tasks[id]
	if t.value != old {
		return false, nil
	}
	grown := int64(len(value)) - int64(len(old))
	if maxBytes > 0 && ms.bytes+grown > maxBytes {
		return false, fmt.Errorf("%w (%d bytes)", ErrTaskLimit, maxBytes)
	}
	t.value, t.expires = value, expires
	ms.bytes += grown
	if expires.Before(ms.next) {
		ms.next = expires
	}
	return true, nil
}

// List implements [TaskStore].
func (m *MemoryTaskStore) List(_ context.Context, session string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms := m.session(session, time.Now())
	if ms == nil {
		return nil, nil
	}
	out := make([]string, 0, len(ms.tasks))
	for _, t := range ms.tasks {
		out = append(out, t.value)
	}
	return out, nil
}
