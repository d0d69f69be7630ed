package tool

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolbelt-go/tool/internal/text"
)

// PendingApprovalStore keeps the deferred approvals ([PendingApproval])
// that wait for a person's answer, and their answers, where every replica
// can reach them: the replica whose call waits offers the approval, a page
// on any replica lists a session's approvals and records the person's
// answer, and the waiting replica reads the answer and resumes the call
// with it ([Request.Approval]). Package approvalweb is the page.
//
// An approval is known by its State, which is unique and unguessable.
// The default store is in memory, for one process
// ([NewMemoryPendingApprovalStore]); replicas share one on a store they
// share (toolredis.PendingApprovalStore). Implementations must be safe for
// concurrent use and return when ctx is done;
// [tooltest.TestPendingApprovalStore] checks one against this contract.
//
// The store is not what makes an answer safe to use: the resumed call
// checks the signed state and claims it once in the [ApprovalStore]. It
// decides which of several answers (a person's on one replica, another's
// on another, the waiting call's own "no answer in time") is the one.
type PendingApprovalStore interface {
	// Offer keeps p until keep (at or after p.Expires, so that a late or
	// repeated answer can be told what became of it), listed under its
	// session, p.Session: the session as given, byte for byte, never
	// p.Request.Session, which is made visible for showing and which two
	// sessions can share. Offering a state that is kept changes
	// nothing: an answered approval stays answered. An error wrapping
	// [ErrPendingFull] refuses an approval past the store's bounds:
	// at most [MaxPendingPerSession] unanswered approvals per session.
	Offer(ctx context.Context, p *PendingApproval, keep time.Time) error
	// List returns the approvals of session (compared with
	// PendingApproval.Session, byte for byte) that are kept and not
	// answered, in no particular order. It may include approvals past
	// their Expires that are still kept.
	List(ctx context.Context, session string) ([]*PendingApproval, error)
	// Get returns the approval kept under state and, once it is answered,
	// its answer (nil before). It returns an error wrapping
	// [ErrPendingGone] when no approval is kept under state.
	Get(ctx context.Context, state string) (*PendingApproval, *Decision, error)
	// Sessions lists the sessions that have unanswered approvals, a page
	// at a time, so that a page of approvals can find those a person may
	// answer without the host listing that person's sessions
	// (approvalweb's Options.MayAnswer). Start with cursor ""; pass the
	// next cursor it returns to read on; next is "" after the last page.
	// A page holds about limit sessions (a store may return a few more or
	// fewer; limit ≤ 0 means a store's default). Over a whole read, every
	// session that has an unanswered approval throughout it is listed at
	// least once; a session may be listed twice, or when its approvals
	// were answered, until they are no longer kept. Each session is as
	// given (PendingApproval.Session).
	Sessions(ctx context.Context, cursor string, limit int) (sessions []string, next string, err error)
	// Answer records d as the answer to the approval kept under state, and
	// reports whether it was the first answer: of any number of answers,
	// from any replica, exactly one is recorded, and Get returns that one.
	// It returns an error wrapping [ErrPendingGone] when no approval is
	// kept under state.
	Answer(ctx context.Context, state string, d Decision) (bool, error)
}

// MaxPendingPerSession bounds the unanswered approvals a
// [PendingApprovalStore] keeps for one session, so that one
// conversation's flood costs that conversation only.
const MaxPendingPerSession = 100

var (
	// ErrPendingGone: no approval is kept under the state: it was never
	// offered, or it is past the time it was kept until.
	ErrPendingGone = errors.New("tool: the pending approval is not kept")
	// ErrPendingFull: the store refused an approval past its bounds.
	ErrPendingFull = errors.New("tool: too many approvals are waiting")
)

// defaultPendingBytes bounds a [MemoryPendingApprovalStore] made with a
// size of zero.
const defaultPendingBytes = 64 << 20

// minPendingPerSession is the least a session may hold of a store's
// bytes, its sixteenth in a store of 32 MiB: an approval of the largest
// arguments, with its preview.
const minPendingPerSession = 2 << 20

// pendingEntryCost is what one entry costs besides its strings: the map
// slots, the list element, the entry and the slices' headers, rounded up.
const pendingEntryCost = 512

