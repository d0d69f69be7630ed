package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolbelt-go/tool/internal/text"
	"github.com/toolbelt-go/tool/keyring"
)

// This file writes every result the pipeline makes, and so every sentence
// the model reads from the pipeline: a change of wording is a change here.
// (What a tool writes is the tool's; the one-line messages of argument
// problems are made with the facts of the schema, in preflight_parse.go and
// preflight_hint.go, and framed here by argsText.)

// maxErrorText bounds the model text of an error.
const maxErrorText = 8 << 10

// failed is a result the pipeline owns, made in one allocation, as
// ownedText makes one.
func failed(status Status, cause error, msg string) *Result {
	r := ownedText(msg)
	r.Status, r.IsError, r.Err = status, true, cause
	return r
}

// lookup

func unknownToolResult(name string, names []string) *Result {
	var b strings.Builder
	b.WriteString("Error: there is no tool named " + text.QuoteASCII(name, 64) + " (names are case-sensitive).")
	if close := text.Closest(name, names, 3); len(close) > 0 {
		b.WriteString(" Did you mean " + strconv.Quote(close[0]))
		for _, c := range close[1:] {
			b.WriteString(" or " + strconv.Quote(c))
		}
		b.WriteString("?")
	}
	if len(names) > 0 {
		b.WriteString(" Available tools: " + joinLimited(names, 40) + ".")
	}
	return failed(StatusUnknownTool, fmt.Errorf("%w %q", ErrUnknownTool, text.Cut(name, 128)), b.String())
}

// nilResult is the result of a middleware that returned none.
func nilResult(name string) *Result {
	return failed(StatusFailed, errNilFromMiddleware, "tool "+name+" returned no result")
}

// preflight

var errNoPreflight = errors.New("tool: call has no preflight (not from a Registry or Wrap)")

func misconfigured(name string, err error) *Result {
	return failed(StatusFailed, err, "tool "+name+" is misconfigured and cannot run")
}

func invalidResult(e *ArgsError) *Result { return failed(StatusInvalid, e, e.text) }

func hookTimeoutResult(name string) *Result {
	return failed(StatusFailed, ErrHookTimeout, "Error: the argument check of "+name+" did not finish in time, so the call did not run. This is not a problem with your arguments; try again later.")
}

// argsText is what the model is told of arguments that failed preflight:
// each problem, the required keys, the expected shape, and what to do.
func argsText(e *ArgsError) string {
	var b strings.Builder
	size := 3*len(e.Tool) + len(e.Example) + 160
	for _, p := range e.Problems {
		size += len(p.Pointer) + len(p.Message) + 8
	}
	for _, r := range e.Required {
		size += len(r) + 2
	}
	b.Grow(size)
	if e.Truncated {
		b.WriteString("Your arguments for ")
		b.WriteString(e.Tool)
		b.WriteString(" were cut off: ")
		b.WriteString(e.Problems[0].Message)
		b.WriteString(".\n")
	} else {
		b.WriteString("Invalid arguments for ")
		b.WriteString(e.Tool)
		if e.Total == 1 {
			b.WriteString(":\n")
		} else {
			b.WriteString(" (" + strconv.Itoa(e.Total) + " problems):\n")
		}
		for _, p := range e.Problems {
			b.WriteString("- ")
			if p.Pointer != "" {
				b.WriteString(showPointer(p.Pointer))
				b.WriteString(": ")
			}
			b.WriteString(p.Message)
			b.WriteByte('\n')
		}
		if e.Total > len(e.Problems) {
			b.WriteString("- … and " + strconv.Itoa(e.Total-len(e.Problems)) + " more\n")
		}
	}
	if len(e.Required) > 0 {
		b.WriteString("Required keys: ")
		for i, r := range e.Required {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(r)
		}
		b.WriteString(".\n")
	}
	if e.Example != "" && e.Example != "{}" {
		b.WriteString("Expected shape: ")
		b.WriteString(e.Example)
		b.WriteByte('\n')
	}
	b.WriteString("Fix the arguments and call ")
	b.WriteString(e.Tool)
	b.WriteString(" again.")
	return b.String()
}

