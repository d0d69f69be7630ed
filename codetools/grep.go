package codetools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/workspace"
)

// GrepArgs are the arguments of grep.
type GrepArgs struct {
	Pattern        string `json:"pattern" jsonschema:"minLength=1,maxLength=4096" jsonschema_description:"A regular expression in Go's RE2 syntax, matched against each line (func \\w+Handler, TODO\\(.*\\))"`
	Path           string `json:"path,omitempty" jsonschema:"default=." jsonschema_description:"A file, or a directory to search, relative to the workspace root"`
	Glob           string `json:"glob,omitempty" jsonschema:"maxLength=1024" jsonschema_description:"Only search files whose path from path matches this glob (*.go, **/*_test.go)"`
	IgnoreCase     bool   `json:"ignore_case,omitempty" jsonschema_description:"Match letters of either case"`
	Context        int    `json:"context,omitempty" jsonschema:"minimum=0,maximum=10" jsonschema_description:"Lines to show before and after each match"`
	IncludeIgnored bool   `json:"include_ignored,omitempty" jsonschema_description:"Also search what .gitignore files exclude"`
	tool.PageArgs
}

// Validate compiles the pattern and checks the glob, in preflight.
func (a GrepArgs) Validate() error {
	if _, err := compileGrep(a); err != nil {
		return err
	}
	if a.Glob != "" {
		return checkGlob(a.Glob, "glob")
	}
	return nil
}

func compileGrep(a GrepArgs) (*regexp.Regexp, error) {
	p := a.Pattern
	if a.IgnoreCase {
		p = "(?i)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		var se *syntax.Error
		why := "it does not compile"
		if errors.As(err, &se) {
			why = string(se.Code) + " in " + strconv.Quote(cutLine(se.Expr, 80))
		}
		return nil, &tool.Error{Message: "pattern is not a valid regular expression: " + why,
			Hint: `the syntax is Go's RE2 (no look-around, no backreferences); escape ( [ . * + ? with \ to match them literally`}
	}
	return re, nil
}

// GrepMatch is one matching line.
type GrepMatch struct {
	Path   string   `json:"path"`
	Line   int      `json:"line"`
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// GrepResult is one page of matches.
type GrepResult struct {
	Matches []GrepMatch `json:"matches"`
	Note    string      `json:"note,omitempty"`
}

// Bounds of grep's answers.
const (
	defaultGrepPage  = 50
	maxGrepLineBytes = 500
)

const grepDescription = `Searches the files of the workspace for lines that match a regular expression (Go RE2 syntax), with optional context lines. Skips binary files, what .gitignore files exclude (unless include_ignored) and protected files.
Matches come 50 to a page, in path order; call again with the next_cursor of the answer, the other arguments unchanged, for the next page.`

func (ts *Toolset) grep() tool.AnyTool {
	def := tool.Definition{Name: "grep", Title: "Search file contents", Description: grepDescription, Safety: tool.SafetyReadOnly, Idempotent: true}
	return tool.NewPaginated(def, func(ctx context.Context, in GrepArgs, page tool.Page) (GrepResult, []byte, error) {
		if in.Path == "" {
			in.Path = "."
		}
		re, err := compileGrep(in)
		if err != nil {
			return GrepResult{}, nil, err
		}
		start, err := ts.ws.Check(in.Path, workspace.Read)
		if err != nil {
			return GrepResult{}, nil, err
		}
		var glob *workspace.Patterns
		if in.Glob != "" {
			glob, _ = workspace.ParsePatterns(in.Glob)
		}
		size := page.Size
		if size <= 0 {
			size = defaultGrepPage
		}
		g := grepper{ts: ts, re: re, in: in, start: start, glob: glob, want: size + 1}
		if page.State != nil {
			g.afterPath, g.afterLine = parseGrepState(page.State)
		}
		if err := g.run(ctx); err != nil {
			return GrepResult{}, nil, readHint(err)
		}
		res := GrepResult{Matches: g.matches, Note: g.note()}
		if len(g.matches) > size {
			res.Matches = g.matches[:size]
			last := res.Matches[size-1]
			return res, []byte(last.Path + "\x00" + strconv.Itoa(last.Line)), nil
		}
		if res.Matches == nil {
			res.Matches = []GrepMatch{}
		}
		return res, nil, nil
	})
}

func parseGrepState(b []byte) (string, int) {
	p, l, _ := strings.Cut(string(b), "\x00")
	n, _ := strconv.Atoi(l)
	return p, n
}

type grepper struct {
	ts    *Toolset
	re    *regexp.Regexp
	in    GrepArgs
	start string
	glob  *workspace.Patterns
	want  int
	// Where the previous page ended, in walk order.
	afterPath string
	afterLine int

	ig                        *ignorer
	matches                   []GrepMatch
	visited                   int
	binary, large, unreadable int
	firstErr                  string // why the first directory that could not be read was not
	stopped                   bool
}

func (g *grepper) run(ctx context.Context) error {
	ig := newIgnorer(g.ts.ws, g.start, g.in.IncludeIgnored)
	g.ig = ig
	return g.ts.ws.WalkDir(g.in.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if g.unreadable++; g.firstErr == "" {
				g.firstErr = messageOf(err)
			}
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if g.visited++; g.visited > g.ts.opts.MaxWalk {
			g.stopped = true
			return fs.SkipAll
		}
		if d.IsDir() {
			if p != g.start && ig.ignored(p, true) {
				return fs.SkipDir
			}
			if ig.exhausted {
				return fs.SkipAll
			}
			// A directory wholly before the cursor has nothing left to show.
			if g.afterPath != "" && !isAncestor(filepath.ToSlash(p), filepath.ToSlash(g.afterPath)) && walkCompare(p, g.afterPath) < 0 {
				return fs.SkipDir
			}
			ig.enter(p)
			return nil
		}
		if !d.Type().IsRegular() || p != g.start && ig.ignored(p, false) {
			return nil
		}
		if ig.exhausted {
			return fs.SkipAll
		}
		if g.glob != nil {
			if m, _ := g.glob.Match(relTo(g.start, p), false); !m && p != g.start {
				return nil
			}
		}
		from := 0
		if g.afterPath != "" {
			switch c := walkCompare(p, g.afterPath); {
			case c < 0:
				return nil
			case c == 0:
				from = g.afterLine
			}
		}
		g.file(p, from)
		if len(g.matches) >= g.want {
			return fs.SkipAll
		}
		return nil
	})
}

