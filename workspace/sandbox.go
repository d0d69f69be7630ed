package workspace

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/toolbelt-go/tool/process"
)

// PrepareOptions say what a command may do beyond its [Access].
type PrepareOptions struct {
	// VersionControl lets a command that writes change the repositories
	// (.git, .hg, .svn) too, but for the files that make version control
	// run programs later. Give it only to a command that runs version
	// control alone (git add, git commit); any other program could plant
	// what a later git status of the person's runs (a commondir leading to
	// a config of its own, a replaced .git). Without it the repositories
	// are read-only to a command, whatever it may write elsewhere.
	VersionControl bool
	// Mode is the sandbox the command runs in. Where it cannot keep a
	// command that writes from the repositories (Landlock, and a mode
	// not said), and for a command with VersionControl (git runs the
	// repository's hooks), Done puts back what the command changed of
	// their files that make git run programs (config, hooks,
	// commondir…).
	Mode process.SandboxMode
}

// Prepared is one command's hold on the workspace: the sandbox prepared
// for it, and the workspace's command lock, held until [Prepared.Done].
type Prepared struct {
	w     *Workspace
	sb    *process.Sandbox
	write bool
	vcs   bool
	guard *guard // what a command that writes started with
	done  sync.Once
	notes []string
}

// Prepare holds the workspace for one command and returns the sandbox that
// confines it to the workspace's rules (see [process.Sandbox]): for Read, a
// command that may read the roots and nothing else of the user's, and
// write nowhere; for Write, one that may also write in the roots and in a
// private temporary directory, except on the read-only list and in the
// repositories (unless opts.VersionControl). In both, the deny list is
// hidden, and so is every other name of a denied file (hard links), every
// name a denied file or directory was given since (its identity is kept),
// a directory the preparation cannot read, and, unless
// [Options.AllowHardLinks], every file with other names not all found in
// the roots (a hard link to a file outside).
//
// The tree cannot change under the command from another command of the
// workspace's: Prepare waits (until ctx is done) for the commands that
// write to end, and a command that writes waits for every other; the hold
// lasts until Done, which the caller calls once the command has ended.
// The lock is also taken on the roots (flock), so that other Workspace
// values and other processes on the same tree wait too.
//
// Version control: a command sees .git, .hg and .svn (the file tools do
// not), so that git and hg work: read-only, and for a command with
// opts.VersionControl writable but for what makes version control run
// programs later, outside any sandbox: .git/config, config.worktree,
// commondir, hooks (and those of submodules and worktrees), the hooks
// directory core.hooksPath names, a .git file (which says where the
// repository is), .hg/hgrc. A repository without a hooks directory (or a
// Mercurial one without hgrc) is read-only as a whole, since one could be
// added.
//
// The preparation costs what changed in the tree since the last command
// (the kernel's notifications, on Linux; see docs/sandbox.md for why no
// change is missed), and a walk of the whole tree the first time, after
// a flood of changes, and on systems without notifications.
//
// The returned sandbox is the caller's to change: add paths a command
// needs (a toolchain, a build cache), allow the network.
func (w *Workspace) Prepare(ctx context.Context, a Access, opts *PrepareOptions) (*Prepared, error) {
	if opts == nil {
		opts = &PrepareOptions{}
	}
	write := a == Write
	if err := w.lock.lock(ctx, write); err != nil {
		return nil, fmt.Errorf("workspace: waiting for the other commands in the workspace to end: %w", err)
	}
	p := &Prepared{w: w, write: write, vcs: opts.VersionControl}
	// What runs programs is kept, to be put back, where the sandbox cannot
	// keep a command from it (Landlock), and for a command that runs
	// version control alone: git runs the repository's hooks, project
	// code that may write in .git too, where a file that is not there yet
	// (commondir) could not be made read-only.
	sb, err := p.prepare(opts.Mode != process.SandboxBubblewrap || opts.VersionControl)
	if err != nil {
		w.lock.unlock(write)
		return nil, err
	}
	p.sb = sb
	return p, nil
}

// Sandbox returns the command's sandbox.
func (p *Prepared) Sandbox() *process.Sandbox { return p.sb }

// Done ends the hold, once the command has ended, after looking at what
// a command that writes left in the repositories: a repository that
// appeared is moved out of git's way (unless the command ran version
// control alone), and where the sandbox could not protect them, what it
// changed of their files that run programs is put back. It returns what
// it did, in sentences for the model ("the command made a repository at
// sub/.git…"). Called more than once, it does nothing more.
func (p *Prepared) Done() []string {
	p.done.Do(func() {
		defer p.w.lock.unlock(p.write)
		if p.guard == nil {
			return
		}
		w := p.w
		w.treeMu.Lock()
		defer w.treeMu.Unlock()
		if err := w.tracked.update(); err != nil {
			p.notes = append(p.notes, "the workspace could not be looked at after the command ("+err.Error()+"): repositories it may have made were not checked")
		}
		p.notes = append(p.notes, w.check(w.tracked, p.guard, p.vcs)...)
	})
	return p.notes
}