// cursorProblem is the problem of a refused page cursor; err is nil when
// the call has no session, so no cursor can be used.
func cursorProblem(tool string, err error) Problem {
	if err == nil {
		return Problem{Pointer: "/cursor", Code: "cursor", Message: "cursors cannot be used in this conversation; call " + tool + " again without a cursor"}
	}
	msg := "this cursor is invalid (use next_cursor exactly as it was returned; never write one yourself)"
	switch err {
	case keyring.ErrExpired:
		msg = "this cursor has expired"
	case keyring.ErrOtherPurpose, keyring.ErrOtherSession, keyring.ErrOtherDigest:
		msg = "this cursor is for a different request (the other arguments must stay the same between pages)"
	}
	return Problem{Pointer: "/cursor", Code: "cursor", Message: msg + "; call " + tool + " again without a cursor to start from the first page"}
}

// noPagesNote is Paged.Note: more results, and no cursor to give.
const noPagesNote = "More results exist, but they cannot be paged in this conversation; narrow the request to see the rest."

// approval

// deniedResult is the result of a call approval stopped; why completes
// "was not allowed to run: …".
func deniedResult(name string, cause error, why string) *Result {
	msg := "The call to " + name + " was not allowed to run: " + why + ". It did not run. Do not repeat it unchanged; change the approach or ask the user."
	return failed(StatusDenied, cause, text.Bound(msg, maxErrorText))
}

// Why approval stopped a call, as the model is told.
const (
	whyNoApprover  = "it needs approval and no one can approve calls in this session"
	whyNotForCall  = "its approval was given for another call"
	whyArgsChanged = "its arguments changed after they were approved"
	whyUnchecked   = "its approval answer could not be checked"
	whyUsed        = "its approval answer was already used"
	whyStoreLost   = "its approval answer could not be checked: the store of approval answers may have lost what it held, so whether the answer was used before cannot be told; ask the user again"
)

func whyPolicy(s Safety) string {
	return "the session's policy does not allow " + s.String() + " calls to this tool"
}

func whyTimeout(d time.Duration) string { return "no one approved it within " + d.String() }

// whyUserSaid is a deny's reason, as the person gave it.
func whyUserSaid(reason string) string {
	if reason == "" {
		reason = "no reason given"
	}
	return "the user said: " + text.Bound(reason, 2048)
}

// whyApproverFailed: an approver that knows what the model should be told
// says it with a *Error ("the user's client cannot show approval prompts").
func whyApproverFailed(err error) string {
	why := "the approval step failed"
	if te := (*Error)(nil); errors.As(err, &te) && te != nil && !te.Internal && te.Message != "" {
		why = text.Bound(te.Message, 1024)
		if te.Hint != "" {
			why += " (" + text.Bound(te.Hint, 1024) + ")"
		}
	}
	return why
}

// whyStateRefused says why a resumed approval's state was refused.
func whyStateRefused(err error) string {
	switch err {
	case keyring.ErrExpired:
		return "its approval answer came too late"
	case keyring.ErrOtherDigest:
		return "its approval answer was given for other arguments"
	}
	return "its approval answer cannot be used (it is altered, or for another call)"
}

// whyOtherAnswerer: the answer to a deferred approval came through a
// party it was not deferred to.
const whyOtherAnswerer = "its approval answer came from someone other than the one asked"

// editDeniedResult is the result of a call whose edited arguments are
// refused: the edit is put to the policy as a new call is.
func editDeniedResult(name string, cause error, why string) *Result {
	msg := "The approver edited the arguments of this call to " + name + ", and the edited call was not allowed to run: " + why +
		". It did not run. Do not repeat it unchanged; change the approach or ask the user."
	return failed(StatusDenied, cause, text.Bound(msg, maxErrorText))
}

// whyEditedTooOften: a call's arguments were edited round after round.
func whyChangedTooOften(rounds int) string {
	return fmt.Sprintf("it was asked about %d times, and each time it had become a call of another kind before the answer came", rounds)
}

func whyEditedTooOften(rounds int) string {
	return fmt.Sprintf("its arguments were edited %d times, each time into a call of another kind, and it was asked about no more", rounds)
}

