package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// Defaults of [Options].
const (
	// DefaultMaxReadBytes caps a file read: larger than any source file
	// a model should read whole, small enough to hold in memory per call.
	DefaultMaxReadBytes = 8 << 20
	// DefaultMaxWriteBytes caps a file written.
	DefaultMaxWriteBytes = 8 << 20
	// DefaultMaxDirEntries caps the entries of one directory listed.
	DefaultMaxDirEntries = 100_000
)

// Options configure a [Workspace]. A nil *Options means the defaults.
type Options struct {
	// Deny lists the paths tools may neither read nor write nor see in a
	// listing, as patterns in .gitignore syntax (see [Patterns]), matched
	// relative to each root. A directory that matches denies everything
	// under it. Matching ignores case and Unicode normalization, and the
	// trailing dots and spaces Windows drops, so that ".ENV" and ".env."
	// are denied with ".env" on the systems that would open the same file.
	// Nil means [DefaultDeny]; an empty, non-nil slice denies nothing.
	// To extend the default, append to it, as in
	// append(slices.Clone(workspace.DefaultDeny), "*.sqlite", "!example.tfvars")
	// (a negation carves a name out of an earlier pattern).
	Deny []string
	// ReadOnly lists the paths tools may read but not write (vendor/,
	// go.sum, a generated tree), as patterns matched like Deny's.
	ReadOnly []string
	// WriteRoots are directories outside the workspace root that tools may
	// also read and write (a scratch or build-output directory). The
	// model addresses them by absolute path, so the host must tell it
	// where they are. Deny and ReadOnly apply inside each, relative to it.
	WriteRoots []string
	// MaxReadBytes caps a file read. Zero means [DefaultMaxReadBytes].
	MaxReadBytes int64
	// MaxWriteBytes caps a file written. Zero means
	// [DefaultMaxWriteBytes].
	MaxWriteBytes int64
	// MaxDirEntries caps the entries of one directory that is listed or
	// walked. Zero means [DefaultMaxDirEntries].
	MaxDirEntries int
	// AllowHardLinks reads a regular file that has other names (hard
	// links) like any other file, in the operations and in a command's
	// sandbox. Off, such a file is refused, and hidden from commands
	// unless all its names are in the workspace and allowed: a hard link
	// gives a file outside the workspace, or a protected one, a name the
	// rules allow, and nothing tells where its other names are. Turn it
	// on for a tree that shares files by hard links, as pnpm's
	// node_modules does with its store.
	AllowHardLinks bool
}

// Workspace confines file access to a directory tree: every path it is
// given is resolved inside its root (or one of its extra write roots) or
// refused, and every refusal is a *tool.Error written for the model. See
// the package documentation for the rules.
//
// A Workspace is safe for concurrent use; it holds the roots open until
// Close.
type Workspace struct {
	roots      []*root // the workspace root first, then the write roots
	deny       *Patterns
	readOnly   *Patterns
	maxRead    int64
	maxWrite   int64
	maxEntries int
	windows    bool
	allowLinks bool
	noSync     bool // tests: skip fsync, which only durability needs
	noWatch    bool // tests: walk the whole tree for every command

	lock    *commandLock // held by each command, from its sandbox's preparation to its end
	treeMu  sync.Mutex
	tracked *trackedTree // what commands' sandboxes are made from; nil until the first
}

type root struct {
	os    *os.Root
	dir   string // absolute, as the host gave it
	real  string // dir with its symbolic links resolved
	extra bool   // a write root, addressed by absolute path
}

