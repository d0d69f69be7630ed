package codetools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/workspace"
)

// EditFileArgs are the arguments of edit_file.
type EditFileArgs struct {
	Path       string `json:"path" jsonschema:"minLength=1" jsonschema_description:"The file to change, relative to the workspace root"`
	OldString  string `json:"old_string" jsonschema:"minLength=1" jsonschema_description:"The exact text to replace, as read_file shows it without the line numbers and the tab after them. It must occur once in the file, unless replace_all is set: include enough of the lines around it to make it unique"`
	NewString  string `json:"new_string" jsonschema_description:"The text to put in its place; empty to delete it"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema_description:"Replace every occurrence of old_string"`
}

// Validate refuses an edit that changes nothing, in preflight.
func (a EditFileArgs) Validate() error {
	if a.OldString == a.NewString {
		return &tool.Error{Message: "old_string and new_string are the same, so the edit would change nothing",
			Hint: "put the text as it should become in new_string"}
	}
	return nil
}

const editFileDescription = `Changes a file by replacing an exact piece of text: old_string must occur exactly once (or set replace_all to replace every occurrence).
Read the file with read_file first: the edit is refused if the file changed since you last read it. The user sees the change as a diff and may refuse it.`

// maxDiffLines bounds the diff an answer shows.
const maxDiffLines = 120

// editPlan is an edit worked out but not made.
type editPlan struct {
	shown    string
	old, new string
	count    int
	lines    []int // where the first occurrences start, from 1
}

func (ts *Toolset) editFile() tool.AnyTool {
	def := tool.Definition{Name: "edit_file", Title: "Edit a file", Description: editFileDescription, Safety: tool.SafetyMutating}
	t := tool.New(def, func(ctx context.Context, in EditFileArgs) (string, error) {
		p, err := ts.planEdit(ctx, in)
		if err != nil {
			return "", err
		}
		if err := ts.ws.WriteFile(in.Path, []byte(p.new)); err != nil {
			return "", err
		}
		ts.reads.remember(session(ctx), p.shown, []byte(p.new))
		return fmt.Sprintf("Edited %s: replaced %s.\n%s", p.shown, p.what(), boundDiff(tool.Edit{Path: p.shown, Old: p.old, New: p.new}.Diff())), nil
	})
	return tool.WithApprovalHooks(t, tool.ApprovalHooks[EditFileArgs]{
		Describe: func(ctx context.Context, in EditFileArgs) (tool.Preview, error) {
			p, err := ts.planEdit(ctx, in)
			if err != nil {
				return tool.Preview{Title: "Edit " + in.Path, Summary: "This edit will be refused: " + messageOf(err), Locations: []string{in.Path}}, nil
			}
			return tool.Preview{Title: "Edit " + p.shown, Summary: "Replace " + p.what() + ".",
				Edits: []tool.Edit{{Path: p.shown, Old: p.old, New: p.new}}, Locations: []string{p.shown}}, nil
		},
	})
}

func (p editPlan) what() string {
	if p.count == 1 {
		return "1 occurrence at " + at(p.lines, p.count)
	}
	return fmt.Sprintf("%d occurrences at %s", p.count, at(p.lines, p.count))
}

// at names the lines where occurrences start, and says when there are more.
func at(lines []int, count int) string {
	where := make([]string, len(lines))
	for i, l := range lines {
		where[i] = strconv.Itoa(l)
	}
	s := "line " + strings.Join(where, ", ")
	if len(where) > 1 {
		s = "lines " + strings.Join(where, ", ")
	}
	if count > len(lines) {
		s += ", …"
	}
	return s
}

