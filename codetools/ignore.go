package codetools

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/toolbelt-go/tool/workspace"
)

// ignorer applies .gitignore files during a walk, the way git does where it
// is cheap to: the .gitignore of each directory from the workspace root
// down to the current one, the deepest that decides winning, and
// everything under an ignored directory ignored. .git directories are
// always left out. Not read: .git/info/exclude and the global excludes
// file.
type ignorer struct {
	ws    *workspace.Workspace
	off   bool
	stack []ignoreLevel // from the top down
}

type ignoreLevel struct {
	dir string // slash-separated, as shown; "." for the root
	p   *workspace.Patterns
}

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
	data, err := ig.ws.ReadFile(path.Join(dir, ".gitignore"))
	if err != nil || len(data) == 0 {
		return
	}
	p, _ := workspace.ParsePatterns(string(data)) // git skips bad lines too
	if p.Len() > 0 {
		ig.stack = append(ig.stack, ignoreLevel{dir: dir, p: p})
	}
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
		ig.stack = ig.stack[:len(ig.stack)-1]
	}
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
