package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A later git of the person's, outside any sandbox (a git status, an
// editor's, a shell prompt's), runs what a repository's files name: its
// config's core.fsmonitor, pager and drivers, its hooks; and it finds the
// repository by a .git directory or file, or a bare repository's layout,
// in the directory it runs in or above. What a command that writes left
// behind must not be such a thing:
//
//   - the repositories the walk found are read-only to it, whole, unless
//     it runs version control alone (PrepareOptions.VersionControl), and
//     then their config, hooks, commondir and the like (protect);
//   - a repository that appeared while it ran (a .git made in a
//     subdirectory, one put in place of the one there, a bare layout) is
//     moved out of git's way when it ends, unless the command runs
//     version control alone (git init, git clone, git submodule add make
//     ones of git's own making);
//   - where the sandbox cannot keep a command that writes from the
//     repositories (Landlock), what it changed of the files that run
//     programs is put back when it ends: git could have run it meanwhile
//     (an editor's git status), which the mode's gap is.

// repository is a repository the walk found: a version-control directory,
// a .git file, a bare repository, or the directory a .git file names.
type repository struct {
	r     *root
	rel   string
	name  string
	isDir bool
	bare  bool
}

func (repo repository) host(rel string) string { return hostPath(repo.r, rel) }

func (repo repository) exists(rel string) bool {
	_, err := repo.r.os.Lstat(filepath.FromSlash(rel))
	return err == nil
}

// repositories lists the repositories in the tree, with the directories
// the .git files among them name inside a root.
func (w *Workspace) repositories(t *trackedTree) []repository {
	var repos []repository
	seen := map[string]bool{}
	add := func(repo repository) {
		if h := repo.host(repo.rel); !seen[h] {
			seen[h] = true
			repos = append(repos, repo)
		}
	}
	for td := range t.marked {
		r := w.roots[td.key.root]
		for name, m := range td.marks {
			if !m.vcs {
				continue
			}
			rel := path.Join(td.key.rel, name)
			add(repository{r: r, rel: rel, name: name, isDir: m.isDir})
			if !m.isDir {
				if target, ok := w.gitFileTarget(r, rel); ok {
					add(target)
				}
			}
		}
	}
	for td := range t.bare {
		add(repository{r: w.roots[td.key.root], rel: td.key.rel, name: path.Base(td.key.rel), isDir: true, bare: true})
	}
	slices.SortFunc(repos, func(a, b repository) int { return strings.Compare(a.host(a.rel), b.host(b.rel)) })
	// One inside another (a submodule's, under .git/modules, named by
	// its .git file) is the outer one's to protect.
	var out []repository
	for _, repo := range repos {
		h := repo.host(repo.rel)
		if !slices.ContainsFunc(repos, func(o repository) bool {
			return o.isDir && strings.HasPrefix(h, o.host(o.rel)+string(filepath.Separator))
		}) {
			out = append(out, repo)
		}
	}
	return out
}

// gitFileTarget reads a .git file ("gitdir: path") and returns the
// directory it names, when that is inside a root.
func (w *Workspace) gitFileTarget(r *root, rel string) (repository, bool) {
	f, err := r.os.Open(filepath.FromSlash(rel))
	if err != nil {
		return repository{}, false
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 4096))
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return repository{}, false
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(hostPath(r, rel)), target)
	}
	target = filepath.Clean(target)
	for _, root := range w.roots {
		if inside, ok := within(root.real, target); ok && inside != "." {
			return repository{r: root, rel: inside, name: path.Base(inside), isDir: true}, true
		}
	}
	return repository{}, false
}

// protect adds, for a command that writes, what of the repository it may
// not change: all of it, unless vcs (the command runs version control
// alone); then what makes version control run programs. The hooks
// directory core.hooksPath names (husky's .husky) is read-only to both.
func (repo repository) protect(l *pathList, vcs bool) {
	rel := repo.rel
	whole := func() { l.add(&l.readOnly, repo.host(rel)) }
	switch {
	case !repo.isDir: // a .git file says where the repository is
		whole()
		return
	case repo.name == ".hg":
		if !vcs || !repo.exists(rel+"/hgrc") {
			whole()
			return
		}
		l.add(&l.readOnly, repo.host(rel+"/hgrc"))
		return
	case repo.name == ".svn":
		if !vcs {
			whole() // no client-side hooks, but no other program's either
		}
		return
	}
	cfg := readGitConfig(repo.r, rel+"/config")
	hooks := repo.hooksPath(cfg)
	if hooks != "" && repo.exists(hooks) {
		l.add(&l.readOnly, repo.host(hooks))
	}
	if !vcs || !repo.exists(rel+"/hooks") || cfg.worktreeConfig && !repo.exists(rel+"/config.worktree") {
		// A hooks directory or a config.worktree could be made, and
		// would be run or read.
		whole()
		return
	}
	for _, p := range repo.runPaths(cfg) {
		if p != hooks && repo.exists(p) {
			l.add(&l.readOnly, repo.host(p))
		}
	}
}