func (p *Prepared) prepare(unprotected bool) (*process.Sandbox, error) {
	w := p.w
	w.treeMu.Lock()
	defer w.treeMu.Unlock()
	if w.tracked == nil {
		w.tracked = newTrackedTree(w)
	}
	t := w.tracked
	if err := t.update(); err != nil {
		return nil, err
	}
	sb := &process.Sandbox{Temp: p.write}
	for _, r := range w.roots {
		if p.write {
			sb.Write = append(sb.Write, r.dir)
		} else {
			sb.Read = append(sb.Read, r.dir)
		}
	}
	l := &pathList{}
	for td := range t.marked {
		r := w.roots[td.key.root]
		for name, m := range td.marks {
			rel := path.Join(td.key.rel, name)
			switch {
			case m.vcs:
			case m.deny:
				l.add(&l.deny, hostPath(r, rel))
			case m.readOnly && p.write:
				l.add(&l.readOnly, hostPath(r, rel))
			}
		}
	}
	t.hardLinks(l)
	if p.write {
		for _, repo := range w.repositories(t) {
			repo.protect(l, p.vcs)
		}
		var err error
		if p.guard, err = w.newGuard(t, unprotected, p.vcs); err != nil {
			return nil, err
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	// In a stable order, for the mounts and for tests.
	slices.Sort(l.deny)
	slices.Sort(l.readOnly)
	sb.Deny, sb.ReadOnly = l.deny, l.readOnly
	return sb, nil
}

// pathList collects a sandbox's protected paths, to a bound.
type pathList struct {
	deny, readOnly []string
	err            error
}

func (l *pathList) add(list *[]string, p string) {
	if l.err != nil {
		return
	}
	if len(l.deny)+len(l.readOnly) >= maxSandboxPaths {
		l.err = fmt.Errorf("workspace: sandbox: more than %d protected or read-only paths; deny or protect their directories instead", maxSandboxPaths)
		return
	}
	*list = append(*list, p)
}

// hardLinks hides the names of the files that have others: all of them
// when one is denied, or, unless the workspace allows hard links, when
// some names were not found in the roots (they are outside, or where the
// walk does not go).
func (t *trackedTree) hardLinks(l *pathList) {
	type group struct {
		names  []string
		links  int
		denied bool
	}
	groups := map[fileID]*group{}
	for td := range t.marked {
		r := t.w.roots[td.key.root]
		for name, m := range td.marks {
			if m.links < 2 || m.isDir || m.vcs {
				continue
			}
			g := groups[m.id]
			if g == nil {
				g = &group{}
				groups[m.id] = g
			}
			if !m.deny {
				g.names = append(g.names, hostPath(r, path.Join(td.key.rel, name)))
			}
			g.links = max(g.links, m.links)
			g.denied = g.denied || m.deny || t.ids[m.id]
		}
	}
	for _, g := range groups {
		all := len(g.names) >= g.links
		if !g.denied && (all || t.w.allowLinks) {
			continue
		}
		for _, n := range g.names {
			l.add(&l.deny, n)
		}
	}
}

// gitDirsBelow finds the git directories (a submodule's, a worktree's:
// those with a HEAD or a config) under dir, to depth levels: a
// submodule's name may have slashes (.git/modules/libs/a), and a
// submodule has submodules of its own (.git/modules/a/modules/b).
func gitDirsBelow(r *root, dir string, depth int) []string {
	if depth == 0 {
		return nil
	}
	f, err := r.os.Open(filepath.FromSlash(dir))
	if err != nil {
		return nil
	}
	ents, _ := f.ReadDir(1000)
	f.Close()
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		d := dir + "/" + e.Name()
		isGit := false
		for _, f := range []string{"HEAD", "config", "config.worktree", "commondir"} {
			if _, err := r.os.Lstat(filepath.FromSlash(d + "/" + f)); err == nil {
				isGit = true
			}
		}
		if isGit {
			out = append(out, d)
			out = append(out, gitDirsBelow(r, d+"/modules", depth-1)...)
		} else {
			out = append(out, gitDirsBelow(r, d, depth-1)...)
		}
	}
	return out
}

// gitConfig is what the sandbox reads of a repository's config.
type gitConfig struct {
	hooksPath      string // core.hooksPath
	worktreeConfig bool   // extensions.worktreeConfig: config.worktree is read
}

// readGitConfig reads the settings of a repository's config the sandbox
// needs, as git reads them (sections and keys ignore case).
func readGitConfig(r *root, name string) gitConfig {
	var c gitConfig
	f, err := r.os.Open(filepath.FromSlash(name))
	if err != nil {
		return c
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	section := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			s, _, _ := strings.Cut(strings.Trim(line, "[]"), " ")
			section = strings.ToLower(strings.TrimSpace(s))
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.Trim(strings.TrimSpace(val), `"`)
		switch {
		case section == "core" && ok && key == "hookspath":
			c.hooksPath = val
		case section == "extensions" && key == "worktreeconfig":
			c.worktreeConfig = !ok || strings.EqualFold(val, "true") || val == "1" || strings.EqualFold(val, "yes") || strings.EqualFold(val, "on")
		}
	}
	return c
}

// renamedDenied returns what tells the file operations whether a file or
// directory they reach has the identity of a denied one, renamed or moved
// since (only a command, or the person, can): the identities the commands'
// sandboxes hide, brought up to date. Nil before any command ran.
func (w *Workspace) renamedDenied() (func(fi fs.FileInfo) bool, error) {
	w.treeMu.Lock()
	defer w.treeMu.Unlock()
	if w.tracked == nil {
		return nil, nil
	}
	if err := w.tracked.update(); err != nil {
		return nil, err // fail closed: the tree could not be read
	}
	if len(w.tracked.ids) == 0 {
		return nil, nil
	}
	// By device and inode: a FileInfo has no birth time (a file that took
	// a deleted denied one's inode number is refused, failing closed).
	ids := map[fileID]bool{}
	for id := range w.tracked.ids {
		ids[id.withoutBirth()] = true
	}
	return func(fi fs.FileInfo) bool { return ids[sysID(fi.Sys())] }, nil
}