// NewMemoryPendingApprovalStore returns an in-memory store that keeps at
// most maxBytes of approvals (their strings and each entry's bookkeeping);
// zero means 64 MiB. One session's unanswered approvals hold at most a
// sixteenth of it (at least 2 MiB), so that one conversation's large approvals cannot
// leave no room for the others'.
func NewMemoryPendingApprovalStore(maxBytes int) *MemoryPendingApprovalStore {
	if maxBytes <= 0 {
		maxBytes = defaultPendingBytes
	}
	return &MemoryPendingApprovalStore{max: maxBytes, entries: map[string]*list.Element{}, sessions: map[string]map[string]*pendingEntry{}}
}

// MemoryPendingApprovalStore is a [PendingApprovalStore] in memory, for one
// process. It is bounded in bytes: when an approval does not fit, the
// entries past their keep time go first; an approval that still does not
// fit is refused ([ErrPendingFull]) rather than one that waits forgotten.
// It keeps copies: what a caller does with what it passed or got back
// changes nothing kept. It is safe for concurrent use.
type MemoryPendingApprovalStore struct {
	mu       sync.Mutex
	max      int
	used     int
	entries  map[string]*list.Element            // by state, of *pendingEntry
	sessions map[string]map[string]*pendingEntry // by session (raw), then state
	order    list.List                           // as offered, oldest first
}

type pendingEntry struct {
	p      PendingApproval
	answer *Decision
	keep   time.Time
	cost   int
}

// Offer implements [PendingApprovalStore].
func (m *MemoryPendingApprovalStore) Offer(_ context.Context, p *PendingApproval, keep time.Time) error {
	e := &pendingEntry{p: copyPending(p), keep: keep, cost: pendingCost(p)}
	if e.cost > m.max {
		return fmt.Errorf("%w: an approval of %d bytes does not fit in a store of %d bytes", ErrPendingFull, e.cost, m.max)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if el, ok := m.entries[p.State]; ok {
		if now.Before(el.Value.(*pendingEntry).keep) {
			return nil
		}
		m.remove(el)
	}
	// Entries are kept in the order they came, and most are kept for one
	// lifetime, so those past it are at the front.
	for f := m.order.Front(); f != nil && !now.Before(f.Value.(*pendingEntry).keep); f = m.order.Front() {
		m.remove(f)
	}
	session := p.Session
	waiting, waitingBytes := 0, 0
	for _, o := range m.sessions[session] {
		if o.answer == nil && now.Before(o.keep) {
			waiting++
			waitingBytes += o.cost
		}
	}
	if waiting >= MaxPendingPerSession {
		return fmt.Errorf("%w: session %q already has %d unanswered approvals", ErrPendingFull, text.Cut(session, 64), waiting)
	}
	if perSession := max(m.max/16, min(m.max, minPendingPerSession)); waitingBytes+e.cost > perSession {
		return fmt.Errorf("%w: session %q's unanswered approvals would hold %d bytes, over its %d", ErrPendingFull, text.Cut(session, 64), waitingBytes+e.cost, perSession)
	}
	if m.used+e.cost > m.max {
		m.sweep(now) // an expired entry behind a live one
		if m.used+e.cost > m.max {
			return fmt.Errorf("%w: the store holds %d of its %d bytes", ErrPendingFull, m.used, m.max)
		}
	}
	m.entries[p.State] = m.order.PushBack(e)
	if m.sessions[session] == nil {
		m.sessions[session] = map[string]*pendingEntry{}
	}
	m.sessions[session][p.State] = e
	m.used += e.cost
	return nil
}

func (m *MemoryPendingApprovalStore) sweep(now time.Time) {
	for el := m.order.Front(); el != nil; {
		next := el.Next()
		if !now.Before(el.Value.(*pendingEntry).keep) {
			m.remove(el)
		}
		el = next
	}
}

func (m *MemoryPendingApprovalStore) remove(el *list.Element) {
	e := m.order.Remove(el).(*pendingEntry)
	delete(m.entries, e.p.State)
	s := e.p.Session
	delete(m.sessions[s], e.p.State)
	if len(m.sessions[s]) == 0 {
		delete(m.sessions, s)
	}
	m.used -= e.cost
}

// lookup returns the live entry of state, dropping it if past its keep.
func (m *MemoryPendingApprovalStore) lookup(state string, now time.Time) (*pendingEntry, bool) {
	el, ok := m.entries[state]
	if !ok {
		return nil, false
	}
	e := el.Value.(*pendingEntry)
	if !now.Before(e.keep) {
		m.remove(el)
		return nil, false
	}
	return e, true
}

// List implements [PendingApprovalStore].
func (m *MemoryPendingApprovalStore) List(_ context.Context, session string) ([]*PendingApproval, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	var out []*PendingApproval
	for _, e := range m.sessions[session] {
		if e.answer == nil && now.Before(e.keep) {
			p := copyPending(&e.p)
			out = append(out, &p)
		}
	}
	return out, nil
}

// defaultSessionsPage is the page of Sessions when its limit is 0.
const defaultSessionsPage = 1000

// Sessions implements [PendingApprovalStore]. The sessions come in byte
// order; the cursor is "+" and the last session of the page before (so
// that the session "" is a cursor too).
func (m *MemoryPendingApprovalStore) Sessions(_ context.Context, cursor string, limit int) ([]string, string, error) {
	if limit <= 0 {
		limit = defaultSessionsPage
	}
	after, started := strings.CutPrefix(cursor, "+")
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	var out []string
	for s, entries := range m.sessions {
		if started && s <= after {
			continue
		}
		for _, e := range entries {
			if e.answer == nil && now.Before(e.keep) {
				out = append(out, s)
				break
			}
		}
	}
	slices.Sort(out)
	if len(out) <= limit {
		return out, "", nil
	}
	out = out[:limit]
	return out, "+" + out[limit-1], nil
}

// Get implements [PendingApprovalStore].
func (m *MemoryPendingApprovalStore) Get(_ context.Context, state string) (*PendingApproval, *Decision, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.lookup(state, time.Now())
	if !ok {
		return nil, nil, ErrPendingGone
	}
	p := copyPending(&e.p)
	var d *Decision
	if e.answer != nil {
		c := copyDecision(*e.answer)
		d = &c
	}
	return &p, d, nil
}

// Answer implements [PendingApprovalStore].
func (m *MemoryPendingApprovalStore) Answer(_ context.Context, state string, d Decision) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.lookup(state, time.Now())
	if !ok {
		return false, ErrPendingGone
	}
	if e.answer != nil {
		return false, nil
	}
	c := copyDecision(d)
	e.answer = &c
	m.used += len(c.Reason) + len(c.Args)
	e.cost += len(c.Reason) + len(c.Args)
	return true, nil
}

