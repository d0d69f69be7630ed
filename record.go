package tool

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// RecordStore keeps what a registry needs to answer a repeated call from
// its record ([RegistryOptions.Records]): under a session and a call ID,
// first a claim while the call runs, then the record of what the model was
// told. The values are the pipeline's, opaque to the store, which only
// keeps them, compares them whole and lets them expire. The default is in
// memory ([NewMemoryRecordStore]); replicas that share conversations
// share a RecordStore on a store they share. Implementations must be safe
// for concurrent use and return when ctx is done;
// [tooltest.TestRecordStore] checks one against this contract.
//
// A claim belongs to the call that made it: its value holds a token of
// that call's own, so a Claim retried after its reply was lost finds its
// own claim and goes on. A claim is first made for a short lease, renewed
// while the call waits (for approval, for a limit's place), and made to
// last the tool's time limit once the tool starts; so a claim whose call
// never started, or that the store could not confirm, lapses within
// seconds.
//
// Every failure fails closed: an error from Claim means the call does not
// run (whether it ran before cannot be told), and a claim whose call ran
// but whose record could not be kept refuses its twins, saying so, until
// it expires, rather than letting one run a second time.
//
// A store must never forget a claim before it expires: that would let a
// twin run the call a second time. A full store refuses a new claim
// instead (an error wrapping [ErrRecordStoreFull]). It may forget a record
// to make room (a repeat of that call then runs again). A store that may
// have lost what it kept (a restart without persistence, an eviction)
// refuses claims, with an error wrapping [ErrStoreLostData], for as long
// as a claim or record it lost could still matter.
type RecordStore interface {
	// Claim keeps value, a claim, under session and id until expires and
	// reports true, if nothing unexpired is kept there; otherwise it
	// changes nothing, and returns what is kept and false. Of concurrent
	// claims of one session and id, exactly one wins.
	Claim(ctx context.Context, session, id, value string, expires time.Time) (kept string, claimed bool, err error)
	// Replace keeps value, still a claim, under session and id until
	// expires, in place of old, and reports true, if what is kept there is
	// old; otherwise it changes nothing and reports false. An expiry
	// already past removes the entry. The pipeline renews a claim with it
	// (the same value, a later expiry), marks it started, gives it back,
	// and marks that its call ran but its record could not be kept; the
	// new value is never more than a hundred bytes longer than the old, so
	// a store at its memory bound should let it through.
	Replace(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error)
	// Record keeps value, the record of a call that ended, under session
	// and id until expires, in place of the claim old, and reports true,
	// if what is kept there is old; otherwise it changes nothing and
	// reports false. Unlike a claim, a record may be forgotten before it
	// expires to make room.
	Record(ctx context.Context, session, id, old, value string, expires time.Time) (bool, error)
}

// defaultRecordFor is how long a record is kept when RegistryOptions
// leave RecordFor unset: long enough for a provider's retry, a resumed
// turn or a restarted agent loop, short enough to keep a store small.
const defaultRecordFor = time.Hour

// recordLease is how long a claim lasts before its tool starts, renewed
// every quarter of it while the call waits: a claim whose call never
// started (its process died, or the store could not confirm it and wrote
// it later) lapses this long after it was last renewed. Long enough for a
// store stopped for seconds, short enough that a retry soon runs.
const recordLease = 10 * time.Second

// callRecord is what the record stage keeps under a session and a call
// ID: while the call runs, its claim; once it ran, what the model was told
// and the host view's status, or that it ran and this could not be kept.
type callRecord struct {
	Claim     string          `json:"claim,omitempty"` // the token of the call holding the ID, while it runs
	Until     int64           `json:"until,omitempty"` // once the tool started: when it can no longer be running (Unix ms)
	Lost      bool            `json:"lost,omitempty"`  // the tool ran and its record could not be kept
	Tool      string          `json:"tool"`
	Args      string          `json:"args"` // the SHA-256 of the canonical arguments, in hex
	Status    uint8           `json:"status,omitempty"`
	Cause     string          `json:"cause,omitempty"` // the host-side cause's text, bounded
	Truncated int             `json:"truncated,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"` // the model view, as Result's JSON
}