// Open returns a workspace rooted at dir, which must be an existing
// directory. The error, for the host, says what is wrong with the
// directory or the options.
func Open(dir string, opts *Options) (*Workspace, error) {
	if opts == nil {
		opts = &Options{}
	}
	w := &Workspace{
		maxRead:    opts.MaxReadBytes,
		maxWrite:   opts.MaxWriteBytes,
		maxEntries: opts.MaxDirEntries,
		windows:    runtime.GOOS == "windows",
		allowLinks: opts.AllowHardLinks,
	}
	if w.maxRead <= 0 {
		w.maxRead = DefaultMaxReadBytes
	}
	if w.maxWrite <= 0 {
		w.maxWrite = DefaultMaxWriteBytes
	}
	if w.maxEntries <= 0 {
		w.maxEntries = DefaultMaxDirEntries
	}
	deny := opts.Deny
	if deny == nil {
		deny = DefaultDeny
	}
	var errs []error
	var err error
	if w.deny, err = parsePatterns(true, deny); err != nil {
		errs = append(errs, fmt.Errorf("option Deny: %w", err))
	}
	if w.readOnly, err = parsePatterns(true, opts.ReadOnly); err != nil {
		errs = append(errs, fmt.Errorf("option ReadOnly: %w", err))
	}
	main, err := openRoot(dir, false)
	if err != nil {
		errs = append(errs, err)
	} else {
		w.roots = append(w.roots, main)
	}
	for _, d := range opts.WriteRoots {
		if !filepath.IsAbs(d) {
			errs = append(errs, fmt.Errorf("workspace: write root %q is not an absolute path", d))
			continue
		}
		r, err := openRoot(d, true)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		w.roots = append(w.roots, r)
	}
	if len(errs) > 0 {
		w.Close()
		return nil, errors.Join(errs...)
	}
	var dirs []string
	for _, r := range w.roots {
		dirs = append(dirs, r.real)
	}
	w.lock = newCommandLock(dirs)
	return w, nil
}

func openRoot(dir string, extra bool) (*root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	return &root{os: r, dir: filepath.Clean(abs), real: real, extra: extra}, nil
}

// Close releases the roots. Operations after Close fail.
func (w *Workspace) Close() error {
	w.treeMu.Lock()
	if w.tracked != nil {
		w.tracked.close()
	}
	w.treeMu.Unlock()
	if w.lock != nil {
		w.lock.close()
	}
	var errs []error
	for _, r := range w.roots {
		errs = append(errs, r.os.Close())
	}
	return errors.Join(errs...)
}

// Dir returns the workspace root's absolute path on the host. It is for
// the host: the model works with paths relative to the root.
func (w *Workspace) Dir() string { return w.roots[0].dir }

// MaxReadBytes returns the largest file the workspace reads.
func (w *Workspace) MaxReadBytes() int64 { return w.maxRead }

// MaxWriteBytes returns the largest file the workspace writes: a tool that
// builds the content can refuse before building more than this.
func (w *Workspace) MaxWriteBytes() int64 { return w.maxWrite }

// Check applies the rules that need no file-system access to name, for
// the access a: the path must be valid, lie inside a root, not be denied
// and, for Write, not be read-only. It returns the path in the form the
// model is shown (relative to the workspace root, "." for the root
// itself), or the refusal. The operations apply the same rules and more
// (symbolic links, special files, sizes), so Check is for deciding before
// acting, as an approval policy does.
func (w *Workspace) Check(name string, a Access) (string, error) {
	op := "read"
	if a == Write {
		op = "write"
	}
	t, err := w.locate(op, name, a)
	if err != nil {
		return "", err
	}
	return t.r.shown(t.rel), nil
}

// locate applies the lexical rules, the deny list and, for writes, the
// read-only list.
func (w *Workspace) locate(op, name string, a Access) (target, error) {
	clean, abs, why := lexical(name, w.windows)
	if why != "" {
		return target{}, invalidPath(op, name, why)
	}
	var t target
	if abs {
		native := filepath.Clean(filepath.FromSlash(clean))
		found := false
		for _, r := range w.roots {
			rel, ok := within(r.dir, native)
			if !ok {
				rel, ok = within(r.real, native)
			}
			if ok {
				t, found = target{r: r, rel: path.Clean(rel)}, true
				break
			}
		}
		if !found {
			return target{}, escapes(op, name, "")
		}
		if why := checkNames(t.rel, w.windows); why != "" {
			return target{}, invalidPath(op, name, why)
		}
	} else {
		if clean == ".." || strings.HasPrefix(clean, "../") {
			return target{}, escapes(op, name, "")
		}
		t = target{r: w.roots[0], rel: clean}
	}
	if err := w.allowed(op, name, t.rel, true, a); err != nil {
		return target{}, err
	}
	return t, nil
}

