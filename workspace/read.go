package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolbelt-go/tool/internal/text"
)

// ReadFile returns the content of the named file. It refuses, before
// opening anything, a path outside the workspace or on the deny list, and
// a FIFO, socket, device or directory (reading a FIFO would block for
// ever); it opens without blocking, checks the opened file is the regular
// file it looked at, and refuses one over the read limit.
func (w *Workspace) ReadFile(name string) ([]byte, error) {
	b, _, err := w.readFile("read", name)
	return b, err
}

// openTries bounds how often a read starts again when the file it looked
// at was replaced before it opened it (by an atomic write, usually).
const openTries = 3

func (w *Workspace) readFile(op, name string) ([]byte, fs.FileInfo, error) {
	t, err := w.locate(op, name, Read)
	if err != nil {
		return nil, nil, err
	}
	for try := 1; ; try++ {
		b, fi, err := w.readOnce(op, name, t)
		if !errors.Is(err, ErrChanged) || try == openTries {
			return b, fi, err
		}
	}
}

func (w *Workspace) readOnce(op, name string, t target) ([]byte, fs.FileInfo, error) {
	real, fi, err := w.follow(op, name, t)
	if err != nil {
		return nil, nil, err
	}
	if fi == nil {
		return nil, nil, osError(op, name, fs.ErrNotExist)
	}
	if err := w.regular(op, name, fi); err != nil {
		return nil, nil, err
	}
	f, err := t.r.os.OpenFile(filepath.FromSlash(real), os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, osError(op, name, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, nil, osError(op, name, err)
	}
	if !opened.Mode().IsRegular() || !os.SameFile(fi, opened) {
		return nil, nil, refusal(op, name, ErrChanged, fmt.Sprintf("%q changed while it was being opened", name),
			"try again", nil)
	}
	if err := w.regular(op, name, opened); err != nil {
		return nil, nil, err
	}
	if n := openLinks(f, opened); n > 1 && !w.allowLinks {
		return nil, nil, hardLinked(op, name, n)
	}
	buf := make([]byte, 0, opened.Size()+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > w.maxRead {
			return nil, nil, w.tooLarge(op, name, int64(len(buf)), w.maxRead, true)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, osError(op, name, err)
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf)), w.maxRead+1-int64(len(buf)))))
		}
	}
	return buf, opened, nil
}

// regular refuses what is not a regular file, or is over the read limit.
func (w *Workspace) regular(op, name string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsDir() {
		return refusal(op, name, ErrNotRegular, fmt.Sprintf("%q is a directory, not a file", name),
			"list it to see the files in it", nil)
	}
	if !m.IsRegular() {
		return refusal(op, name, ErrNotRegular, fmt.Sprintf("%q is %s, not a regular file", name, kindOf(m)),
			"only regular files can be read or written", nil)
	}
	if fi.Size() > w.maxRead {
		return w.tooLarge(op, name, fi.Size(), w.maxRead, false)
	}
	return nil
}

// HardLinked reports whether the workspace refuses to read the content of
// the file fi describes because it has other names, where the system tells
// (see [Options.AllowHardLinks]): for a caller deciding about a file
// another program will read, after [Workspace.Lookup].
func (w *Workspace) HardLinked(fi fs.FileInfo) bool {
	return !w.allowLinks && fi != nil && fi.Mode().IsRegular() && HardLinks(fi) > 1
}

// hardLinked refuses a file with other names: a hard link to a file
// outside the workspace, or to a protected one, reads as a file the rules
// allow, and nothing tells where its other names are.
func hardLinked(op, name string, n int) error {
	return refusal(op, name, ErrHardLink,
		fmt.Sprintf("%q has %d names (hard links): it may be a file outside the workspace or a protected one under another name, so it is not read", name, n),
		"ask the user to replace the link with a copy if you need what it holds", nil)
}

