package tool

import (
	"container/list"
	"context"
	"errors"
	"strconv"
	"sync"
	"time"
)

// ApprovalStore keeps what approval must remember from one call to the
// next: "allow always" answers, per session, and which resumable approvals
// ([PendingApproval]) were already used. The default is in memory
// ([NewMemoryApprovalStore]); replicas that share conversations share an
// ApprovalStore on a store they share. Implementations must be safe for
// concurrent use and return when ctx is done; [tooltest.TestApprovalStore]
// checks one against this contract.
//
// Every failure fails closed: an error from Allowed means "not
// remembered" (the approver is asked), from Remember means the answer is
// not kept (asked again next time), from Claim means the resumed approval
// is not used (the call does not run).
type ApprovalStore interface {
	// Allowed reports whether key was remembered for session and has not
	// expired.
	Allowed(ctx context.Context, session, key string) (bool, error)
	// Remember records key for session until expires.
	Remember(ctx context.Context, session, key string, expires time.Time) error
	// Claim records that the one-time approval id was used, until
	// expires, and reports whether this was the first claim: a second
	// claim of the same id, before it expires, reports false.
	Claim(ctx context.Context, id string, expires time.Time) (bool, error)
}

// defaultApprovalStoreEntries bounds a store from [NewMemoryApprovalStore]
// made with a size of zero.
const defaultApprovalStoreEntries = 100_000

// ErrApprovalStoreFull is the error of an in-memory Claim when every slot
// holds an unexpired claim: forgetting one could let its approval be used
// twice, so the new one is refused instead.
var ErrApprovalStoreFull = errors.New("tool: the approval store is full of unexpired claims")

// NewMemoryApprovalStore returns an in-memory store bounded to maxEntries
// remembered answers and as many claims (zero means 100,000).
func NewMemoryApprovalStore(maxEntries int) *MemoryApprovalStore {
	if maxEntries <= 0 {
		maxEntries = defaultApprovalStoreEntries
	}
	return &MemoryApprovalStore{
		answers: expiringSet{max: maxEntries, evictLive: true, m: map[string]*list.Element{}},
		claims:  expiringSet{max: maxEntries, m: map[string]*list.Element{}},
	}
}

// MemoryApprovalStore is an [ApprovalStore] in memory, for one process.
// Expired entries are dropped first; past its bound, the oldest answer is
// forgotten (which only means asking again), while a claim is never
// forgotten before it expires ([ErrApprovalStoreFull]). It is safe for
// concurrent use.
type MemoryApprovalStore struct {
	mu      sync.Mutex
	answers expiringSet
	claims  expiringSet
}

// Allowed implements [ApprovalStore].
func (m *MemoryApprovalStore) Allowed(_ context.Context, session, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.answers.has(answerKey(session, key), time.Now()), nil
}

// Remember implements [ApprovalStore].
func (m *MemoryApprovalStore) Remember(_ context.Context, session, key string, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.answers.add(answerKey(session, key), expires, time.Now())
	return nil
}

// Claim implements [ApprovalStore].
func (m *MemoryApprovalStore) Claim(_ context.Context, id string, expires time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if m.claims.has(id, now) {
		return false, nil
	}
	if !m.claims.add(id, expires, now) {
		return false, ErrApprovalStoreFull
	}
	return true, nil
}

// answerKey joins a session and a key so that no two pairs give the same
// string, whatever bytes they hold.
func answerKey(session, key string) string {
	return strconv.Itoa(len(session)) + ":" + session + key
}

// expiringSet is a bounded set of keys that expire, oldest first.
type expiringSet struct {
	max       int
	evictLive bool // past max, drop the oldest live key; else refuse the new one
	m         map[string]*list.Element
	order     list.List // of *expiring, oldest first
}

type expiring struct {
	key     string
	expires time.Time
}

func (s *expiringSet) has(key string, now time.Time) bool {
	el, ok := s.m[key]
	if !ok {
		return false
	}
	if !now.Before(el.Value.(*expiring).expires) {
		s.remove(el)
		return false
	}
	return true
}

// add records key until expires and reports whether it could.
func (s *expiringSet) add(key string, expires, now time.Time) bool {
	if el, ok := s.m[key]; ok {
		s.remove(el)
	}
	// Most keys expire in the order they came (one lifetime for all), so
	// the expired ones are at the front.
	for f := s.order.Front(); f != nil && !now.Before(f.Value.(*expiring).expires); f = s.order.Front() {
		s.remove(f)
	}
	if len(s.m) >= s.max {
		if !s.evictLive {
			s.sweep(now) // an expired key behind a live one
			if len(s.m) >= s.max {
				return false
			}
		} else {
			s.remove(s.order.Front())
		}
	}
	s.m[key] = s.order.PushBack(&expiring{key: key, expires: expires})
	return true
}

func (s *expiringSet) sweep(now time.Time) {
	for el := s.order.Front(); el != nil; {
		next := el.Next()
		if !now.Before(el.Value.(*expiring).expires) {
			s.remove(el)
		}
		el = next
	}
}

func (s *expiringSet) remove(el *list.Element) {
	delete(s.m, s.order.Remove(el).(*expiring).key)
}

// memoryKey is what "allow always" is remembered under: the tool and the
// safety class of the call, and the scope of a scoped requirement, so that
// allowing a tool's mutating calls never allows its destructive ones.
// Ask-always requirements are never remembered.
func memoryKey(tool string, safety Safety, req Requirement) (key string, ok bool) {
	switch req.Mode {
	case RequireAskAlways:
		return "", false
	case RequireScoped:
		return tool + "\x00" + safety.String() + "\x00scope\x00" + req.Scope, true
	}
	return tool + "\x00" + safety.String(), true
}