// allowed applies the deny list, and the read-only list for writes, to a
// clean relative path. isDir says whether the last name may be a
// directory (when unknown, it is checked as one too: directory-only
// patterns then refuse a file of that name, which errs on the safe side).
func (w *Workspace) allowed(op, name, rel string, isDir bool, a Access) error {
	n := denyNames(rel)
	if w.deny.matchTree(n, isDir) || (isDir && matchFile(w.deny, n)) {
		return refusal(op, name, ErrDenied,
			fmt.Sprintf("path is protected: %q is on the workspace's deny list, so tools can neither read nor write it", name),
			"do not try to reach it another way; if you need what it holds, ask the user", nil)
	}
	if a == Write {
		if w.readOnly.matchTree(n, isDir) || (isDir && matchFile(w.readOnly, n)) {
			return refusal(op, name, ErrReadOnly,
				fmt.Sprintf("path is read-only: the workspace lets tools read %q but not change it", name),
				"leave it as it is, or ask the user to change it", nil)
		}
	}
	return nil
}

// matchFile checks the last name as a file too, for callers that do not
// know its type.
func matchFile(p *Patterns, n string) bool {
	if n == "." {
		return false
	}
	m, _ := p.Match(n, false)
	return m
}

// maxLinks bounds the symbolic links followed for one path, as the
// operating systems do (40 on Linux).
const maxLinks = 40

// follow resolves the symbolic links in t.rel one name at a time, inside
// t's root, and returns a path to the same file with no link left in it,
// with the file's information (nil when it does not exist). A link that
// is absolute or leads outside the root is refused, as os.Root refuses it;
// a path or a link target on the deny list is refused, so a link cannot
// reach what its target's name would not.
func (w *Workspace) follow(op, name string, t target) (string, fs.FileInfo, error) {
	return w.resolve(op, name, t, strings.Split(t.rel, "/"))
}

// resolve is follow for the names of a path as written: a ".." among them
// is applied to the directory reached so far, links resolved, as the
// kernel does for another program ("sub/link/.." is the link's target's
// parent, not sub), and one that climbs above the root is refused.
func (w *Workspace) resolve(op, name string, t target, todo []string) (string, fs.FileInfo, error) {
	if t.rel == "." && len(todo) == 1 {
		fi, err := t.r.os.Lstat(".")
		if err != nil {
			return "", nil, osError(op, name, err)
		}
		return ".", fi, nil
	}
	var done []string
	var fi fs.FileInfo
	links := 0
	d := dirCursor{top: t.r.os}
	defer d.close()
	renamed, err := w.renamedDenied()
	if err != nil {
		return "", nil, refusal(op, name, ErrChanged, fmt.Sprintf("%q could not be checked: the workspace kept changing while its protected files were looked for", name),
			"try again", err)
	}
	for len(todo) > 0 {
		seg := todo[0]
		todo = todo[1:]
		switch seg {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", nil, escapes(op, name, "")
			}
			done = done[:len(done)-1]
			d.popped(len(done))
			continue
		}
		info, err := d.lstat(done, fi, seg)
		if errors.Is(err, ErrChanged) {
			return "", nil, changed(op, name)
		}
		if errors.Is(err, fs.ErrNotExist) {
			rest := path.Join(append(append(done[:len(done):len(done)], seg), todo...)...)
			if rest == ".." || strings.HasPrefix(rest, "../") {
				return "", nil, escapes(op, name, "")
			}
			return rest, nil, w.allowed(op, name, rest, true, Read)
		}
		if err != nil {
			return "", nil, osError(op, name, err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			if renamed != nil && renamed(info) {
				return "", nil, refusal(op, name, ErrDenied,
					fmt.Sprintf("path is protected: %q is, or is in, a file or directory on the workspace's deny list that was renamed or moved", name),
					"do not try to reach it another way; if you need what it holds, ask the user", nil)
			}
			done = append(done, seg)
			fi = info
			if len(todo) > 0 && !info.IsDir() {
				return "", nil, notDir(op, name)
			}
			continue
		}
		if links++; links > maxLinks {
			return "", nil, refusal(op, name, ErrInvalidPath, fmt.Sprintf("too many levels of symbolic links in %q", name),
				"the links form a loop or a chain too long to follow", nil)
		}
		dest, err := d.readlink(done, fi, seg)
		if errors.Is(err, ErrChanged) {
			return "", nil, changed(op, name)
		}
		if err != nil {
			return "", nil, osError(op, name, err)
		}
		if dest == "" || filepath.IsAbs(dest) || filepath.VolumeName(dest) != "" || strings.HasPrefix(filepath.ToSlash(dest), "/") {
			return "", nil, refusal(op, name, ErrOutside, fmt.Sprintf("path escapes the workspace through a symbolic link: %q", name),
				"the link is absolute, and absolute links are never followed; use the path it points to, relative to the workspace root", nil)
		}
		next := path.Clean(path.Join(path.Join(done...), filepath.ToSlash(dest)))
		if next == ".." || strings.HasPrefix(next, "../") {
			return "", nil, refusal(op, name, ErrOutside, fmt.Sprintf("path escapes the workspace through a symbolic link: %q", name),
				"the link points outside the workspace; use a path inside it", nil)
		}
		if err := w.allowed(op, name, next, true, Read); err != nil {
			return "", nil, err
		}
		// The target's own names, from the link's directory: a ".." in
		// it is resolved as the rest.
		todo = append(strings.Split(filepath.ToSlash(dest), "/"), todo...)
	}
	real := path.Join(done...)
	if real == "" { // the path led back to the root through links
		real = "."
		var err error
		if fi, err = t.r.os.Lstat("."); err != nil {
			return "", nil, osError(op, name, err)
		}
	}
	if real != t.rel {
		if err := w.allowed(op, name, real, fi.IsDir(), Read); err != nil {
			return "", nil, err
		}
	}
	return real, fi, nil
}