func (w *Workspace) tooLarge(op, name string, size, limit int64, atLeast bool) error {
	more := ""
	if atLeast {
		more = "over "
	}
	return refusal(op, name, ErrTooLarge,
		fmt.Sprintf("%q is too large: %s%s, and the limit is %s", name, more, text.Size(size), text.Size(limit)),
		"search it for what you need instead of reading it whole", nil)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

// Stat returns information about the named file, following symbolic links
// inside the workspace. Its Name is the last name of the path as given.
// Special files are described, not refused: looking does not open them.
func (w *Workspace) Stat(name string) (fs.FileInfo, error) {
	t, err := w.locate("stat", name, Read)
	if err != nil {
		return nil, err
	}
	_, fi, err := w.follow("stat", name, t)
	if err != nil {
		return nil, err
	}
	if fi == nil {
		return nil, osError("stat", name, fs.ErrNotExist)
	}
	return renamed{fi, path.Base(t.rel)}, nil
}

// Lookup applies the rules of an operation on name without opening or
// reading anything, following the symbolic links in the path as a read
// would: it refuses a path outside the workspace or on the deny list, and
// one that reaches either through a link. It returns the information of
// the file the path leads to, or nil when there is none yet (which is no
// error: a name the rules allow may be created). For deciding about a path
// another program will open, as a check of a shell command's operands
// does; one that will read the file's content should refuse a file with
// other names too ([Workspace.HardLinked]), as ReadFile does.
func (w *Workspace) Lookup(name string) (fs.FileInfo, error) {
	t, err := w.locate("stat", name, Read)
	if err != nil {
		return nil, err
	}
	_, fi, err := w.resolve("stat", name, t, t.r.names(name, t.rel, w.windows))
	if err != nil || fi == nil {
		return nil, err
	}
	return renamed{fi, path.Base(t.rel)}, nil
}

// renamed is a FileInfo under the name the caller used.
type renamed struct {
	fs.FileInfo
	name string
}

func (r renamed) Name() string { return r.name }

// entry is one entry of a directory listed by ReadDir or walked by
// WalkDir. Info looks the entry up through the workspace root, never
// through a host path, which os.File.ReadDir's entries would do.
type entry struct {
	name string
	typ  fs.FileMode
	r    *root
	rel  string // of the entry, inside r, links resolved in its directory
}

func (e *entry) Name() string { return e.name }

func (e *entry) IsDir() bool { return e.typ.IsDir() }

func (e *entry) Type() fs.FileMode { return e.typ }

func (e *entry) Info() (fs.FileInfo, error) {
	fi, err := e.r.os.Lstat(filepath.FromSlash(e.rel))
	if err != nil {
		return nil, osError("stat", e.name, err)
	}
	return fi, nil
}

// ReadDir lists the named directory, sorted by name, leaving out the
// entries on the deny list. A directory with more than the entry limit is
// refused rather than listed in part.
func (w *Workspace) ReadDir(name string) ([]fs.DirEntry, error) {
	t, err := w.locate("list", name, Read)
	if err != nil {
		return nil, err
	}
	real, fi, err := w.follow("list", name, t)
	if err != nil {
		return nil, err
	}
	if fi == nil {
		return nil, osError("list", name, fs.ErrNotExist)
	}
	if !fi.IsDir() {
		return nil, refusal("list", name, ErrNotRegular, fmt.Sprintf("%q is not a directory", name), "read it as a file", nil)
	}
	ents, err := w.readDir(t.r, "list", name, t.rel, real)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(ents))
	for i, e := range ents {
		out[i] = e
	}
	return out, nil
}

