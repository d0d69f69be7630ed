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
	return &MemoryTaskStore{sessions: map[string]map[string]*memTask{}}
}

// MemoryTaskStore is a [TaskStore] in memory. Expired tasks are dropped
// when their session is next written or listed, and when read. It is safe
// for concurrent use.
type MemoryTaskStore struct {
	mu       sync.Mutex
	sessions map[string]map[string]*memTask
}

type memTask struct {
	value   string
	expires time.Time
}

// sweep drops the expired tasks of session and returns what is left.
func (m *MemoryTaskStore) sweep(session string, now time.Time) (map[string]*memTask, int64) {
	tasks := m.sessions[session]
	var bytes int64
	for id, t := range tasks {
		if !now.Before(t.expires) {
			delete(tasks, id)
			continue
		}
		bytes += int64(len(t.value))
	}
	if len(tasks) == 0 {
		delete(m.sessions, session)
		return nil, 0
	}
	return tasks, bytes
}

// Create implements [TaskStore].
func (m *MemoryTaskStore) Create(_ context.Context, session, id, value string, expires time.Time, max TaskLimits) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	tasks, bytes := m.sweep(session, time.Now())
	if _, ok := tasks[id]; ok {
		return fmt.Errorf("tool: task %s exists", id)
	}
	if max.Count > 0 && len(tasks) >= max.Count {
		return fmt.Errorf("%w (%d tasks)", ErrTaskLimit, max.Count)
	}
	if max.Bytes > 0 && bytes+int64(len(value)) > max.Bytes {
		return fmt.Errorf("%w (%d bytes)", ErrTaskLimit, max.Bytes)
	}
	if tasks == nil {
		tasks = map[string]*memTask{}
		m.sessions[session] = tasks
	}
	tasks[id] = &memTask{value: value, expires: expires}
	return nil
}

// Get implements [TaskStore].
func (m *MemoryTaskStore) Get(_ context.Context, session, id string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.sessions[session][id]
	if !ok || !time.Now().Before(t.expires) {
		return "", ErrTaskNotFound
	}
	return t.value, nil
}

// Replace implements [TaskStore].
func (m *MemoryTaskStore) Replace(_ context.Context, session, id, old, value string, expires time.Time, maxBytes int64) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tasks, bytes := m.sweep(session, time.Now())
	t, ok := tasks[id]
	if !ok {
		return false, ErrTaskNotFound
	}
	if t.value != old {
		return false, nil
	}
	if maxBytes > 0 && bytes-int64(len(old))+int64(len(value)) > maxBytes {
		return false, fmt.Errorf("%w (%d bytes)", ErrTaskLimit, maxBytes)
	}
	t.value, t.expires = value, expires
	return true, nil
}

// List implements [TaskStore].
func (m *MemoryTaskStore) List(_ context.Context, session string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tasks, _ := m.sweep(session, time.Now())
	out := make([]string, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, t.value)
	}
	return out, nil
}