// dirCursor holds the directory a path's resolution has reached open, so
// that looking at the next name costs one lookup in it rather than one per
// name from the root: os.Root resolves a path one name at a time, and a
// path of n names looked at name by name cost n²/2 lookups (a walk of a
// tree 300 directories deep took seconds, 500 deep twenty, 1,000 deep more
// than the two minutes of a call).
type dirCursor struct {
	top *os.Root // the root, for a path with no name yet
	cur *os.Root // the directory done[:n] names, when not nil
	n   int
}

// at returns the open directory done names. last is the information of
// done's last name, looked at before: a directory opened from its parent
// must be that one, not a link swapped in for it.
func (d *dirCursor) at(done []string, last fs.FileInfo) (*os.Root, error) {
	switch {
	case len(done) == 0:
		return d.top, nil
	case d.cur != nil && d.n == len(done):
		return d.cur, nil
	}
	step := d.cur != nil && d.n == len(done)-1 // done's last name was just added, and last is its information
	var next *os.Root
	var err error
	if step {
		next, err = d.cur.OpenRoot(filepath.FromSlash(done[len(done)-1]))
	} else {
		next, err = d.top.OpenRoot(filepath.FromSlash(path.Join(done...)))
	}
	if err != nil {
		return nil, err
	}
	if step && last != nil {
		if got, err := next.Stat("."); err != nil || !os.SameFile(got, last) {
			next.Close()
			return nil, ErrChanged
		}
	}
	d.close()
	d.cur, d.n = next, len(done)
	return next, nil
}

func (d *dirCursor) lstat(done []string, last fs.FileInfo, seg string) (fs.FileInfo, error) {
	r, err := d.at(done, last)
	if err != nil {
		return nil, err
	}
	return r.Lstat(filepath.FromSlash(seg))
}

func (d *dirCursor) readlink(done []string, last fs.FileInfo, seg string) (string, error) {
	r, err := d.at(done, last)
	if err != nil {
		return "", err
	}
	return r.Readlink(filepath.FromSlash(seg))
}

// popped is called when ".." left n names: a directory below is no longer
// on the way.
func (d *dirCursor) popped(n int) {
	if d.cur != nil && d.n > n {
		d.close()
	}
}

func (d *dirCursor) close() {
	if d.cur != nil {
		d.cur.Close()
		d.cur = nil
	}
}

func changed(op, name string) error {
	return refusal(op, name, ErrChanged, fmt.Sprintf("a directory on the way to %q changed while it was being looked at", name), "try again", nil)
}

func notDir(op, name string) error {
	return refusal(op, name, ErrNotRegular, fmt.Sprintf("a name on the way to %q is a file, not a directory", name), "", nil)
}