// readDir lists dir (real: links resolved) inside r, filtered by the deny
// list on both the path as named (lexical) and the real one.
func (w *Workspace) readDir(r *root, op, name, lexical, real string) ([]*entry, error) {
	f, err := r.os.OpenFile(filepath.FromSlash(real), os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, osError(op, name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return nil, refusal(op, name, ErrChanged, fmt.Sprintf("%q changed while it was being listed", name), "try again", err)
	}
	des, err := f.ReadDir(w.maxEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, osError(op, name, err)
	}
	if len(des) > w.maxEntries {
		return nil, refusal(op, name, ErrTooLarge,
			fmt.Sprintf("%q has more than %d entries, too many to list", name, w.maxEntries),
			"list a subdirectory, or search for the names you need", nil)
	}
	out := make([]*entry, 0, len(des))
	for _, d := range des {
		n := d.Name()
		isDir := d.IsDir()
		if w.hidden(path.Join(lexical, n), isDir) || w.hidden(path.Join(real, n), isDir) {
			continue
		}
		out = append(out, &entry{name: n, typ: d.Type(), r: r, rel: path.Join(real, n)})
	}
	slices.SortFunc(out, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// hidden reports whether a listing leaves a path out: it is denied.
func (w *Workspace) hidden(rel string, isDir bool) bool {
	n := denyNames(rel)
	return w.deny.matchTree(n, isDir) || (isDir && matchFile(w.deny, n))
}

// WalkDir walks the tree at name as fs.WalkDir does, calling fn for each
// file and directory with its path in the form the model is shown, in
// lexical order. Denied entries are left out; symbolic links are reported
// but not followed; fn may return fs.SkipDir or fs.SkipAll. An error
// reading a directory is passed to fn, as a refusal the model can read:
// so is a directory 256 levels below name, or one whose entries' paths
// would be longer than a path may be, whose entries are not listed.
func (w *Workspace) WalkDir(name string, fn fs.WalkDirFunc) error {
	t, err := w.locate("walk", name, Read)
	if err != nil {
		return err
	}
	real, fi, err := w.follow("walk", name, t)
	if err != nil {
		return err
	}
	if fi == nil {
		return osError("walk", name, fs.ErrNotExist)
	}
	top := &entry{name: path.Base(t.rel), typ: fi.Mode().Type(), r: t.r, rel: real}
	err = w.walk(t.r, t.rel, real, top, 0, fn)
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

// maxWalkDepth is how many levels below its start a walk lists. A real
// project nests far less; a tree planted deeper (a hostile repository, a
// command's output) would cost the walk time that grows with the square
// of its depth, as each directory is opened from the root.
const maxWalkDepth = 256

func (w *Workspace) walk(r *root, lexical, real string, e *entry, depth int, fn fs.WalkDirFunc) error {
	shown := r.shown(lexical)
	if !e.IsDir() {
		return fn(shown, e, nil)
	}
	if err := fn(shown, e, nil); err != nil {
		if errors.Is(err, fs.SkipDir) {
			return nil
		}
		return err
	}
	var ents []*entry
	var err error
	switch {
	case depth >= maxWalkDepth:
		err = refusal("walk", shown, ErrInvalidPath,
			fmt.Sprintf("the entries of %q are not listed: it is %d levels deep, and a listing goes %d levels down", cut(shown, 200), depth, maxWalkDepth),
			"list it on its own to see what it holds", nil)
	case len(lexical)+2 > maxPathBytes:
		// Its entries' paths would be longer than a path the tools take.
		err = refusal("walk", shown, ErrInvalidPath,
			fmt.Sprintf("the entries of %q are not listed: their paths would be longer than %d bytes", cut(shown, 200), maxPathBytes),
			"", nil)
	default:
		ents, err = w.readDir(r, "walk", shown, lexical, real)
	}
	if err != nil {
		if err := fn(shown, e, err); err != nil && !errors.Is(err, fs.SkipDir) {
			return err
		}
		return nil
	}
	for _, c := range ents {
		if err := w.walk(r, path.Join(lexical, c.name), c.rel, c, depth+1, fn); err != nil {
			if errors.Is(err, fs.SkipDir) && !c.IsDir() {
				return nil // SkipDir from a file skips the rest of its directory
			}
			return err
		}
	}
	return nil
}