// maxRecordCause bounds the host-side cause kept in a record.
const maxRecordCause = 1 << 10

// recordState is the record stage's part of a call: its hold on the
// call's ID, which the run stage makes long just before the tool starts.
type recordState struct {
	hold *recordHold
}

// recordStage answers a repeated call from its record, when the registry
// keeps records, after preflight (a record is bound to the tool and the
// canonical arguments) and before the host's middlewares, so that a call
// that already ran is neither asked about nor run again. The first call
// with a session's ID claims it, for a short lease renewed while it waits;
// the run stage turns the claim into one that lasts the tool's time limit
// just before the tool starts, and only if it still holds the ID. A twin
// that comes while the first runs waits for its record within its own
// deadline and the first call's time limit. A call whose tool started is
// recorded as the model saw it (after the output stage's cap); one that
// did not (invalid, denied, limited, awaiting approval, cancelled before
// it started) gives its claim back, and a later call with the ID runs.
// Dry runs, and calls with no session or no ID, pass straight through.
func recordStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) *Result {
		rt := call.runtime()
		if rt.records == nil || call.DryRun || call.Session == "" || call.ID == "" {
			return next(ctx, call)
		}
		return answerOrRecord(ctx, rt, call, next)
	}
}

func answerOrRecord[C any](ctx context.Context, rt *runtimeConfig, call *Call[C], next Handler[C]) *Result {
	sum := sha256.Sum256(call.Args())
	var token [16]byte
	if _, err := rand.Read(token[:]); err != nil {
		return recordFailedResult(call.Name, err)
	}
	h := &recordHold{rt: rt, store: rt.records, session: call.Session, id: call.ID, limit: rt.limit(&call.st.entry.def),
		mine: callRecord{Claim: hex.EncodeToString(token[:]), Tool: call.Name, Args: hex.EncodeToString(sum[:])}}
	b, _ := json.Marshal(h.mine)
	h.claim = string(b)
	if res := claimRecord(ctx, rt, call, h); res != nil {
		return res
	}
	h.renewLater()
	call.st.record.hold = h
	ran := false
	defer func() {
		h.stop()
		if !ran { // nothing ran, or a stage below panicked: the ID is free again
			h.giveBack(ctx)
		}
	}()
	res := next(ctx, call)
	if res == nil || !call.st.started {
		return res
	}
	ran = true
	h.keep(ctx, res)
	return res
}

// claimRecord claims the call's ID, waiting while a twin runs. It returns
// nil when the call holds the claim and may go on, or the call's result:
// the record's answer, a conflict, a failure.
func claimRecord[C any](ctx context.Context, rt *runtimeConfig, call *Call[C], h *recordHold) *Result {
	store, mine := rt.records, &h.mine
	// A twin waits for a call that has not started at most as long as the
	// first call may run; for one that started, until it can no longer be
	// running.
	var waitUntil time.Time
	if h.limit > 0 {
		waitUntil = time.Now().Add(h.limit + rt.grace)
	}
	pause := 5 * time.Millisecond
	for {
		type answer struct {
			kept    string
			claimed bool
			err     error
		}
		ans, outcome := callHook(ctx, rt, func(ctx context.Context) answer {
			kept, ok, err := store.Claim(ctx, call.Session, call.ID, h.claim, time.Now().Add(h.rt.recordLease))
			return answer{kept, ok, err}
		})
		switch {
		case ctx.Err() != nil:
			return canceledResult(ctx, call.Name, notStarted)
		case outcome == hookPanicked:
			return recordFailedResult(call.Name, errRecordStorePanicked)
		case outcome != hookOK:
			return recordFailedResult(call.Name, ErrHookTimeout)
		case ans.err != nil:
			return recordFailedResult(call.Name, ans.err)
		case ans.claimed:
			return nil
		}
		var kept callRecord
		if err := json.Unmarshal([]byte(ans.kept), &kept); err != nil {
			return recordFailedResult(call.Name, errRecordUnreadable)
		}
		now := time.Now()
		wait := waitUntil
		if kept.Until != 0 {
			wait = time.UnixMilli(kept.Until)
		}
		switch {
		case kept.Claim != "" && kept.Claim == mine.Claim:
			// Its own claim: the store ran a Claim whose reply was lost
			// and the client sent it again.
			return nil
		case kept.Tool != mine.Tool || kept.Args != mine.Args:
			return conflictResult(call.Name, ErrCallIDReused)
		case kept.Lost:
			return conflictResult(call.Name, ErrCallUnrecorded)
		case kept.Claim == "":
			return fromRecord(&kept)
		case kept.Until != 0 && !now.Before(wait):
			// It started, and had to end by now: its record never came.
			return conflictResult(call.Name, ErrCallUnrecorded)
		case kept.Until != 0:
			pause = min(pause, wait.Sub(now)) // then it is told so
		case !wait.IsZero() && now.Add(pause).After(wait):
			return conflictResult(call.Name, ErrCallInFlight)
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return canceledResult(ctx, call.Name, notStarted)
		case <-t.C:
		}
		pause = min(2*pause, 250*time.Millisecond)
	}
}

