package tooladk

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolbelt-go/tool"
)

// This file writes every sentence tooladk adds to what the model or the
// person reads; the pipeline writes the rest (the root's
// result_pipeline.go). A change of wording is a change here.

// maxHint bounds the question a person is shown: a diff of a large edit is
// cut, not sent whole to the UI.
const maxHint = 8 << 10

// maxReason bounds the reason a person gives with a rejection, which the
// model reads.
const maxReason = 1 << 10

// hint is the question ADK's UIs show for one call (the
// ToolConfirmation's hint), from what the approval step made visible
// (control, bidirectional and zero-width characters are already shown as
// escapes), bounded to maxHint.
func hint(ar tool.ApprovalRequest) string {
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
	if p.Basic {
		// Made from the arguments, which the question ends with.
		p = tool.Preview{}
	}
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
	return cut(b.String(), maxHint)
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

// notThroughADK and notThroughADKHint are what the model reads when the
// host chose [Approver] and a call came by another path than a Toolset,
// where ADK's confirmation cannot ask.
const (
	notThroughADK     = "it needs the user's approval, which only the ADK agent can ask for, and it did not come through the ADK agent"
	notThroughADKHint = "tell the user it needs their approval"
)

// notRelayed is what the model reads of a call whose approval was deferred
// to a party ADK's confirmation cannot stand for (another approver that
// does not wait for its answer), or that needed asking again while it was
// being resumed, when ADK shows no new question.
func notRelayed(name string) string {
	return "The call to " + name + " needs the user's approval, which could not be asked for in this conversation, " +
		"so it did not run. Do not repeat it now; tell the user it needs their approval."
}

// argsNotEncodable is what the model reads of a call whose arguments,
// changed on the way (a before-tool callback), are not JSON.
func argsNotEncodable(name string) string {
	return "Error: the arguments of this call to " + name + " could not be read as JSON, so it did not run. Send them again as a JSON object."
}

// stateFailed is what the model reads when the host could not make the
// call's state ([Options].State failed); the cause is the host's alone.
func stateFailed(name string) string {
	return "Error: the call to " + name + " could not be prepared by the application, so it did not run. This is not a problem with your arguments."
}

// noOutput is what the model is told of a result with nothing in it.
const noOutput = "(the tool returned no output)"

// failedNoText is what the model is told of a failed result with no text.
const failedNoText = "the tool failed"

// cut bounds s to n bytes on a rune boundary, saying that it was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "\n[… cut]"
	i := n - len(mark)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + mark
}
