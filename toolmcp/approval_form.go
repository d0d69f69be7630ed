package toolmcp

import (
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// approvalInput is the key of the approval question among a result's
// input requests (SEP-2322), and so of its answer in the retried call.
const approvalInput = "approval"

// The answers of the approval form's "decision" field.
const (
	answerAllowOnce   = "allow_once"
	answerAllowAlways = "allow_always"
	answerDeny        = "deny"
)

// maxFormMessage bounds the text of the approval question: a diff of a
// large edit is cut, not sent whole to the client's dialog.
const maxFormMessage = 8 << 10

// maxReason bounds the reason a person gives with a deny, which the model
// reads.
const maxReason = 1 << 10

// approvalForm is the elicitation that asks the client's user about one
// call: a message that says what will run, and a form with one choice
// (allow once, allow always where it can apply, deny) and an optional
// reason. The schema keeps to what every elicitation-capable client
// renders: a flat object of a string enum (with enumNames, the form that
// protocol versions before 2025-11-25 know) and a string.
func approvalForm(ar tool.ApprovalRequest) *sdk.ElicitParams {
	values := []any{answerAllowOnce}
	names := []any{"Allow once"}
	// "Allow always" is offered only where it can hold: the core remembers
	// nothing for a call without a session, nor for ask-always calls.
	if ar.Session != "" && ar.Requirement.Mode != tool.RequireAskAlways {
		values = append(values, answerAllowAlways)
		names = append(names, "Allow always (this session)")
	}
	values = append(values, answerDeny)
	names = append(names, "Deny")
	return &sdk.ElicitParams{
		Mode:    "form",
		Message: approvalMessage(ar),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"decision": map[string]any{
					"type":      "string",
					"title":     "Decision",
					"enum":      values,
					"enumNames": names,
				},
				"reason": map[string]any{
					"type":        "string",
					"title":       "Reason",
					"description": "Optional: why you deny the call. The model reads it.",
					"maxLength":   maxReason,
				},
			},
			"required": []any{"decision"},
		},
	}
}

// approvalMessage says what the call will do, from what the approval step
// made visible (control, bidirectional and zero-width characters are
// already shown as escapes), bounded to maxFormMessage.
func approvalMessage(ar tool.ApprovalRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow %s to run?", ar.DisplayName)
	if ar.DisplayName != ar.Tool {
		fmt.Fprintf(&b, " (tool %s)", ar.Tool)
	}
	fmt.Fprintf(&b, " It is %s.", safetyWords(ar.Safety))
	if r := ar.Requirement.Reason; r != "" {
		b.WriteString("\nWhy you are asked: " + r)
		if ar.Requirement.Scope != "" {
			b.WriteString(" (" + ar.Requirement.Scope + ")")
		}
	}
	p := ar.Preview
	if p.Title != "" {
		b.WriteString("\n\n" + p.Title)
	}
	if p.Summary != "" {
		b.WriteString("\n" + p.Summary)
	}
	for _, e := range p.Edits {
		b.WriteString("\n\n" + e.Path + "\n" + e.Diff())
	}
	if len(p.Locations) > 0 {
		b.WriteString("\n\nTouches: " + strings.Join(p.Locations, ", "))
	}
	b.WriteString("\n\nArguments: " + ar.ArgsText)
	return cut(b.String(), maxFormMessage)
}

func safetyWords(s tool.Safety) string {
	switch s {
	case tool.SafetyReadOnly:
		return "read-only"
	case tool.SafetyDestructive:
		return "destructive (it may lose data)"
	case tool.SafetyNetwork:
		return "a network call"
	default:
		return "a change (it writes)"
	}
}

// decisionFrom reads the client's answer to the approval form. Anything
// but an accepted form whose decision is one of the offered values denies
// the call: decline, cancel, an unknown action, a missing or unknown
// decision. The answer comes from the client unchecked when it arrives in
// a retried call (SEP-2322), so nothing in it is trusted beyond that.
func decisionFrom(res *sdk.ElicitResult) tool.Decision {
	if res == nil {
		return tool.Decision{Kind: tool.DecisionDeny, Reason: "the client sent no answer to the approval question"}
	}
	switch res.Action {
	case "accept":
	case "decline":
		return tool.Decision{Kind: tool.DecisionDeny, Reason: withReason("the user declined", res.Content)}
	case "cancel":
		return tool.Decision{Kind: tool.DecisionDeny, Reason: "the user dismissed the approval question without answering"}
	default:
		return tool.Decision{Kind: tool.DecisionDeny, Reason: "the client answered the approval question with an unknown action"}
	}
	d, _ := res.Content["decision"].(string)
	switch d {
	case answerAllowOnce:
		return tool.Decision{Kind: tool.DecisionAllowOnce}
	case answerAllowAlways:
		// The core keeps "always" only where it applies (a session, not an
		// ask-always call), so an answer the form did not offer cannot
		// allow more than once.
		return tool.Decision{Kind: tool.DecisionAllowAlways}
	case answerDeny:
		return tool.Decision{Kind: tool.DecisionDeny, Reason: withReason("the user denied it", res.Content)}
	default:
		return tool.Decision{Kind: tool.DecisionDeny, Reason: "the client's answer to the approval question had no valid decision"}
	}
}

// withReason appends the reason the person typed, if any, cut to
// maxReason. The core escapes it before the model reads it.
func withReason(base string, content map[string]any) string {
	r, _ := content["reason"].(string)
	r = strings.TrimSpace(r)
	if r == "" {
		return base
	}
	return base + ": " + cut(r, maxReason)
}

// cut returns s cut to at most max bytes on a character boundary, with an
// ellipsis when something was cut.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