// recordHold is a call's hold on its ID, from its claim to its record.
type recordHold struct {
	rt          *runtimeConfig
	store       RecordStore
	session, id string
	limit       time.Duration // the tool's time limit; zero: none
	mine        callRecord
	claim       string // the claim, as kept before the tool starts

	// Set by start, which the run stage calls before the tool runs, on
	// the caller's goroutine; read after next returns.
	started     string    // the claim once the tool started; "" before
	startedExp  time.Time // when it expires
	unconfirmed bool      // start failed, and unstart gives the ID back

	mu      sync.Mutex
	renewal *time.Timer
	stopped bool
}

// renewLater renews the claim's lease in recordRenew, and again after
// that, until stop.
func (h *recordHold) renewLater() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.stopped {
		h.renewal = time.AfterFunc(h.rt.recordLease/4, h.renew)
	}
}

func (h *recordHold) renew() {
	ok, outcome := callHook(context.Background(), h.rt, func(ctx context.Context) bool {
		ok, err := h.store.Replace(ctx, h.session, h.id, h.claim, h.claim, time.Now().Add(h.rt.recordLease))
		return ok || err != nil // an error: try again; false: no longer held, start will tell
	})
	if outcome == hookOK && !ok {
		return
	}
	h.renewLater()
}

// stop ends the renewals. One under way may still land; it only renews
// the claim it was given, if that is still what is kept.
func (h *recordHold) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	if h.renewal != nil {
		h.renewal.Stop()
	}
}

// start makes the claim last until the tool can no longer be running,
// if the call still holds it; the run stage calls it just before the tool
// starts. It returns nil when the tool may start, or the call's result.
func (h *recordHold) start(ctx context.Context, name string) *Result {
	h.stop()
	now := time.Now()
	run := h.rt.recordFor
	if h.limit > 0 {
		run = h.limit + h.rt.grace
	}
	exp := now.Add(max(h.rt.recordFor, run))
	s := h.mine
	s.Until = now.Add(run).UnixMilli()
	b, _ := json.Marshal(s)
	started := string(b)
	type answer struct {
		ok  bool
		err error
	}
	ans, outcome := callHook(ctx, h.rt, func(ctx context.Context) answer {
		ok, err := h.store.Replace(ctx, h.session, h.id, h.claim, started, exp)
		if ok || err != nil {
			return answer{ok, err}
		}
		// The lease lapsed while the call waited, and the store could not
		// renew it: the ID is free, or a twin holds it now.
		kept, ok, err := h.store.Claim(ctx, h.session, h.id, started, exp)
		return answer{ok || (err == nil && kept == started), err}
	})
	switch {
	case outcome == hookOK && ans.err == nil && ans.ok:
		h.started, h.startedExp = started, exp
		return nil
	case outcome == hookOK && ans.err == nil:
		return conflictResult(name, ErrCallInFlight)
	}
	// Whether the store made the claim a started one is not known: it may
	// have, or may yet. The tool does not run, and its ID is given back.
	h.unconfirmed = true
	go h.unstart(ctx, started, exp)
	switch {
	case ctx.Err() != nil:
		return canceledResult(ctx, name, notStarted)
	case outcome == hookPanicked:
		return recordFailedResult(name, errRecordStorePanicked)
	case outcome != hookOK:
		return recordFailedResult(name, ErrHookTimeout)
	}
	return recordFailedResult(name, ans.err)
}