// planEdit works out an edit: the file as it is and as it will be, or why
// the edit is refused.
func (ts *Toolset) planEdit(ctx context.Context, in EditFileArgs) (editPlan, error) {
	shown, err := ts.ws.Check(in.Path, workspace.Write)
	if err != nil {
		return editPlan{}, err
	}
	data, err := ts.ws.ReadFile(in.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return editPlan{}, withHint(err, "edit_file changes existing files; to make a new one, use write_file")
	}
	if err != nil {
		return editPlan{}, readHint(err)
	}
	if err := ts.fresh(ctx, shown, data); err != nil {
		return editPlan{}, err
	}
	text := string(data)
	oldS, newS := in.OldString, in.NewString
	n := strings.Count(text, oldS)
	if n == 0 && strings.Contains(text, "\r\n") && strings.Contains(oldS, "\n") && !strings.Contains(oldS, "\r\n") {
		// read_file shows lines without their \r: match the file's line ends.
		crlf := strings.ReplaceAll(oldS, "\n", "\r\n")
		if c := strings.Count(text, crlf); c > 0 {
			oldS, newS, n = crlf, strings.ReplaceAll(newS, "\n", "\r\n"), c
		}
	}
	lines := occurrences(text, oldS, 10)
	switch {
	case n == 0:
		return editPlan{}, &tool.Error{Message: fmt.Sprintf("old_string was not found in %s", shown),
			Hint: "copy the text exactly as read_file shows it, without the line numbers, keeping its indentation; read the file again if unsure"}
	case n > 1 && !in.ReplaceAll:
		return editPlan{}, &tool.Error{Message: fmt.Sprintf("old_string occurs %d times in %s (at %s)", n, shown, at(lines, n)),
			Hint: "include more of the surrounding lines in old_string so that it occurs once, or set replace_all to replace every occurrence"}
	}
	// The file as it would become, measured before it is built: a short
	// old_string that occurs millions of times, each replaced by a long
	// new_string, would otherwise cost gigabytes to refuse.
	count := 1
	if in.ReplaceAll {
		count = n
	}
	if grown := int64(len(text)) + int64(count)*(int64(len(newS))-int64(len(oldS))); grown > ts.ws.MaxWriteBytes() {
		return editPlan{}, &tool.Error{
			Message: fmt.Sprintf("the edit would make %s %d bytes, over the %d-byte write limit", shown, grown, ts.ws.MaxWriteBytes()),
			Hint:    "make a smaller change: replace fewer occurrences (without replace_all), or with shorter text"}
	}
	out := strings.Replace(text, oldS, newS, 1)
	if in.ReplaceAll {
		out = strings.ReplaceAll(text, oldS, newS)
	}
	return editPlan{shown: shown, old: text, new: out, count: n, lines: lines}, nil
}

// fresh refuses to change a file the model has not seen as it is now, in
// this conversation (the call's session).
func (ts *Toolset) fresh(ctx context.Context, shown string, data []byte) error {
	switch ts.reads.check(session(ctx), shown, data) {
	case notSeen:
		return &tool.Error{Message: fmt.Sprintf("%s has not been read in this conversation, so it is not changed", shown),
			Hint: "read it with read_file first, then make the change"}
	case seenOther:
		return &tool.Error{Message: fmt.Sprintf("%s changed since you last read it, so it is not changed", shown),
			Hint: "read it again with read_file, and make the change on what it holds now"}
	}
	return nil
}

// occurrences returns the line numbers (from 1) where the first max
// occurrences of s in text start.
func occurrences(text, s string, max int) []int {
	var out []int
	line, off := 1, 0
	for len(out) < max {
		i := strings.Index(text[off:], s)
		if i < 0 {
			break
		}
		line += strings.Count(text[off:off+i], "\n")
		out = append(out, line)
		line += strings.Count(s, "\n")
		off += i + len(s)
	}
	return out
}

func boundDiff(d string) string {
	lines := strings.SplitAfter(d, "\n")
	if len(lines) <= maxDiffLines {
		return d
	}
	return strings.Join(lines[:maxDiffLines], "") + fmt.Sprintf("[… %d more lines of diff]\n", len(lines)-maxDiffLines)
}

// messageOf is what the model is told of err.
func messageOf(err error) string {
	var te *tool.Error
	if errors.As(err, &te) && te.Message != "" {
		return te.Message
	}
	return "it cannot be made"
}
