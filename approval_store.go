package tool

import (
	"context"
	"crypto/sha256"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/toolbelt-go/tool/internal/expiring"
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
	// Claim records that the one-time approval id of session was used,
	// until expires, and reports whether this was the first claim: a
	// second claim of the same session and id, before it expires, reports
	// false. A store bounds the claims one session may hold (each
	// unexpired claim counts), so that one session's flood of resumed
	// approvals refuses only that session's claims, never another's.
	Claim(ctx context.Context, session, id string, expires time.Time) (bool, error)
}

// ApprovalReleaser is implemented by an [ApprovalStore] that can give a
// claim back. The pipeline gives back the claim of a resumed approval that
// let its call through when the call did not start (its tool busy at its
// limit, a later middleware refusing it, its ID running elsewhere), so
// that the same answer resumes the call when it is made again, as the
// model is told to. Without it the claim stays: the answer is used, and
// the person is asked again. A claim given back is claimed again as a
// first claim. Both stores of this module and toolredis's implement it.
type ApprovalReleaser interface {
	// Release drops the claim of session and id, if it is kept.
	Release(ctx context.Context, session, id string) error
}

// defaultApprovalStoreEntries bounds a store from [NewMemoryApprovalStore]
// made with a size of zero.
const defaultApprovalStoreEntries = 100_000

// ErrApprovalStoreFull is the error of an in-memory Claim when every slot
// of the store, or of the claim's session, holds an unexpired claim:
// forgetting one could let its approval be used twice, so the new one is
// refused instead.
var ErrApprovalStoreFull = errors.New("tool: the approval store is full of unexpired claims")

// NewMemoryApprovalStore returns an in-memory store bounded to maxEntries
// remembered answers and as many claims (zero means 100,000), one session
// holding at most a hundredth of each (at least one). Each entry keeps a
// digest of its session and key, never the strings themselves, so the
// bound in entries bounds the store's bytes whatever their lengths.
func NewMemoryApprovalStore(maxEntries int) *MemoryApprovalStore {
	if maxEntries <= 0 {
		maxEntries = defaultApprovalStoreEntries
	}
	perSession := max(1, maxEntries/100)
	return &MemoryApprovalStore{answers: expiring.New(maxEntries, perSession, true), claims: expiring.New(maxEntries, perSession, false)}
}

// MemoryApprovalStore is an [ApprovalStore] in memory, for one process.
// Expired entries are dropped first. Past its bound, or its session's, the
// oldest answer (of the session) is forgotten, which only means asking
// again; a claim is never forgotten before it expires: a new one is
// refused instead ([ErrApprovalStoreFull]). A session's own bound, a
// hundredth of the store, is what keeps a client that floods its own
// deferred approvals from refusing the resumed approvals of every other
// session. It is safe for concurrent use.
type MemoryApprovalStore struct {
	mu      sync.Mutex
	answers *expiring.Set // past the bound, the oldest answer is forgotten
	claims  *expiring.Set // past the bound, a new claim is refused
}

// Allowed implements [ApprovalStore].
func (m *MemoryApprovalStore) Allowed(_ context.Context, session, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, _ := digestKeys(session, key)
	return m.answers.Has(k, time.Now()), nil
}

// Remember implements [ApprovalStore].
func (m *MemoryApprovalStore) Remember(_ context.Context, session, key string, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, group := digestKeys(session, key)
	m.answers.Add(k, group, expires, time.Now())
	return nil
}

// Claim implements [ApprovalStore].
func (m *MemoryApprovalStore) Claim(_ context.Context, session, id string, expires time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	key, group := digestKeys(session, id)
	if m.claims.Has(key, now) {
		return false, nil
	}
	if !m.claims.Add(key, group, expires, now) {
		return false, ErrApprovalStoreFull
	}
	return true, nil
}

// Release implements [ApprovalReleaser].
func (m *MemoryApprovalStore) Release(_ context.Context, session, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key, _ := digestKeys(session, id)
	m.claims.Delete(key)
	return nil
}

var _ ApprovalReleaser = (*MemoryApprovalStore)(nil)

// digestKeys returns what the in-memory store keeps for session and key:
// a digest of the pair, and one of the session to group it by. Both have a
// fixed size, so that the store's bound in entries is a bound in bytes
// whatever the lengths of the session and the key, which come from the
// wire and the model.
func digestKeys(session, key string) (k, group string) {
	s := sha256.Sum256([]byte(session))
	h := sha256.New()
	h.Write(s[:])
	h.Write([]byte(key))
	return string(h.Sum(nil)), string(s[:])
}

// answerKey joins a session and a key so that no two pairs give the same
// string, whatever bytes they hold.
func answerKey(session, key string) string {
	return strconv.Itoa(len(session)) + ":" + session + key
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
