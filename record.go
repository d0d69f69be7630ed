package tool

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
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
// Every failure fails closed: an error from Claim means the call does not
// run (whether it ran before cannot be told), and an error from Record
// leaves the claim until it expires, so that a twin is refused rather
// than run a second time.
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
	// already past removes the entry. The pipeline gives a claim back
	// with it.
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

// callRecord is what the record stage keeps under a session and a call
// ID: while the call runs, its claim; once it ran, what the model was told
// and the host view's status.
type callRecord struct {
	Claim     string          `json:"claim,omitempty"` // a random token, while the call runs
	Tool      string          `json:"tool"`
	Args      string          `json:"args"` // the SHA-256 of the canonical arguments, in hex
	Status    uint8           `json:"status,omitempty"`
	Cause     string          `json:"cause,omitempty"` // the host-side cause's text, bounded
	Truncated int             `json:"truncated,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"` // the model view, as Result's JSON
}

// maxRecordCause bounds the host-side cause kept in a record.
const maxRecordCause = 1 << 10

// recordStage answers a repeated call from its record, when the registry
// keeps records, after preflight (a record is bound to the tool and the
// canonical arguments) and before the host's middlewares, so that a call
// that already ran is neither asked about nor run again. The first call
// with a session's ID claims it; a twin that comes while it runs waits for
// its record within its own deadline and the first call's time limit. A
// call whose tool started is recorded as the model saw it (after the
// output stage's cap); one that did not (invalid, denied, limited,
// awaiting approval, cancelled before it started) gives its claim back,
// and a later call with the ID runs. Dry runs, and calls with no session
// or no ID, pass straight through.
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
	mine := callRecord{Claim: hex.EncodeToString(token[:]), Tool: call.Name, Args: hex.EncodeToString(sum[:])}
	claim, _ := json.Marshal(mine)
	if res := claimRecord(ctx, rt, call, &mine, string(claim)); res != nil {
		return res
	}
	store, session, id := rt.records, call.Session, call.ID
	kept := false
	defer func() {
		if !kept { // nothing ran, or a stage below panicked: the ID is free again
			_, _ = callHook(context.WithoutCancel(ctx), rt, func(ctx context.Context) error {
				_, err := store.Replace(ctx, session, id, string(claim), "", time.Time{})
				return err
			})
		}
	}()
	res := next(ctx, call)
	if res == nil || !res.ran {
		return res
	}
	kept = true // recorded, or the claim stays until it expires: a twin is refused, never run
	if value, err := encodeRecord(&mine, res); err == nil {
		exp := time.Now().Add(rt.recordFor)
		_, _ = callHook(context.WithoutCancel(ctx), rt, func(ctx context.Context) error {
			_, err := store.Record(ctx, session, id, string(claim), value, exp)
			return err
		})
	}
	return res
}

// claimRecord claims the call's ID, waiting while a twin runs. It returns
// nil when the call holds the claim and may go on, or the call's result:
// the record's answer, a conflict, a failure.
func claimRecord[C any](ctx context.Context, rt *runtimeConfig, call *Call[C], mine *callRecord, claim string) *Result {
	store := rt.records
	// A twin waits at most as long as the first call may run.
	var waitUntil time.Time
	if limit := rt.limit(&call.st.entry.def); limit > 0 {
		waitUntil = time.Now().Add(limit + rt.grace)
	}
	pause := 5 * time.Millisecond
	for {
		type answer struct {
			kept    string
			claimed bool
			err     error
		}
		ans, outcome := callHook(ctx, rt, func(ctx context.Context) answer {
			kept, ok, err := store.Claim(ctx, call.Session, call.ID, claim, time.Now().Add(rt.recordFor))
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
		switch {
		case kept.Tool != mine.Tool || kept.Args != mine.Args:
			return conflictResult(call.Name, ErrCallIDReused)
		case kept.Claim == "":
			return fromRecord(&kept)
		case !waitUntil.IsZero() && time.Now().Add(pause).After(waitUntil):
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
