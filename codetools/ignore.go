package codetools

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolbelt-go/tool/workspace"
)

// ignorer applies .gitignore files during a walk, the way git does where it
// is cheap to: the .gitignore of each directory from the workspace root
// down to the current one, the deepest that decides winning, and
// everything under an ignored directory ignored. .git directories are
// always left out. Not read: .git/info/exclude and the global excludes
// file.
//
// What a repository's .gitignore files may cost is bounded: matching a
// name tries every pattern that could match it, so a walk costs its
// entries times the patterns that apply. At most maxIgnoreBytes of
// .gitignore text apply at once (the files of the directories from the
// root down to the current one; a file that would pass it applies in part,
// and the answer says so), and once matching has taken ignoreTimeBudget
// the walk stops, saying why.
type ignorer struct {
	ws    *workspace.Workspace
	off   bool
	stack []ignoreLevel // from the top down
	bytes int           // of .gitignore text in stack

	spent     time.Duration // matching, in this walk
	exhausted bool          // spent passed ignoreTimeBudget: the walk stops
	cut       []string      // .gitignore files applied in part (the first few)
	ncut      int
}

type ignoreLevel struct {
	dir   string // slash-separated, as shown; "." for the root
	p     *workspace.Patterns
	bytes int
}

// maxIgnoreBytes bounds the .gitignore text that applies at one place in
// a walk: many times what people write (GitHub's templates are under
// 10 KiB), little enough that trying every pattern on a name stays cheap.
// A .gitignore of 5 MiB of "?zz1" lines took 94 ms a name, 3 hours for a
// walk of 100,000 entries.
const maxIgnoreBytes = 64 << 10

// ignoreTimeBudget bounds the time one walk spends matching names against
// .gitignore patterns; an ordinary tree spends well under a second on
// 100,000 entries. A variable for tests.
var ignoreTimeBudget = 5 * time.Second

// maxCutNamed bounds the .gitignore files a note names.
const maxCutNamed = 3

// newIgnorer returns an ignorer for a walk that starts at start (a path as
// the workspace shows it). The .gitignore files of the directories above
// start are loaded at once; those at and below it as the walk enters them.
func newIgnorer(ws *workspace.Workspace, start string, off bool) *ignorer {
	ig := &ignorer{ws: ws, off: off}
	if off || filepath.IsAbs(start) || start == "." {
		return ig
	}
	ig.load(".")
	parts := strings.Split(start, "/")
	for i := 1; i < len(parts); i++ {
		ig.load(strings.Join(parts[:i], "/"))
	}
	return ig
}

func (ig *ignorer) load(dir string) {
	name := path.Join(dir, ".gitignore")
	data, err := ig.ws.ReadFile(name)
	if err != nil || len(data) == 0 {
		return
	}
	if room := maxIgnoreBytes - ig.bytes; len(data) > room {
		// Whole lines, up to the room left.
		data = data[:max(bytes.LastIndexByte(data[:max(room, 0)], '\n')+1, 0)]
		if ig.ncut++; ig.ncut <= maxCutNamed {
			ig.cut = append(ig.cut, name)
		}
	}
	p, _ := workspace.ParsePatterns(string(data)) // git skips bad lines too
	if p.Len() > 0 {
		ig.stack = append(ig.stack, ignoreLevel{dir: dir, p: p, bytes: len(data)})
		ig.bytes += len(data)
	}
}

// note says what the walk's answer should about the .gitignore files: those
// applied in part, and a walk stopped because they cost too much. visited
// is the entries the walk visited.
func (ig *ignorer) note(visited int) string {
	var parts []string
	if ig.ncut > 0 {
		more := ""
		if ig.ncut > len(ig.cut) {
			more = fmt.Sprintf(" and %d more", ig.ncut-len(ig.cut))
		}
		parts = append(parts, fmt.Sprintf("%s%s applied in part: the .gitignore files that apply at one place are read up to %d KiB in all, so some ignored files may be listed",
			strings.Join(ig.cut, ", "), more, maxIgnoreBytes>>10))
	}
	if ig.exhausted {
		parts = append(parts, fmt.Sprintf("stopped after visiting %d entries: matching names against the .gitignore files here took more than %v; search a smaller directory (path), or pass include_ignored", visited, ignoreTimeBudget))
	}
	return strings.Join(parts, "; ")
}

// enter is called when the walk goes into dir, after ignored decided it
// was not ignored.
func (ig *ignorer) enter(dir string) {
	if !ig.off {
		ig.load(filepath.ToSlash(dir))
	}
}

// ignored reports whether the walk should leave p out.
func (ig *ignorer) ignored(p string, isDir bool) bool {
	if ig.off {
		return false
	}
	p = filepath.ToSlash(p)
	if isDir && path.Base(p) == ".git" {
		return true
	}
	// Levels of directories the walk has left no longer apply.
	parent := path.Dir(p)
	for len(ig.stack) > 0 && !isAncestor(ig.stack[len(ig.stack)-1].dir, parent) {
		ig.bytes -= ig.stack[len(ig.stack)-1].bytes
		ig.stack = ig.stack[:len(ig.stack)-1]
	}
	if len(ig.stack) == 0 {
		return false
	}
	start := time.Now()
	defer func() {
		if ig.spent += time.Since(start); ig.spent > ignoreTimeBudget {
			ig.exhausted = true
		}
	}()
	for i := len(ig.stack) - 1; i >= 0; i-- {
		l := ig.stack[i]
		rel := p
		if l.dir != "." {
			rel = strings.TrimPrefix(p, l.dir+"/")
		}
		if m, decided := l.p.Match(rel, isDir); decided {
			return m
		}
	}
	return false
}

// isAncestor reports whether dir is p or a directory above it.
func isAncestor(dir, p string) bool {
	return dir == "." || dir == p || strings.HasPrefix(p, dir+"/")
}
