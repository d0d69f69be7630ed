package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/toolbelt-go/tool"
)

// Step is one scripted answer of an [Approver].
type Step func(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error)

// AllowOnce answers allow-once.
func AllowOnce() Step { return decide(tool.Decision{Kind: tool.DecisionAllowOnce}) }

// AllowAlways answers allow-always.
func AllowAlways() Step { return decide(tool.Decision{Kind: tool.DecisionAllowAlways}) }

// Deny answers deny, with the reason the model is shown.
func Deny(reason string) Step { return decide(tool.Decision{Kind: tool.DecisionDeny, Reason: reason}) }

// Edit answers with new arguments for the call.
func Edit(args string) Step {
	return decide(tool.Decision{Kind: tool.DecisionEdit, Args: json.RawMessage(args)})
}

// Defer answers "later" ([tool.DecisionDefer]): the call ends
// [tool.StatusAwaitingApproval], and Result.Pending resumes it.
func Defer() Step { return decide(tool.Decision{Kind: tool.DecisionDefer}) }

// Fail makes the approver return err.
func Fail(err error) Step {
	return func(context.Context, tool.ApprovalRequest) (tool.Decision, error) { return tool.Decision{}, err }
}

// Panic makes the approver panic with v.
func Panic(v any) Step {
	return func(context.Context, tool.ApprovalRequest) (tool.Decision, error) { panic(v) }
}

// Hang makes the approver wait until its context is done, as a person who
// walked away would, then return the context's error.
func Hang() Step {
	return func(ctx context.Context, _ tool.ApprovalRequest) (tool.Decision, error) {
		<-ctx.Done()
		return tool.Decision{}, ctx.Err()
	}
}

func decide(d tool.Decision) Step {
	return func(context.Context, tool.ApprovalRequest) (tool.Decision, error) { return d, nil }
}

// ErrScriptDone is what an [Approver] returns once its script is used up:
// an unexpected request, which the pipeline turns into "not run".
var ErrScriptDone = errors.New("tooltest: the approver's script has no more answers")

// Approver is a [tool.Approver] that answers from a script, in order, and
// records every request it is shown (previews included). Use it as
// ApprovalOptions.Approver. Safe for concurrent use.
type Approver struct {
	mu       sync.Mutex
	script   []Step
	requests []tool.ApprovalRequest
}

// NewApprover returns an approver that gives the answers in order.
func NewApprover(steps ...Step) *Approver { return &Approver{script: steps} }

// Approve records req and plays the next step of the script.
func (a *Approver) Approve(ctx context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	a.mu.Lock()
	a.requests = append(a.requests, req)
	var step Step
	if len(a.script) > 0 {
		step, a.script = a.script[0], a.script[1:]
	}
	a.mu.Unlock()
	if step == nil {
		return tool.Decision{}, ErrScriptDone
	}
	return step(ctx, req)
}

// Requests returns the requests the approver was shown, in order.
func (a *Approver) Requests() []tool.ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.requests)
}

// Asked returns how many requests the approver was shown.
func (a *Approver) Asked() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.requests)
}

// Left returns how many scripted answers are unused.
func (a *Approver) Left() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.script)
}
