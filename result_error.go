package tool

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Error is a tool failure with guidance for the model. Return one from a
// tool (or wrap one) to control what the model is told; any other error's
// message is shown as it is.
//
//	return Out{}, &tool.Error{
//		Message: "no file named " + in.Path,
//		Hint:    "list the directory first with list_dir",
//	}
type Error struct {
	// Status is the result's status; zero means Failed.
	Status Status
	// Message says what went wrong, for the model.
	Message string
	// Hint says what to do next ("call list_dir first").
	Hint string
	// Warning says what to be careful about.
	Warning string
	// MustFollow are instructions the model has to follow before retrying.
	MustFollow []string
	// Internal hides Message from the model, which is told only that the
	// tool failed internally; the host still sees everything.
	Internal bool
	// Cause is the underlying error, for the host.
	Cause error
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Cause != nil {
		msg = e.Cause.Error()
	}
	if e.Cause != nil && e.Message != "" {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf is a shorthand for &Error{Message: fmt.Sprintf(format, args...)}.
func Errorf(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

// Internal returns an error whose message the model never sees.
func Internal(err error) *Error { return &Error{Internal: true, Cause: err} }

// WithHint sets Hint and returns e, for chaining.
func (e *Error) WithHint(hint string) *Error { e.Hint = hint; return e }

// Host-side causes of the results the pipeline makes, one list for every
// stage: each is in the Result's Err, alone or wrapped with what it is
// about (errors.Is finds it). Causes with data of their own are types:
// [*ArgsError] (arguments that failed preflight), [*PanicError],
// [*TimeoutError], [*LimitError], [*DefinitionError] (registration).
var (
	// ErrUnknownTool: no tool has the requested name (StatusUnknownTool).
	ErrUnknownTool = errors.New("tool: unknown tool")
	// ErrCursorRefused wraps the [keyring] error that says why a page
	// cursor was refused (StatusInvalid).
	ErrCursorRefused = errors.New("tool: cursor refused")
	// ErrHookTimeout: one of the tool's own argument checks did not answer
	// within RegistryOptions.HookTimeout, so the call did not run.
	ErrHookTimeout = errors.New("tool: a hook did not answer in time")
	// ErrDenied: the policy or the approver denied the call; an
	// approver's reason is wrapped with it.
	ErrDenied = errors.New("tool: approval denied")
	// ErrNoApprover: the policy asks, and no approver is configured.
	ErrNoApprover = errors.New("tool: approval asked for, and no approver is configured")
	// ErrApproverFailed wraps the error or panic of an approver.
	ErrApproverFailed = errors.New("tool: the approver failed")
	// ErrApprovalTimeout: no answer within ApprovalOptions.Timeout.
	ErrApprovalTimeout = errors.New("tool: no approval answer in time")
	// ErrArgsChanged: the arguments changed after they were approved.
	ErrArgsChanged = errors.New("tool: the arguments changed after they were approved")
	// ErrApprovalNotForCall: the approval was given for another call.
	ErrApprovalNotForCall = errors.New("tool: the approval was given for another call")
	// ErrApprovalState wraps why a resumed approval was refused: its
	// state is altered, expired, for another call or already used.
	ErrApprovalState = errors.New("tool: the approval state cannot be used")
	// ErrOtherAnswerer is wrapped with ErrApprovalState when a resumed
	// approval's answer came from someone other than the party the call
	// was deferred to ([PendingApproval].Answerer): a frontend the host
	// did not choose as its approver.
	ErrOtherAnswerer = errors.New("tool: the approval answer came from someone other than who was asked")
	// ErrEditedTooOften: a call's arguments were edited, each edit
	// changing its class, more times than one call is asked about.
	ErrEditedTooOften = errors.New("tool: the arguments were edited too many times")
	// ErrAwaitingApproval: the approver will answer later
	// (StatusAwaitingApproval); see Result.Pending.
	ErrAwaitingApproval = errors.New("tool: awaiting an approval answer")
	// ErrLimiterFailed wraps the error of a [Limiter] that could not say
	// whether a call may start (a store that did not answer): the call did
	// not run (StatusFailed). A call a limit refused has a [*LimitError].
	ErrLimiterFailed = errors.New("tool: the call's limits could not be checked")
	// ErrTooManyCalls: the call came past BatchOptions.MaxCalls in its
	// batch and did not run (StatusLimited).
	ErrTooManyCalls = errors.New("tool: too many calls in one batch")
	// ErrCallIDReused: an earlier call of the session with the same ID
	// was made with other arguments or to another tool
	// (StatusConflict).
	ErrCallIDReused = errors.New("tool: the call ID was used for another call")
	// ErrCallInFlight: an earlier call of the session with the same ID
	// is still in progress (waiting to start, or running) and did not end
	// within this call's wait (StatusConflict).
	ErrCallInFlight = errors.New("tool: a call with the same ID is still running")
	// ErrCallUnrecorded: an earlier call of the session with the same ID
	// ran, but its result could not be kept (its process died, or the
	// record store refused the record), so it cannot be given; this call
	// did not run (StatusConflict). The ID stays so until the claim
	// expires: RegistryOptions.RecordFor after the tool started.
	ErrCallUnrecorded = errors.New("tool: a call with the same ID ran, and its result could not be kept")
	// ErrRecordStore wraps the error of a [RecordStore] that could not say
	// whether the call ran before: the call did not run (StatusFailed).
	// A claim the store could not confirm lapses within seconds, so the
	// call may be made again.
	ErrRecordStore = errors.New("tool: the call's record could not be checked")
	// ErrRecordStoreFull is wrapped by the error of a [RecordStore] whose
	// room for the session (or for all) is taken by calls in progress,
	// which it never forgets: the call did not run (StatusFailed).
	ErrRecordStoreFull = errors.New("tool: the record store is full of calls in progress")
	// ErrStoreLostData is wrapped by the error of a store that may have
	// lost what it kept (Redis restarted without persistence, was flushed,
	// evicted keys, or a replica that may lack the last writes took over)
	// and so refuses, failing closed, for as long as what it lost could
	// still matter: a call whose record it lost could run twice, a used
	// approval be used again. The call did not run (StatusFailed).
	ErrStoreLostData = errors.New("tool: the store may have lost what it kept")
	// ErrFromRecord is the cause of a call answered from the record of an
	// earlier one that did not succeed; the earlier cause's text is
	// wrapped with it (Result.FromRecord).
	ErrFromRecord = errors.New("tool: answered from the record of an earlier call")
	// ErrNoResult: the tool returned a nil *Result and a nil error.
	ErrNoResult = errors.New("tool: the tool returned a nil result and a nil error")
	// ErrAbandoned is wrapped in the cause of a call whose tool did not
	// return within the grace period after its context was done. The
	// tool's goroutine may still be running; its eventual result is
	// dropped.
	ErrAbandoned = errors.New("tool: the tool did not return after its context was done; abandoned")
)

// errNilFromMiddleware is the cause of a middleware that returned a nil
// *Result.
var errNilFromMiddleware = errors.New("tool: a middleware returned a nil *Result")

// PanicError is the host-side cause of a Panicked result.
type PanicError struct {
	Value  any    // what the tool panicked with
	Goexit bool   // the tool called runtime.Goexit (t.FailNow, say) instead
	Stack  []byte // the goroutine's stack at the panic
}

func (e *PanicError) Error() string {
	if e.Goexit {
		return "tool: the tool exited its goroutine (runtime.Goexit)"
	}
	return fmt.Sprintf("tool: the tool panicked: %v", e.Value)
}

// TimeoutError is the context cause of a call that ran past its time limit:
// the tool's Timeout, the registry default, or the idle limit. It matches
// context.DeadlineExceeded with errors.Is, so a tool checking for a timeout
// in the usual way sees one.
type TimeoutError struct {
	Tool  string
	Limit time.Duration
	// Idle is set when the call was stopped for reporting no progress for
	// Limit (Definition.IdleTimeout), not for running longer than its
	// Timeout.
	Idle bool
}

func (e *TimeoutError) Error() string {
	if e.Idle {
		return fmt.Sprintf("tool: %s reported no progress for %v (its idle limit)", e.Tool, e.Limit)
	}
	return fmt.Sprintf("tool: %s ran longer than its %v time limit", e.Tool, e.Limit)
}

// Is reports whether target is context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }
