package tooladk

import "unicode/utf8"

// This file writes every sentence tooladk adds to what the model or the
// person reads; the pipeline writes the rest (the root's
// result_pipeline.go, and the approval question: tool.ApprovalRequest's
// Question, the same on every frontend). A change of wording is a change
// here.

// maxHint bounds the tool's preview in the question a person is shown (a
// diff of a large edit is cut, not sent whole to the UI); the arguments
// that will run are always whole (tool.ApprovalRequest's Question).
const maxHint = 8 << 10

// maxReason bounds the reason a person gives with a rejection, which the
// model reads.
const maxReason = 1 << 10

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
