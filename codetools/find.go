package codetools

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/workspace"
)

// FindArgs are the arguments of find.
type FindArgs struct {
	Pattern        string `json:"pattern" jsonschema:"minLength=1,maxLength=1024" jsonschema_description:"A glob. Without a slash it matches names at any depth (*.go, Makefile); with one, paths from path (cmd/*/main.go); ** matches any number of directories (**/testdata/*.json); a trailing / matches directories only"`
	Path           string `json:"path,omitempty" jsonschema:"default=." jsonschema_description:"The directory to search, relative to the workspace root"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema_description:"Also search what .gitignore files exclude"`
	tool.OutputArgs
}

// Validate checks the pattern, in preflight.
func (a FindArgs) Validate() error { return checkGlob(a.Pattern, "pattern") }

func checkGlob(p, key string) error {
	if strings.HasPrefix(p, "!") {
		return &tool.Error{Message: key + ` starts with "!", which would match nothing`, Hint: "write the pattern of the paths you want"}
	}
	if _, err := workspace.ParsePatterns(p); err != nil {
		return &tool.Error{Message: fmt.Sprintf("%s %q is not a valid glob", key, p), Hint: "close every [ with ]; * and ? match within a name, ** across directories"}
	}
	return nil
}

// FindResult is what find answers.
type FindResult struct {
	// Paths are relative to the workspace root, directories with a
	// trailing slash, in the order of a depth-first walk by name.
	Paths    []string       `json:"paths"`
	Overflow *tool.Overflow `json:"overflow,omitempty"`
	Note     string         `json:"note,omitempty"`
}

const findDescription = `Finds files and directories of the workspace whose path matches a glob, for example *_test.go or internal/**/*.go.
Skips what .gitignore files exclude (unless include_ignored) and protected files. Answers at most 200 paths; pass detail_level "full" with offset and limit to page through more.`

func (ts *Toolset) find() tool.AnyTool {
	def := tool.Definition{Name: "find", Title: "Find files", Description: findDescription, Safety: tool.SafetyReadOnly, Idempotent: true}
	return tool.New(def, func(ctx context.Context, in FindArgs) (FindResult, error) {
		if in.Path == "" {
			in.Path = "."
		}
		start, err := ts.ws.Check(in.Path, workspace.Read)
		if err != nil {
			return FindResult{}, err
		}
		pat, _ := workspace.ParsePatterns(in.Pattern)
		ig := newIgnorer(ts.ws, start, in.IncludeIgnored)
		var found []string
		visited, note := 0, ""
		unreadable, firstErr := 0, ""
		err = ts.ws.WalkDir(in.Path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				// A directory that cannot be read is left out, and said
				// to be: an answer of no path is not "nothing matches".
				if unreadable++; unreadable == 1 {
					firstErr = messageOf(err)
				}
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if visited++; visited > ts.opts.MaxWalk {
				note = fmt.Sprintf("stopped after visiting %d entries: search a smaller directory (path) for the rest", ts.opts.MaxWalk)
				return fs.SkipAll
			}
			if p == start {
				if d.IsDir() {
					ig.enter(p)
				}
				return nil
			}
			if ig.ignored(p, d.IsDir()) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if ig.exhausted {
				return fs.SkipAll
			}
			if d.IsDir() {
				ig.enter(p)
			}
			if m, _ := pat.Match(relTo(start, p), d.IsDir()); m {
				if d.IsDir() {
					p += "/"
				}
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return FindResult{}, readHint(err)
		}
		if unreadable > 0 {
			note = joinNotes(note, fmt.Sprintf("%d directories could not be listed, and what they hold was not searched (the first: %s)", unreadable, firstErr))
		}
		note = joinNotes(note, ig.note(visited))
		page, over := tool.CapFiles(tool.OutputGuard{}, found, in.OutputArgs)
		if page == nil {
			page = []string{}
		}
		if len(found) == 0 && note == "" {
			note = "no path matches; a pattern without a slash matches names at any depth, one with a slash matches from path"
		}
		return FindResult{Paths: page, Overflow: over, Note: note}, nil
	})
}

// relTo returns p, a path under start as the workspace shows both,
// relative to start and slash-separated.
func relTo(start, p string) string {
	start, p = filepath.ToSlash(start), filepath.ToSlash(p)
	if start == "." {
		return p
	}
	return strings.TrimPrefix(strings.TrimPrefix(p, start), "/")
}

// joinNotes joins the notes that are not empty.
func joinNotes(notes ...string) string {
	var kept []string
	for _, n := range notes {
		if n != "" {
			kept = append(kept, n)
		}
	}
	return strings.Join(kept, "; ")
}
