package codetools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/workspace"
)

// ReadFileArgs are the arguments of read_file.
type ReadFileArgs struct {
	Path string `json:"path" jsonschema:"minLength=1" jsonschema_description:"The file to read, relative to the workspace root"`
	tool.OutputArgs
}

// readGuard shows 500 lines at a time: about 20 KB of code, under the
// default output cap.
var readGuard = tool.OutputGuard{ExploreCap: 500, PageLimit: 500}

// maxLineBytes cuts a single line (minified code, a data blob).
const maxLineBytes = 2000

const readFileDescription = `Reads a text file of the workspace and shows its lines, numbered from 1.
Shows the first 500 lines; for the others pass detail_level "full" with offset (the index of the first line, from 0: offset 500 starts at line 501) and limit.
A binary file is not shown. Reading a file is what lets edit_file and write_file change it later: they refuse a file that changed since you read it.`

func (ts *Toolset) readFile() tool.AnyTool {
	def := tool.Definition{Name: "read_file", Title: "Read a file", Description: readFileDescription,
		Safety: tool.SafetyReadOnly, Idempotent: true}
	return tool.New(def, func(ctx context.Context, in ReadFileArgs) (*tool.Result, error) {
		shown, err := ts.ws.Check(in.Path, workspace.Read)
		if err != nil {
			return nil, err
		}
		data, err := ts.ws.ReadFile(in.Path)
		if err != nil {
			return nil, readHint(err)
		}
		ts.reads.remember(session(ctx), shown, data)
		if len(data) == 0 {
			return tool.TextResult(shown + " is empty (0 bytes)."), nil
		}
		if isBinary(data) {
			return tool.TextResult(fmt.Sprintf("%s is a binary file (%d bytes); its content is not shown.", shown, len(data))), nil
		}
		return tool.TextResult(numbered(shown, string(data), in.OutputArgs)), nil
	})
}

// numbered renders the lines the output arguments select, with their
// numbers, a heading and, when lines were left out, how to see them.
func numbered(shown, text string, a tool.OutputArgs) string {
	// Only the lines shown are split out: a slice of every line cost 16
	// bytes a line, 144 MB for 8 MiB of newlines.
	text = strings.TrimSuffix(text, "\n")
	total := strings.Count(text, "\n") + 1
	sel, over := tool.CapItems(readGuard, make([]struct{}, total), a) // an offset pages, whatever the detail level
	first := min(max(a.Offset, 0), total)
	page := linesAt(text, first, len(sel))
	var b strings.Builder
	switch {
	case len(page) == 0:
		fmt.Fprintf(&b, "%s has %d lines; offset %d is past the end.\n", shown, total, a.Offset)
	case over == nil:
		fmt.Fprintf(&b, "%s (%d lines)\n", shown, total)
	default:
		fmt.Fprintf(&b, "%s (lines %d to %d of %d)\n", shown, first+1, first+len(page), total)
	}
	width := len(strconv.Itoa(first + len(page)))
	for i, l := range page {
		fmt.Fprintf(&b, "%*d\t%s\n", max(width, 4), first+i+1, cutLine(l, maxLineBytes))
	}
	if over != nil && len(page) > 0 {
		if next := first + len(page); next < total {
			fmt.Fprintf(&b, "[%d more lines. To read on, call read_file with detail_level \"full\" and offset %d.]\n",
				total-next, next)
		}
	}
	return b.String()
}

// linesAt returns n lines of text from the line of index first, without
// their line ends.
func linesAt(text string, first, n int) []string {
	for range first {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return nil
		}
		text = text[i+1:]
	}
	lines := make([]string, 0, n)
	for range n {
		l, rest, found := strings.Cut(text, "\n")
		lines = append(lines, strings.TrimSuffix(l, "\r"))
		if !found {
			break
		}
		text = rest
	}
	return lines
}

// cutLine cuts l to at most n bytes, on a character boundary, saying how
// much was cut.
func cutLine(l string, n int) string {
	if len(l) <= n {
		return l
	}
	for n > 0 && !utf8.RuneStart(l[n]) {
		n--
	}
	return l[:n] + fmt.Sprintf(" … [line cut: %d more bytes]", len(l)-n)
}

// isBinary uses git's test: a NUL byte in the first 8000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// withHint returns err with the model's hint replaced, when err is a
// *tool.Error; the workspace's hints are general, a tool knows which of
// the toolset's tools helps.
func withHint(err error, hint string) error {
	var te *tool.Error
	if !errors.As(err, &te) {
		return err
	}
	c := *te
	c.Hint = hint
	return &c
}

func readHint(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return withHint(err, "check the path with list_dir or find")
	case errors.Is(err, workspace.ErrTooLarge):
		return withHint(err, "find the lines you need with grep, then read around them with run_shell (sed -n '120,180p' FILE)")
	}
	return err
}
