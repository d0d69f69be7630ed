package tool

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Result is the outcome of one call, whatever happened. Registry.Call
// always returns exactly one, so the agent loop can always answer the model.
//
// It has two views. The model view (Content, Structured, IsError) is what
// goes back to the model: short, escaped, bounded. The host view (Status,
// Err, timings) is for the host's logs and metrics and never reaches the
// model. Its JSON form is the model view alone, in the shape of MCP's
// CallToolResult: {"content":[…],"structuredContent":…,"isError":true}.
type Result struct {
	// Content is the model-visible answer, usually one text block.
	Content []Content `json:"content"`
	// Structured is the result as JSON, when the tool has one: a typed
	// tool's result other than a string or null. The output stage drops it
	// when it is over the size cap, when the text was cut, and (with a note
	// in Content) when it is not valid UTF-8 JSON. MCP carries only objects
	// as structuredContent; a list is sent there in the text alone.
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	// IsError tells the model the call failed.
	IsError bool `json:"isError,omitempty"`

	// Status says what happened, for the host.
	Status Status `json:"-"`
	// Err is the Go cause of a failure, for the host: the tool's error, a
	// *PanicError with its stack, an *ArgsError with the facts of an
	// invalid call.
	Err error `json:"-"`
	// CallID and Tool identify the call.
	CallID string `json:"-"`
	Tool   string `json:"-"`
	// Started and Duration time the call through the pipeline.
	Started  time.Time     `json:"-"`
	Duration time.Duration `json:"-"`
	// Truncated counts the bytes the output cap cut from the model view
	// (see Definition.MaxOutputBytes).
	Truncated int `json:"-"`
	// Pending is set when Status is StatusAwaitingApproval: what to show
	// the person, and the state to resume the call with.
	Pending *PendingApproval `json:"-"`
	// DryRun is set when Status is StatusDryRun: what would have run, and
	// how it would have been approved.
	DryRun *DryRun `json:"-"`
	// FromRecord is set when the call was answered from the record of an
	// earlier call with the same ID in the same session
	// ([RegistryOptions.Records]): the tool did not run again, and the
	// model view is the one the model was given then.
	FromRecord bool `json:"-"`

	// owned is set on results the pipeline made or copied: it may write
	// into them. A result a tool or a middleware returns is the tool's (it
	// may hand the same one to every call), and is copied first.
	owned bool
	// trusted is set when Structured came from json.Marshal here, which
	// writes valid UTF-8 JSON: the output stage need not check it again.
	trusted bool
	// ran is set by the run stage on the result of a call whose tool
	// started: only such a call is recorded for its twins (record.go).
	ran bool
}

// own returns r, or a copy of it the pipeline may write into.
func (r *Result) own() *Result {
	if r.owned {
		return r
	}
	c := *r
	c.Content = slices.Clone(r.Content)
	c.owned, c.trusted, c.ran = true, false, false
	return &c
}

// TextResult returns a successful result holding one text block.
func TextResult(s string) *Result {
	return &Result{Content: []Content{TextContent(s)}}
}

// Text returns the model view as text: the text blocks (and embedded text
// resources) joined by newlines, with a short note in brackets for each
// other block ("[image image/png, 1204 bytes]"). It is what a host that
// can only send text gives the model.
func (r *Result) Text() string {
	if r == nil {
		return ""
	}
	if len(r.Content) == 1 && r.Content[0].Type == ContentText {
		return r.Content[0].Text
	}
	var b strings.Builder
	for i, c := range r.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch {
		case c.Type == ContentText, c.Type == ContentResource && c.Data == nil:
			b.WriteString(c.Text)
		default:
			b.WriteString("[" + c.describe() + "]")
		}
	}
	return b.String()
}

// Status is what happened to a call, for the host.
type Status uint8

const (
	// StatusOK: the tool ran and succeeded.
	StatusOK Status = iota
	// StatusInvalid: the arguments failed preflight; the tool did not run.
	StatusInvalid
	// StatusDenied: approval was refused; the tool did not run.
	StatusDenied
	// StatusCanceled: the caller's context was cancelled.
	StatusCanceled
	// StatusTimedOut: the call ran past its deadline.
	StatusTimedOut
	// StatusFailed: the tool returned an error.
	StatusFailed
	// StatusPanicked: the tool panicked or exited its goroutine.
	StatusPanicked
	// StatusUnknownTool: no tool has the requested name.
	StatusUnknownTool
	// StatusAwaitingApproval: the approver will answer later
	// ([DecisionDefer]); the tool has not run. Result.Pending says how to
	// resume the call.
	StatusAwaitingApproval
	// StatusLimited: a [CallLimit] of the tool refused the call (too many
	// running, or over its rate); the tool did not run. Err is a
	// *LimitError, or [ErrTooManyCalls] for a call past its batch's
	// BatchOptions.MaxCalls.
	StatusLimited
	// StatusDryRun: the call was a dry run ([Request.DryRun]) and passed
	// preflight; the tool did not run. Result.DryRun says what would have
	// run. It is the one status other than StatusOK that is not an error.
	StatusDryRun
	// StatusConflict: an earlier call with the same ID in the session
	// was made with other arguments (or to another tool), or is still
	// running ([RegistryOptions.Records]); this one did not run.
	StatusConflict
)

var statusNames = [...]string{"ok", "invalid", "denied", "canceled", "timed_out", "failed", "panicked", "unknown_tool", "awaiting_approval",
	"limited", "dry_run", "conflict"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the status name, for logs.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
