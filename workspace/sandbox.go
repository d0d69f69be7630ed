package workspace

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/toolbelt-go/tool/process"
)

// Sandbox returns the sandbox that confines a command run in the workspace
// to the workspace's own rules (see [process.Sandbox]): for Read, a command
// that may read the roots and nothing else of the user's, and write
// nowhere; for Write, one that may also write in the roots and in a
// private temporary directory, except on the read-only list. In both, what
// the deny list names is hidden, found by a walk of the roots made now; so
// are the other names of a denied file (hard links) found in them, and,
// unless [Options.AllowHardLinks], every file with other names not all
// found there (a hard link to a file outside).
//
// Version-control directories (.git, .hg, .svn) are on [DefaultDeny] for
// the file tools, but a command sees them, so that git and hg work: read
// only, except that a command allowed to write may change them too, but
// not the files that make version control run programs later, outside any
// sandbox: .git/config, .git/config.worktree, .git/hooks (and those of
// submodules and worktrees), the hooks directory .git/config names
// (core.hooksPath), a .git file (which says where the repository is), and
// .hg/hgrc. A repository without a hooks directory (or a Mercurial one
// without hgrc) is read only as a whole, since one could be added.
//
// The returned value is the caller's to change: add paths a command needs
// (a toolchain, a build cache), allow the network. Its cost is the walk:
// one directory listing per directory of the roots (protected and
// version-control directories are not entered).
func (w *Workspace) Sandbox(a Access) (*process.Sandbox, error) {
	sb := &process.Sandbox{}
	sw := &sandboxWalk{w: w, write: a == Write}
	for _, r := range w.roots {
		if sw.write {
			sb.Write = append(sb.Write, r.dir)
		} else {
			sb.Read = append(sb.Read, r.dir)
		}
		if err := sw.dir(r, "."); err != nil {
			return nil, err
		}
	}
	if err := sw.hardLinks(); err != nil {
		return nil, err
	}
	sb.Deny, sb.ReadOnly, sb.Temp = sw.deny, sw.readOnly, sw.write
	return sb, nil
}

// Bounds of one sandbox walk: a tree larger than this, or with more
// protected files, is refused rather than walked for ever or masked in
// part.
const (
	maxSandboxWalk  = 2_000_000
	maxSandboxPaths = 4096
)

// vcsDirs are the version-control directories a command may see.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

type sandboxWalk struct {
	w        *Workspace
	write    bool
	seen     int
	deny     []string
	readOnly []string
	linked   []linkedFile // regular files with more than one name
}

// linkedFile is a name of a file with several, found by the walk.
type linkedFile struct {
	host   string
	fi     fs.FileInfo
	denied bool
}

func (sw *sandboxWalk) host(r *root, rel string) string {
	return filepath.Join(r.real, filepath.FromSlash(rel))
}

func (sw *sandboxWalk) add(list *[]string, p string) error {
	if len(sw.deny)+len(sw.readOnly) >= maxSandboxPaths {
		return fmt.Errorf("workspace: sandbox: more than %d protected or read-only paths; deny or protect their directories instead", maxSandboxPaths)
	}
	*list = append(*list, p)
	return nil
}

// dir walks the directory rel of r. It lists it by its host path: a
// directory opened through os.Root costs an lstat per entry, which would
// multiply the walk's time several times over; the open refuses a link,
// and the walk enters only what the listing says is a directory.
func (sw *sandboxWalk) dir(r *root, rel string) error {
	f, err := os.OpenFile(sw.host(r, rel), os.O_RDONLY|oDirNoFollow, 0)
	if err != nil {
		return nil // gone, or unreadable: the command cannot read it either
	}
	defer f.Close()
	for {
		ents, err := f.ReadDir(1024)
		for _, e := range ents {
			if sw.seen++; sw.seen > maxSandboxWalk {
				return fmt.Errorf("workspace: sandbox: more than %d files and directories to walk", maxSandboxWalk)
			}
			if err := sw.entry(r, path.Join(rel, e.Name()), e); err != nil {
				return err
			}
		}
		if err == io.EOF || len(ents) == 0 {
			return nil
		}
		if err != nil {
			return nil
		}
	}
}

func (sw *sandboxWalk) entry(r *root, rel string, e fs.DirEntry) error {
	name, typ := e.Name(), e.Type()
	isDir := typ.IsDir()
	if vcsDirs[name] && (isDir || typ.IsRegular()) {
		if sw.write {
			return sw.vcs(r, rel, name, isDir)
		}
		return nil
	}
	// The directories above were checked on the way down: only the
	// entry itself is matched.
	n := denyNames(rel)
	denied, _ := sw.w.deny.Match(n, isDir)
	denied = denied || isDir && matchFile(sw.w.deny, n)
	if typ.IsRegular() {
		// A hard link's other names: looked at for every file, its
		// link count known only from lstat.
		if fi, err := e.Info(); err == nil && HardLinks(fi) > 1 {
			sw.linked = append(sw.linked, linkedFile{sw.host(r, rel), fi, denied})
		}
	}
	if denied {
		return sw.add(&sw.deny, sw.host(r, rel))
	}
	if sw.write && sw.w.readOnly.Len() > 0 {
		if m, _ := sw.w.readOnly.Match(n, isDir); m || isDir && matchFile(sw.w.readOnly, n) {
			if err := sw.add(&sw.readOnly, sw.host(r, rel)); err != nil {
				return err
			}
		}
	}
	if isDir {
		return sw.dir(r, rel)
	}
	return nil
}