// unstart gives back the ID of a call whose tool did not start although
// the store may have made, or may yet make, its claim a started one: the
// claim, or the started claim, becomes a claim of no call, which lapses
// after a lease, so that a started claim written late no longer lands
// and a twin is never told that a call ran that did not. It tries until
// the store answers, for as long as the started claim would last.
func (h *recordHold) unstart(ctx context.Context, started string, exp time.Time) {
	ctx = context.WithoutCancel(ctx)
	back := h.mine
	back.Claim += "-given-back"
	b, _ := json.Marshal(back)
	pause := 100 * time.Millisecond
	for time.Now().Before(exp) {
		done, outcome := callHook(ctx, h.rt, func(ctx context.Context) bool {
			lapse := time.Now().Add(h.rt.recordLease)
			for _, old := range []string{h.claim, started} {
				ok, err := h.store.Replace(ctx, h.session, h.id, old, string(b), lapse)
				if err != nil {
					return false
				}
				if ok {
					return true
				}
			}
			// Neither is kept: the claim lapsed, or another holds the ID.
			// Hold it for a lease, so that a late claim of the started
			// one does not land either.
			_, _, err := h.store.Claim(ctx, h.session, h.id, string(b), lapse)
			return err == nil
		})
		if outcome == hookOK && done {
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, 2*time.Second)
	}
}

// giveBack frees the ID of a call whose tool did not start.
func (h *recordHold) giveBack(ctx context.Context) {
	if h.started != "" || h.unconfirmed {
		return
	}
	_, _ = callHook(context.WithoutCancel(ctx), h.rt, func(ctx context.Context) error {
		_, err := h.store.Replace(ctx, h.session, h.id, h.claim, "", time.Time{})
		return err
	})
}

// keep records what the call whose tool started told the model; if that
// cannot be kept, it marks the ID as that of a call that ran, so that a
// twin is told so at once rather than waiting for a record that will not
// come.
func (h *recordHold) keep(ctx context.Context, res *Result) {
	if h.started == "" {
		return
	}
	ctx = context.WithoutCancel(ctx)
	value, err := encodeRecord(&h.mine, res)
	if err == nil {
		exp := time.Now().Add(h.rt.recordFor)
		var ok bool
		ok, _ = callHook(ctx, h.rt, func(ctx context.Context) bool {
			ok, err := h.store.Record(ctx, h.session, h.id, h.started, value, exp)
			return ok && err == nil
		})
		if ok {
			return
		}
	}
	lost, _ := json.Marshal(callRecord{Lost: true, Tool: h.mine.Tool, Args: h.mine.Args})
	_, _ = callHook(ctx, h.rt, func(ctx context.Context) error {
		_, err := h.store.Replace(ctx, h.session, h.id, h.started, string(lost), h.startedExp)
		return err
	})
}

// encodeRecord is the record of a call that ran: its claim's binding, the
// model view and the host view's status.
func encodeRecord(mine *callRecord, res *Result) (string, error) {
	view, err := json.Marshal(res)
	if err != nil {
		return "", err
	}
	r := callRecord{Tool: mine.Tool, Args: mine.Args, Status: uint8(res.Status), Truncated: res.Truncated, Result: view}
	if res.Err != nil {
		r.Cause = headTail(res.Err.Error(), maxRecordCause)
	}
	b, err := json.Marshal(r)
	return string(b), err
}

// fromRecord is the answer a record gives: what the model was told, and
// the status the call ended with.
func fromRecord(r *callRecord) *Result {
	res := &Result{}
	if err := json.Unmarshal(r.Result, res); err != nil {
		return recordFailedResult(r.Tool, errRecordUnreadable)
	}
	res.owned, res.FromRecord = true, true
	res.Status, res.Truncated = Status(r.Status), r.Truncated
	if res.Status != StatusOK {
		res.Err = recordedCause(r.Cause)
	}
	return res
}

var (
	errRecordUnreadable    = errors.New("a record that cannot be read")
	errRecordStorePanicked = errors.New("the record store panicked")
)
