package tool

import (
	"context"
	"sync"
)

// ApprovalMemory keeps "allow always" answers, per session. The default is in
// memory ([NewApprovalMemory]); a host that wants them to outlive the process, or
// to share them between replicas, implements ApprovalMemory over its own store.
type ApprovalMemory interface {
	// Allowed reports whether key was remembered for session. An error
	// counts as "not remembered": the approver is asked.
	Allowed(ctx context.Context, session, key string) (bool, error)
	// Remember records key for session.
	Remember(ctx context.Context, session, key string) error
}

// NewApprovalMemory returns an empty in-memory Memory, safe for concurrent use.
func NewApprovalMemory() ApprovalMemory { return &memMemory{m: map[memKey]struct{}{}} }

type memKey struct{ session, key string }

type memMemory struct {
	mu sync.RWMutex
	m  map[memKey]struct{}
}

func (m *memMemory) Allowed(_ context.Context, session, key string) (bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	_, ok := m.m[memKey{session, key}]
	return ok, nil
}

func (m *memMemory) Remember(_ context.Context, session, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[memKey{session, key}] = struct{}{}
	return nil
}

// memoryKey is what "allow always" is remembered under: the tool, or the
// tool and the scope of a scoped requirement. Ask-always requirements are
// never remembered.
func memoryKey(tool string, req Requirement) (key string, ok bool) {
	switch req.Mode {
	case RequireAskAlways:
		return "", false
	case RequireScoped:
		return tool + "\x00scope\x00" + req.Scope, true
	}
	return tool, true
}
