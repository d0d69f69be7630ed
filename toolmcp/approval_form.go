package toolmcp

import (
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// The approval form: what [Approver] asks the client's user, and what a
// client answers. A client that answers by script (a test, a bot, a web
// page of its own) needs only these names.
//
// The form is an elicitation in form mode. Before protocol 2026-07-28 it is
// sent during the call (elicitation/create); from 2026-07-28 on it is the
// input request under [ApprovalInputKey] of an input-required tools/call
// result, answered in the retried call's inputResponses under the same
// key, beside the result's requestState. Its requestedSchema is, with
// allow_always offered only where it can hold (a call in a session, not an
// ask-always call):
//
//	{
//	  "type": "object",
//	  "properties": {
//	    "decision": {"type": "string", "title": "Decision",
//	      "enum": ["allow_once", "allow_always", "deny"],
//	      "enumNames": ["Allow once", "Allow always (this session)", "Deny"]},
//	    "reason": {"type": "string", "title": "Reason", "maxLength": 1024,
//	      "description": "Optional: why you deny the call. The model reads it."}
//	  },
//	  "required": ["decision"]
//	}
//
// The answer is an elicitation result: action "accept" with content
// {"decision": "allow_once"} runs the call;
// {"decision": "deny", "reason": "not that file"} denies it and the model
// reads the reason. Action "decline" denies it (a reason in the content is
// passed on); "cancel" denies it as dismissed. Anything else (a decision
// not among the values, a missing one, another action) denies it too.
const (
	// ApprovalInputKey is the key of the approval question among an
	// input-required result's inputRequests, and of its answer among the
	// retried call's inputResponses (SEP-2322, protocol 2026-07-28 on).
	ApprovalInputKey = "approval"
	// ApprovalFieldDecision names the form's one required field, a string
	// that is one of [ApprovalAllowOnce], [ApprovalAllowAlways] and
	// [ApprovalDeny].
	ApprovalFieldDecision = "decision"
	// ApprovalFieldReason names the form's optional string field: why the
	// user denies the call. The model reads it, escaped; at most 1,024
	// bytes of it are kept.
	ApprovalFieldReason = "reason"

	// ApprovalAllowOnce runs this call.
	ApprovalAllowOnce = "allow_once"
	// ApprovalAllowAlways runs this call and, for the rest of the session,
	// the calls to this tool that the same answer covers
	// ([tool.DecisionAllowAlways]). It is offered only where it can hold;
	// sent where it was not offered, it allows this call once.
	ApprovalAllowAlways = "allow_always"
	// ApprovalDeny does not run the call; the model reads the reason.
	ApprovalDeny = "deny"
)

// maxFormPreview bounds the tool's preview in the approval question: a
// diff of a large edit is cut, not sent whole to the client's dialog. The
// arguments that will run are always sent whole (tool.ApprovalRequest's
// Question).
const maxFormPreview = 8 << 10

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
	values := []any{ApprovalAllowOnce}
	names := []any{"Allow once"}
	// "Allow always" is offered only where it can hold: the core remembers
	// nothing for a call without a session, nor for ask-always calls.
	if ar.Session != "" && ar.Requirement.Mode != tool.RequireAskAlways {
		values = append(values, ApprovalAllowAlways)
		names = append(names, "Allow always (this session)")
	}
	values = append(values, ApprovalDeny)
	names = append(names, "Deny")
	return &sdk.ElicitParams{
		Mode:    "form",
		Message: ar.Question(maxFormPreview),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				ApprovalFieldDecision: map[string]any{
					"type":      "string",
					"title":     "Decision",
					"enum":      values,
					"enumNames": names,
				},
				ApprovalFieldReason: map[string]any{
					"type":        "string",
					"title":       "Reason",
					"description": "Optional: why you deny the call. The model reads it.",
					"maxLength":   maxReason,
				},
			},
			"required": []any{ApprovalFieldDecision},
		},
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
	d, _ := res.Content[ApprovalFieldDecision].(string)
	switch d {
	case ApprovalAllowOnce:
		return tool.Decision{Kind: tool.DecisionAllowOnce}
	case ApprovalAllowAlways:
		// The core keeps "always" only where it applies (a session, not an
		// ask-always call), so an answer the form did not offer cannot
		// allow more than once.
		return tool.Decision{Kind: tool.DecisionAllowAlways}
	case ApprovalDeny:
		// The core tells the model "the user said: " and the reason, or
		// that none was given.
		return tool.Decision{Kind: tool.DecisionDeny, Reason: reason(res.Content)}
	default:
		return tool.Decision{Kind: tool.DecisionDeny, Reason: "the client's answer to the approval question had no valid decision"}
	}
}

// withReason appends the reason the person typed, if any.
func withReason(base string, content map[string]any) string {
	if r := reason(content); r != "" {
		return base + ": " + r
	}
	return base
}

// reason is the reason the person typed, trimmed and cut to maxReason. The
// core escapes it before the model reads it.
func reason(content map[string]any) string {
	r, _ := content[ApprovalFieldReason].(string)
	return cut(strings.TrimSpace(r), maxReason)
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