// file searches one file, from line number from on (exclusive).
func (g *grepper) file(p string, from int) {
	data, err := g.ts.ws.ReadFile(p)
	switch {
	case errors.Is(err, workspace.ErrTooLarge):
		g.large++
		return
	case err != nil:
		g.unreadable++
		return
	case isBinary(data):
		g.binary++
		return
	}
	// Line by line, the lines before kept for context in a ring: a slice
	// of every line cost 24 bytes a line, 200 MB for 8 MiB of newlines.
	text := bytes.TrimSuffix(data, []byte("\n"))
	before := make([][]byte, 0, g.in.Context)
	for n := 1; ; n++ {
		l, rest, more := bytes.Cut(text, []byte("\n"))
		if n > from && g.re.Match(bytes.TrimSuffix(l, []byte("\r"))) {
			m := GrepMatch{Path: p, Line: n, Text: grepLine(l)}
			for _, b := range before {
				m.Before = append(m.Before, grepLine(b))
			}
			for after, next := rest, more; next && len(m.After) < g.in.Context; {
				var a []byte
				a, after, next = bytes.Cut(after, []byte("\n"))
				m.After = append(m.After, grepLine(a))
			}
			g.matches = append(g.matches, m)
			if len(g.matches) >= g.want {
				return
			}
		}
		if !more {
			return
		}
		if g.in.Context > 0 {
			if len(before) == g.in.Context {
				before = append(before[:0], before[1:]...)
			}
			before = append(before, l)
		}
		text = rest
	}
}

// grepLine is cutLine for a line of a file, converted after it is cut:
// converting a line of megabytes first cost its size for each context line.
func grepLine(l []byte) string {
	l = bytes.TrimSuffix(l, []byte("\r"))
	if len(l) <= maxGrepLineBytes {
		return string(l)
	}
	n := maxGrepLineBytes
	for n > 0 && !utf8.RuneStart(l[n]) {
		n--
	}
	return string(l[:n]) + fmt.Sprintf(" … [line cut: %d more bytes]", len(l)-n)
}

func (g *grepper) note() string {
	var parts []string
	if g.stopped {
		parts = append(parts, fmt.Sprintf("stopped after visiting %d entries: search a smaller directory (path) for the rest", g.ts.opts.MaxWalk))
	}
	if g.binary > 0 {
		parts = append(parts, fmt.Sprintf("%d binary files skipped", g.binary))
	}
	if g.large > 0 {
		parts = append(parts, fmt.Sprintf("%d files over %d MiB skipped", g.large, g.ts.ws.MaxReadBytes()>>20))
	}
	if g.unreadable > 0 {
		why := ""
		if g.firstErr != "" {
			why = " (the first directory: " + g.firstErr + ")"
		}
		parts = append(parts, fmt.Sprintf("%d files or directories could not be read%s", g.unreadable, why))
	}
	if g.ig != nil {
		parts = append(parts, g.ig.note(g.visited))
	}
	return joinNotes(parts...)
}

// walkCompare orders two paths as a depth-first walk by name visits them:
// name by name, a directory before what is inside it.
func walkCompare(a, b string) int {
	as := strings.Split(filepath.ToSlash(a), "/")
	bs := strings.Split(filepath.ToSlash(b), "/")
	for i := 0; i < min(len(as), len(bs)); i++ {
		if c := strings.Compare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}