func awaitingResult(name string, p *PendingApproval) *Result {
	res := failed(StatusAwaitingApproval, ErrAwaitingApproval, "The call to "+name+" needs the user's approval, which has been asked for. It has not run yet.")
	res.Pending = p
	return res
}

func canceledWaitingResult(ctx context.Context, name string) *Result {
	res := canceledResult(ctx, name, notStarted)
	res.Content = []Content{TextContent("The call to " + name + " was cancelled while it waited for approval. It did not run.")}
	return res
}

// editInvalidResult is invalid, the preflight result of arguments an
// approver edited, said as such.
func editInvalidResult(name string, invalid *Result) *Result {
	invalid.Content = []Content{TextContent("The approver edited the arguments of this call to " + name +
		" and the edit is not valid, so the call did not run.\n" + invalid.Text())}
	return invalid
}

// record

// conflictResult is the result of a call whose ID an earlier call of the
// session holds: with other arguments, still in progress, or run with its
// result lost.
func conflictResult(name string, cause error) *Result {
	msg := "The call to " + name + " did not run: a call with the same ID was already made in this conversation with other arguments. Make it again as a new call."
	switch cause {
	case ErrCallInFlight:
		msg = "The call to " + name + " did not run again: a call with the same ID is still in progress, so its result is not known yet. Check whether it took effect before making it again as a new call."
	case ErrCallUnrecorded:
		msg = "The call to " + name + " did not run again: a call with the same ID already ran, but its result could not be kept, so it is not known. Check whether it took effect before making it again as a new call."
	}
	return failed(StatusConflict, cause, msg)
}

// recordFailedResult is the result of a call whose record store did not
// say whether it ran before: the store failed, is full, or may have lost
// what it kept.
func recordFailedResult(name string, err error) *Result {
	msg := "The call to " + name + " did not run: whether it already ran could not be checked just now. This is not a problem with your arguments; try again in a few seconds."
	switch {
	case errors.Is(err, ErrStoreLostData):
		msg = "The call to " + name + " did not run: the store that remembers which calls already ran may have lost what it held, so whether this call already ran cannot be told. This is not a problem with your arguments; tell the user, and check whether it took effect before making it again."
	case errors.Is(err, ErrRecordStoreFull):
		msg = "The call to " + name + " did not run: this conversation has too many calls in progress to keep track of another. Try again when some have finished."
	}
	return failed(StatusFailed, fmt.Errorf("%w: %w", ErrRecordStore, err), msg)
}

// recordedCause is the host-side cause of a failed call answered from its
// record: the cause it had, as text.
func recordedCause(cause string) error {
	if cause == "" {
		return ErrFromRecord
	}
	return fmt.Errorf("%w; it ended with: %s", ErrFromRecord, cause)
}

// dry run

// Why a dry run's call would, or would not, be asked about.
const (
	whyDryNoApproval = "the registry has no approval step"
	whyDryAllowed    = "the session's policy allows it without asking"
	whyDryRemembered = "an earlier \"allow always\" answer in this session covers it"
)

func whyDryAsk(req Requirement, s Safety) string {
	if req.Reason != "" {
		return "the call asks for approval: " + text.Bound(req.Reason, 1024)
	}
	return "the session's policy asks about " + s.String() + " calls to this tool"
}