// Len reports the bytes the store counts against its bound, entries past
// their keep time included until they are swept.
func (m *MemoryPendingApprovalStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// pendingCost is what keeping p costs: its strings and bytes, and the
// entry's bookkeeping.
func pendingCost(p *PendingApproval) int {
	r := &p.Request
	n := pendingEntryCost + len(p.State) + len(r.Tool) + len(r.DisplayName) + len(r.CallID) + len(r.Session) + len(p.Session) +
		len(r.Args) + len(r.ArgsText) + len(r.Requirement.Reason) + len(r.Requirement.Scope) +
		len(r.Preview.Title) + len(r.Preview.Summary)
	for _, e := range r.Preview.Edits {
		n += 48 + len(e.Path) + len(e.Old) + len(e.New)
	}
	for _, l := range r.Preview.Locations {
		n += 16 + len(l)
	}
	return n
}

// copyPending returns a copy of p that shares no memory a caller could
// change with p.
func copyPending(p *PendingApproval) PendingApproval {
	c := *p
	c.Request.Args = slices.Clone(p.Request.Args)
	c.Request.Preview.Edits = slices.Clone(p.Request.Preview.Edits)
	c.Request.Preview.Locations = slices.Clone(p.Request.Preview.Locations)
	return c
}

func copyDecision(d Decision) Decision {
	d.Args = json.RawMessage(slices.Clone([]byte(d.Args)))
	return d
}

var _ PendingApprovalStore = (*MemoryPendingApprovalStore)(nil)