// vcs protects, for a writing command, the files of a version-control
// directory that make it run programs.
func (sw *sandboxWalk) vcs(r *root, rel, name string, isDir bool) error {
	whole := func() error { return sw.add(&sw.readOnly, sw.host(r, rel)) }
	switch {
	case !isDir: // a .git file: where the repository is
		return whole()
	case name == ".hg":
		if _, err := r.os.Lstat(filepath.FromSlash(rel + "/hgrc")); err != nil {
			return whole()
		}
		return sw.add(&sw.readOnly, sw.host(r, rel+"/hgrc"))
	case name == ".svn":
		return nil // no client-side hooks
	}
	if _, err := r.os.Lstat(filepath.FromSlash(rel + "/hooks")); err != nil {
		return whole()
	}
	gitDirs := []string{rel}
	for _, sub := range []string{"modules", "worktrees"} {
		gitDirs = append(gitDirs, sw.gitDirsBelow(r, rel+"/"+sub, 4)...)
	}
	for _, d := range gitDirs {
		for _, f := range []string{"config", "config.worktree", "hooks"} {
			if _, err := r.os.Lstat(filepath.FromSlash(d + "/" + f)); err == nil {
				if err := sw.add(&sw.readOnly, sw.host(r, d+"/"+f)); err != nil {
					return err
				}
			}
		}
	}
	if hooks := hooksPath(r, rel); hooks != "" {
		// Relative to the top of the work tree, the directory that
		// holds .git.
		p := path.Clean(path.Join(path.Dir(rel), hooks))
		if path.IsAbs(hooks) {
			if inside, ok := within(r.real, filepath.Clean(hooks)); ok {
				p = inside
			} else {
				p = ""
			}
		}
		if p != "" && p != ".." && !strings.HasPrefix(p, "../") {
			if _, err := r.os.Lstat(filepath.FromSlash(p)); err == nil {
				return sw.add(&sw.readOnly, sw.host(r, p))
			}
		}
	}
	return nil
}

// gitDirsBelow finds the git directories (a submodule's, a worktree's:
// those with a HEAD or a config) under dir, to depth levels: a
// submodule's name may have slashes (.git/modules/libs/a), and a
// submodule has submodules of its own (.git/modules/a/modules/b).
func (sw *sandboxWalk) gitDirsBelow(r *root, dir string, depth int) []string {
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
		for _, f := range []string{"HEAD", "config", "config.worktree"} {
			if _, err := r.os.Lstat(filepath.FromSlash(d + "/" + f)); err == nil {
				isGit = true
			}
		}
		if isGit {
			out = append(out, d)
			out = append(out, sw.gitDirsBelow(r, d+"/modules", depth-1)...)
		} else {
			out = append(out, sw.gitDirsBelow(r, d, depth-1)...)
		}
	}
	return out
}

// hooksPath reads core.hooksPath from a repository's config, which git
// reads (as the rest of the file) when it runs hooks.
func hooksPath(r *root, gitDir string) string {
	f, err := r.os.Open(filepath.FromSlash(gitDir + "/config"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	core := false
	found := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section, _, _ := strings.Cut(strings.Trim(line, "[]"), " ")
			core = strings.EqualFold(strings.TrimSpace(section), "core")
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if core && ok && strings.EqualFold(strings.TrimSpace(key), "hooksPath") {
			found = strings.Trim(strings.TrimSpace(val), `"`)
		}
	}
	return found
}

// hardLinks hides the names of the files that have others: all of them
// when one is denied, or, unless the workspace allows hard links, when
// some names were not found in the roots (they are outside, or where the
// walk does not go).
func (sw *sandboxWalk) hardLinks() error {
	type group struct {
		names  []linkedFile
		denied bool
	}
	groups := make(map[fileID]*group)
	var order []fileID
	for _, l := range sw.linked {
		id := idOf(l.fi)
		g := groups[id]
		if g == nil {
			g = &group{}
			groups[id] = g
			order = append(order, id)
		}
		g.names = append(g.names, l)
		g.denied = g.denied || l.denied
	}
	for _, id := range order {
		g := groups[id]
		all := len(g.names) >= HardLinks(g.names[0].fi)
		if !g.denied && (all || sw.w.allowLinks) {
			continue
		}
		for _, l := range g.names {
			if !l.denied {
				if err := sw.add(&sw.deny, l.host); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