// dryRunJSON is the structured model view of a dry run.
type dryRunJSON struct {
	DryRun   bool            `json:"dry_run"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	Safety   string          `json:"safety"`
	Approval string          `json:"approval"`
	Why      string          `json:"why"`
	Preview  previewJSON     `json:"preview"`
}

type previewJSON struct {
	Title     string     `json:"title,omitempty"`
	Summary   string     `json:"summary,omitempty"`
	Edits     []editJSON `json:"edits,omitempty"`
	Locations []string   `json:"locations,omitempty"`
}

type editJSON struct {
	Path string `json:"path"`
	Diff string `json:"diff"`
}

// dryRunResult is the result of a dry run: what would run, and how it
// would be approved, as text and as JSON, held to the output cap.
func dryRunResult(d *DryRun, limit int) *Result {
	var b strings.Builder
	b.WriteString("Dry run: the call to " + d.Tool + " was checked and did not run.\n")
	b.WriteString("Arguments it would run with: " + text.Bound(string(d.Args), maxPreviewText) + "\n")
	b.WriteString("Safety: " + d.Safety.String() + "\n")
	switch d.Verdict {
	case VerdictAllow:
		b.WriteString("Approval: it would run without asking anyone (" + d.Why + ").\n")
	case VerdictAsk:
		b.WriteString("Approval: a person would be asked (" + d.Why + ").\n")
	default:
		b.WriteString("Approval: it would not be allowed to run (" + d.Why + ").\n")
	}
	p := d.Preview
	j := dryRunJSON{DryRun: true, Tool: d.Tool, Args: d.Args, Safety: d.Safety.String(), Approval: d.Verdict.String(), Why: d.Why,
		Preview: previewJSON{Title: p.Title, Locations: p.Locations}}
	if !p.Basic {
		j.Preview.Summary = p.Summary
		b.WriteString("Preview: " + p.Title)
		if p.Summary != "" {
			b.WriteString(": " + p.Summary)
		}
		b.WriteByte('\n')
		for _, e := range p.Edits {
			diff := e.Diff()
			j.Preview.Edits = append(j.Preview.Edits, editJSON{Path: e.Path, Diff: diff})
			b.WriteString("Edit " + e.Path + ":\n" + diff)
			if !strings.HasSuffix(diff, "\n") {
				b.WriteByte('\n')
			}
		}
		if len(p.Locations) > 0 {
			b.WriteString("Touches: " + strings.Join(p.Locations, ", ") + "\n")
		}
	}
	res := &Result{owned: true, Status: StatusDryRun, DryRun: d, Content: []Content{TextContent(strings.TrimSuffix(b.String(), "\n"))}}
	if raw, err := json.Marshal(j); err == nil {
		res.Structured, res.trusted = raw, true
	}
	capOutput(res, limit)
	return res
}

// limit

// tooManyCallsResult answers a call past a batch's MaxCalls of n calls.
// It names nothing the model wrote: there may be thousands of these.
func tooManyCallsResult(n, maxCalls int) *Result {
	return failed(StatusLimited, ErrTooManyCalls, "This call did not run: the turn made "+strconv.Itoa(n)+
		" tool calls, and only the first "+strconv.Itoa(maxCalls)+" run. Make it again in a later turn if it is still needed.")
}

// limitedResult is the result of a call a limit refused: what the model
// can do about it, and when.
func limitedResult(e *LimitError) *Result {
	var b strings.Builder
	b.WriteString("The call to " + e.Tool + " did not run: ")
	if e.Busy {
		b.WriteString("the tool is busy (" + calls(e.Limit.Concurrent) + " of it running, the most it allows at once).")
	} else {
		b.WriteString("the tool is rate limited (at most " + calls(e.Limit.Rate) + " per " + perText(e.Limit.per()) + ").")
	}
	if s := retryText(e.RetryAfter); s != "" {
		b.WriteString(" Retry after about " + s + ", or do something else in the meantime.")
	} else {
		b.WriteString(" Retry in a little while, or do something else in the meantime.")
	}
	return failed(StatusLimited, e, b.String())
}

// calls says "1 call", "2 calls".
func calls(n int) string {
	if n == 1 {
		return "1 call"
	}
	return strconv.Itoa(n) + " calls"
}

// retryText says a wait in whole seconds (rounded up), or "" when none is
// known.
func retryText(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	n := int((d + time.Second - 1) / time.Second)
	if n == 1 {
		return "1 second"
	}
	return strconv.Itoa(n) + " seconds"
}

// perText names a rate's interval: "minute", "10s".
func perText(d time.Duration) string {
	switch d {
	case time.Second:
		return "second"
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	}
	return d.String()
}

func limiterFailedResult(name string, err error) *Result {
	return failed(StatusFailed, fmt.Errorf("%w: %w", ErrLimiterFailed, err),
		"The call to "+name+" did not run: its limits could not be checked just now. This is not a problem with your arguments; try again shortly.")
}

var errLimiterPanicked = errors.New("the limiter panicked")

// deadline and run

// stoppedAt is how far a call got before its context ended.
type stoppedAt uint8

const (
	notStarted stoppedAt = iota
	running
	abandoned
)

// canceledResult is the result of a call whose context ended: before the
// tool started, while it ran, or with the tool abandoned (still running).
func canceledResult(ctx context.Context, name string, stage stoppedAt) *Result {
	return canceledResultCause(ctx, context.Cause(ctx), name, stage)
}

// canceledResultCause is canceledResult for a known cause. The model is
// told whether the call timed out (and which limit) or was cancelled, never
// the cause the host gave (context.WithCancelCause): that is host data, for
// the host view only.
func canceledResultCause(ctx context.Context, cause error, name string, stage stoppedAt) *Result {
	if cause == nil {
		cause = ctx.Err()
	}
	status := StatusCanceled
	var b strings.Builder
	b.WriteString("The call to " + name)
	var te *TimeoutError
	switch {
	case errors.As(cause, &te) && te.Idle:
		status = StatusTimedOut
		fmt.Fprintf(&b, " timed out: it reported no progress for %v", te.Limit)
	case errors.As(cause, &te):
		status = StatusTimedOut
		fmt.Fprintf(&b, " timed out: it ran longer than its %v time limit", te.Limit)
	case errors.Is(cause, context.DeadlineExceeded):
		status = StatusTimedOut
		b.WriteString(" timed out: the caller's deadline passed")
	default:
		b.WriteString(" was cancelled")
	}
	switch stage {
	case notStarted:
		b.WriteString(" before it started. It did not run.")
	case running:
		b.WriteString(". It did not complete and may have done part of its work; check before repeating it.")
	case abandoned:
		b.WriteString(". It did not stop when asked and may still be running; check its effects before repeating it.")
	}
	if status == StatusTimedOut && stage != notStarted {
		b.WriteString(" If you call it again, ask for less at once.")
	}
	return failed(status, cause, text.Bound(b.String(), maxErrorText))
}

// abandonedResult is the result of a call whose tool was still running
// a grace period after its context was done.
func abandonedResult(cause error, name string, grace time.Duration) *Result {
	res := canceledResultCause(context.Background(), cause, name, abandoned)
	res.Err = fmt.Errorf("%w (%v after its context was done): %w", ErrAbandoned, grace, cause)
	return res
}

func panicResult(name string, p any, goexit bool) *Result {
	return panicResultStack(name, p, goexit, debug.Stack())
}

func panicResultStack(name string, p any, goexit bool, stack []byte) *Result {
	return failed(StatusPanicked, &PanicError{Value: p, Goexit: goexit, Stack: stack},
		"Error: tool "+name+" crashed (an internal bug, not a problem with your arguments). Do not retry the same call; try another approach.")
}

func noResult(name string) *Result {
	return failed(StatusFailed, ErrNoResult, "tool "+name+" returned no result; it may not have done what was asked")
}

// errorResult is the result of a tool that returned an error: a *Error's
// message and guidance, any other error's text, bounded.
func errorResult(name string, err error) *Result {
	var te *Error
	if !errors.As(err, &te) || te == nil {
		status := StatusFailed
		if errors.Is(err, context.DeadlineExceeded) {
			// A limit the tool applied itself (a timeout from its
			// arguments, a command it stopped): say it timed out.
			status = StatusTimedOut
		}
		return failed(status, err, headTail("Error: "+err.Error(), maxErrorText))
	}
	status := te.Status
	if status == StatusOK {
		status = StatusFailed
	}
	var b strings.Builder
	if te.Internal {
		b.WriteString("Error: tool " + name + " failed internally; the details are logged for the operator")
	} else {
		msg := te.Message
		if msg == "" && te.Cause != nil {
			msg = te.Cause.Error()
		}
		b.WriteString("Error: " + msg)
	}
	if te.Hint != "" {
		b.WriteString("\nHint: " + te.Hint)
	}
	if te.Warning != "" {
		b.WriteString("\nWarning: " + te.Warning)
	}
	for _, m := range te.MustFollow {
		b.WriteString("\nYou must: " + m)
	}
	return failed(status, err, headTail(b.String(), maxErrorText))
}

// headTail bounds an error text, keeping its start and its end, where
// error output says what went wrong.
func headTail(s string, max int) string {
	s, _ = text.HeadTail(s, max)
	return s
}

// output

// blocksLeftOut notes the content blocks the cap left out.
func blocksLeftOut(n, bytes int) Content {
	return TextContent("[… " + strconv.Itoa(n) + " more content blocks (" + strconv.Itoa(bytes) + " bytes) left out: the result is over its size limit]")
}

// blockLeftOut replaces a block that cannot be made safe.
func blockLeftOut(problem string) Content {
	return TextContent("[a content block was left out: " + problem + "]")
}

const structuredLeftOut = "[structured output left out: it was not valid UTF-8 JSON]"

// spillMarker marks where spilled output was cut, with the cursor to read
// it by.
func spillMarker(cut int, cursor string) string {
	return "\n[… " + strconv.Itoa(cut) + " bytes cut here. To read them, call " + ReadOutputTool +
		` with {"cursor":"` + cursor + `"} …]` + "\n"
}

// readTrailer tells the model where it is in the cut output and how to read
// on.
func readTrailer(from, to, end uint64, next string) string {
	s := "\n[bytes " + strconv.FormatUint(from, 10) + " to " + strconv.FormatUint(to, 10) + " of the " +
		strconv.FormatUint(end, 10) + " cut bytes"
	if next == "" {
		return s + "; that is the end of the cut output]"
	}
	return s + `. To read on, call ` + ReadOutputTool + ` with {"cursor":"` + next + `"}]`
}

// spillGone and spillUnreadable are read_output's errors: the store's own
// error (an address, a timeout) is host data.
func spillGone(err error) *Error {
	return &Error{Message: "this output is no longer kept (it expired or was evicted)",
		Hint: "call the tool that produced it again, with narrower arguments if it can take them", Cause: err}
}

func spillUnreadable(err error) *Error {
	return &Error{Message: "the cut output cannot be read right now",
		Hint: "try again shortly; if it keeps failing, call the tool that produced it again", Cause: err}
}

// joinLimited joins up to n items, noting how many more there were.
func joinLimited(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	shown := append([]string(nil), items[:n]...)
	sort.Strings(shown)
	return strings.Join(shown, ", ") + " (and " + strconv.Itoa(len(items)-n) + " more)"
}

func showPointer(p string) string {
	if p == "" {
		return "the top level"
	}
	return text.Clean(text.Cut(p, 200))
}

// tasks (task.go, task_follow.go)

func taskResultTooLarge(name string) string {
	return "The call to " + name + " ran as a task, but its result is larger than this conversation may keep, so it is lost. " +
		"Do not run it again for the same result; narrow the request."
}

func taskNotRunTooLarge(name string) string {
	return "The call to " + name + " did not run: what became of it (a question it waits for, or why it was refused) is larger than " +
		"this conversation may keep in its tasks. Wait for one of them to finish, then call it again."
}

func taskNotStarted(name string) string {
	return "The call to " + name + " could not start as a task: this conversation has as many tasks as it may keep. " +
		"Wait for one to finish, then call it again."
}

func taskGoesOn(name, id string) string {
	return "The call to " + name + " is still running, as task " + id + ". Its result will be given to you when it ends, " +
		"in a later turn: do not call it again, and do not wait for it; go on with what does not depend on it."
}

func taskNote(task *Task) string {
	head := "Task " + task.ID + " (the call to " + task.Tool + ") "
	switch {
	case task.Status == TaskCompleted && task.Result != nil:
		return head + "has ended. Its result:\n" + task.Result.Text()
	case task.Status == TaskCancelled:
		return head + "was cancelled before it ended."
	default:
		return head + "failed, with no result: the process running it stopped or the tool crashed. " +
			"It did not finish; tell the user, and call it again only if they ask."
	}
}
