package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Question is the approval question as plain text, for a frontend that
// asks a person in words: a chat message, an MCP client's form, ADK's
// confirmation hint, a terminal. It names the tool and the class of the
// call, says why the person is asked, gives the tool's preview (its
// title, summary, diffs and the places it touches; nothing for a preview
// made from the arguments, which follow anyway), and ends with the
// arguments that will run.
//
// The arguments are always there whole: they are what runs, and a person
// allows only what they can read (the registry bounds them already, by
// [Limits].MaxBytes). The preview is the tool's account of them, and is
// cut to at most previewMax bytes (0 or less: whole), ending with a note
// of how much of it is shown (a bound shorter than that note, about 60
// bytes, leaves the note alone). Every part is as the request holds it: characters that do not
// show are escapes already.
func (ar ApprovalRequest) Question(previewMax int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow %s to run?", ar.DisplayName)
	if ar.DisplayName != ar.Tool {
		fmt.Fprintf(&b, " (tool %s)", ar.Tool)
	}
	b.WriteString(" It is " + safetyWords(ar.Safety) + ".")
	if r := ar.Requirement.Reason; r != "" {
		b.WriteString("\nWhy you are asked: " + r)
		if ar.Requirement.Scope != "" {
			b.WriteString(" (" + ar.Requirement.Scope + ")")
		}
	}
	if p := previewText(ar.Preview); p != "" {
		b.WriteString("\n\n" + cutPreview(p, previewMax))
	}
	b.WriteString("\n\nArguments: " + ar.ArgsText)
	return b.String()
}

// safetyWords says a class of call as a person reads it in a question.
func safetyWords(s Safety) string {
	switch s {
	case SafetyReadOnly:
		return "read-only"
	case SafetyDestructive:
		return "destructive (it may lose data)"
	case SafetyNetwork:
		return "a network call"
	default:
		return "a change (it writes)"
	}
}

// previewText is a preview as the question shows it: empty for one made
// from the arguments, which the question ends with.
func previewText(p Preview) string {
	if p.Basic {
		return ""
	}
	var head []string
	for _, s := range []string{p.Title, p.Summary} {
		if s != "" {
			head = append(head, s)
		}
	}
	var parts []string
	if len(head) > 0 {
		parts = append(parts, strings.Join(head, "\n"))
	}
	for _, e := range p.Edits {
		parts = append(parts, e.Path+"\n"+strings.TrimSuffix(e.Diff(), "\n"))
	}
	if len(p.Locations) > 0 {
		parts = append(parts, "Touches: "+strings.Join(p.Locations, ", "))
	}
	return strings.Join(parts, "\n\n")
}

// cutPreview cuts a preview to at most limit bytes on a character
// boundary, ending with how much was left out (limit <= 0: whole).
func cutPreview(p string, limit int) string {
	if limit <= 0 || len(p) <= limit {
		return p
	}
	const mark = "\n[… the preview is cut here: %d of its %d bytes are shown]"
	i := limit - len(fmt.Sprintf(mark, len(p), len(p))) // the longest the mark can be
	for i > 0 && !utf8.RuneStart(p[i]) {
		i--
	}
	i = max(i, 0)
	return p[:i] + fmt.Sprintf(mark, i, len(p))
}