// hooksPath returns the directory core.hooksPath names, relative to the
// root, when it is inside it: relative to the top of the work tree, the
// directory that holds .git.
func (repo repository) hooksPath(cfg gitConfig) string {
	hooks := cfg.hooksPath
	if hooks == "" {
		return ""
	}
	p := path.Clean(path.Join(path.Dir(repo.rel), hooks))
	if path.IsAbs(hooks) {
		inside, ok := within(repo.r.real, filepath.Clean(hooks))
		if !ok {
			return ""
		}
		p = inside
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}

// gitRunFiles are the names, in a git directory, that make git run
// programs or read another configuration.
var gitRunFiles = []string{"config", "config.worktree", "commondir", "hooks", "info"}

// runPaths are the paths of a git repository that make git run programs:
// gitRunFiles in it and in the git directories of its submodules and
// worktrees, and the hooks directory core.hooksPath names.
func (repo repository) runPaths(cfg gitConfig) []string {
	if repo.name == ".hg" {
		return []string{repo.rel + "/hgrc"}
	}
	if !repo.isDir || repo.name == ".svn" {
		return nil
	}
	gitDirs := []string{repo.rel}
	for _, sub := range []string{"modules", "worktrees"} {
		gitDirs = append(gitDirs, gitDirsBelow(repo.r, repo.rel+"/"+sub, 4)...)
	}
	var out []string
	for _, d := range gitDirs {
		for _, f := range gitRunFiles {
			out = append(out, d+"/"+f)
		}
	}
	if p := repo.hooksPath(cfg); p != "" {
		out = append(out, p)
	}
	return out
}

// maxGuarded bounds what is kept of the repositories' files that run
// programs, to put back after a command the sandbox could not keep from
// them.
const maxGuarded = 8 << 20

// guard is what a command that writes started with: the repositories, and
// where the sandbox cannot protect them, the files of theirs that run
// programs.
type guard struct {
	repos map[fileID]bool // the repositories' identities
	saved map[string]savedFile
	paths []string // the paths whose files were saved, a file made under one is removed
	size  int
}

type savedFile struct {
	data []byte
	mode os.FileMode
	dir  bool
}

// newGuard records the repositories, and, with save, the files of theirs
// that run programs (for a command that runs version control alone, not
// info/, which git writes: sparse-checkout).
func (w *Workspace) newGuard(t *trackedTree, save, vcs bool) (*guard, error) {
	g := &guard{repos: map[fileID]bool{}}
	if save {
		g.saved = map[string]savedFile{}
	}
	for _, repo := range w.repositories(t) {
		fi, err := os.Lstat(repo.host(repo.rel))
		if err != nil {
			continue
		}
		g.repos[sysID(fi.Sys())] = true
		if !save {
			continue
		}
		paths := repo.runPaths(readGitConfig(repo.r, repo.rel+"/config"))
		if !repo.isDir {
			paths = []string{repo.rel} // a .git file
		}
		for _, p := range paths {
			if vcs && path.Base(p) == "info" {
				continue
			}
			if err := g.save(repo.host(p)); err != nil {
				return nil, err
			}
		}
	}
	return g, nil
}

// save keeps the file, or every file in the directory, at p.
func (g *guard) save(p string) error {
	g.paths = append(g.paths, p)
	return filepath.WalkDir(p, func(f string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // not there: made later, it is removed
		}
		if d.IsDir() {
			g.saved[f] = savedFile{dir: true, mode: 0o755}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if g.size += int(fi.Size()); g.size > maxGuarded {
			return fmt.Errorf("workspace: the repositories' hooks and configuration hold more than %d bytes, too many to keep from a command the sandbox here (Landlock) cannot keep from them: run only commands that read, or use bubblewrap", maxGuarded)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil
		}
		g.saved[f] = savedFile{data: b, mode: fi.Mode().Perm()}
		return nil
	})
}

// check puts back what a command changed of the saved files, and, unless
// it ran version control alone, moves out of git's way every repository
// that appeared while it ran. It returns what it did, for the model.
func (w *Workspace) check(t *trackedTree, g *guard, vcs bool) []string {
	var notes []string
	if g.saved != nil {
		notes = append(notes, g.restore()...)
	}
	if vcs {
		return notes
	}
	for _, repo := range w.repositories(t) {
		h := repo.host(repo.rel)
		fi, err := os.Lstat(h)
		if err != nil {
			continue
		}
		if g.repos[sysID(fi.Sys())] {
			continue // there before, here or elsewhere
		}
		var b [6]byte
		rand.Read(b[:])
		moved := h + ".quarantined-" + hex.EncodeToString(b[:])
		if err := os.Rename(h, moved); err != nil {
			notes = append(notes, fmt.Sprintf("the command made a repository at %s, which could not be moved out of git's way (%v): do not run git there before looking at its config and hooks", repo.r.shown(repo.rel), err))
			continue
		}
		notes = append(notes, fmt.Sprintf("the command made a repository at %s; a command other than git may not (a later git there runs what its config names), so it was moved to %s", repo.r.shown(repo.rel), repo.r.shown(repo.rel)+filepath.Ext(moved)))
	}
	return notes
}

// restore puts the saved files back, and removes what was made under the
// saved paths.
func (g *guard) restore() []string {
	var changed []string
	for _, p := range g.paths {
		filepath.WalkDir(p, func(f string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if s, ok := g.saved[f]; ok && s.dir == d.IsDir() && (s.dir || d.Type().IsRegular()) {
				return nil
			}
			changed = append(changed, f)
			os.RemoveAll(f)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		})
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range g.saved {
			if !yield(k) {
				return
			}
		}
	})
	for _, f := range keys {
		s := g.saved[f]
		if s.dir {
			os.MkdirAll(f, s.mode)
			continue
		}
		if b, err := os.ReadFile(f); err == nil && string(b) == string(s.data) {
			continue
		}
		os.MkdirAll(filepath.Dir(f), 0o755)
		tmp := f + ".toolbelt-restore"
		if os.WriteFile(tmp, s.data, s.mode) == nil && os.Rename(tmp, f) == nil {
			changed = append(changed, f)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	return []string{fmt.Sprintf("the command changed %d of the repositories' files that make git run programs (config, hooks); they were put back as they were", len(changed))}
}
