package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/toolbelt-go/tool/internal/text"
)

// NewFileMode is the permission of a file the workspace creates; a file it
// replaces keeps its own.
const NewFileMode fs.FileMode = 0o644

// WriteFile writes data to the named file, creating it or replacing it
// whole. Missing parent directories are created (0755). The write is
// atomic: data goes to a temporary file in the same directory, which then
// takes the file's place, so a reader sees the old content or the new,
// never a mix, and a crash leaves the old file. A replaced file keeps its
// permission bits (not its owner, and other hard links to it keep the old
// content).
//
// WriteFile refuses a path outside the workspace, denied or read-only; a
// path through a symbolic link, as the file or as any directory above it,
// even one that stays inside the workspace (a link is how a write would
// leave the rules); a directory or special file in the file's place; and
// data over the write limit.
func (w *Workspace) WriteFile(name string, data []byte) error {
	return w.write("write", name, data, false)
}

// CreateFile is WriteFile for a file that must not exist yet: if it does,
// even when it is created by someone else during the call, CreateFile
// fails with an error that matches fs.ErrExist, and the file is left as it
// is.
func (w *Workspace) CreateFile(name string, data []byte) error {
	return w.write("create", name, data, true)
}

func (w *Workspace) write(op, name string, data []byte, create bool) error {
	t, err := w.locate(op, name, Write)
	if err != nil {
		return err
	}
	if t.rel == "." {
		return refusal(op, name, ErrNotRegular, fmt.Sprintf("%q is a directory, not a file", name), "name a file inside it", nil)
	}
	if int64(len(data)) > w.maxWrite {
		return refusal(op, name, ErrTooLarge,
			fmt.Sprintf("the content for %q is %s, over the %s write limit", name, text.Size(int64(len(data))), text.Size(w.maxWrite)),
			"write less: split the content across files, or change the file in smaller edits", nil)
	}
	r := t.r.os
	dir, base := path.Split(t.rel)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	parent, err := w.parentDir(op, name, r, dir)
	if err != nil {
		return err
	}
	mode := NewFileMode
	switch fi, err := r.Lstat(filepath.FromSlash(t.rel)); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return osError(op, name, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return symlinkRefusal(op, name)
	case fi.IsDir():
		return refusal(op, name, ErrNotRegular, fmt.Sprintf("%q is a directory, not a file", name), "name a file inside it", nil)
	case !fi.Mode().IsRegular():
		return refusal(op, name, ErrNotRegular, fmt.Sprintf("%q is %s, not a regular file", name, kindOf(fi.Mode())),
			"only regular files can be read or written", nil)
	case create:
		return osError(op, name, fs.ErrExist)
	default:
		mode = fi.Mode().Perm()
	}

	// Work inside the parent directory, opened as a root of its own, and
	// check it is still the directory the walk above found: if a name on
	// the way was swapped for a link since, the write stops here.
	pr := r
	if dir != "." {
		if pr, err = r.OpenRoot(filepath.FromSlash(dir)); err != nil {
			return osError(op, name, err)
		}
		defer pr.Close()
	}
	if got, err := pr.Stat("."); err != nil || !os.SameFile(got, parent) {
		return refusal(op, name, ErrChanged, fmt.Sprintf("a directory on the way to %q changed during the write", name), "try again", err)
	}

	tmp := tempName(base)
	if err := writeTemp(pr, tmp, data, mode, !w.noSync); err != nil {
		return osError(op, name, err)
	}
	if !create {
		if err := pr.Rename(tmp, base); err != nil {
			_ = pr.Remove(tmp)
			return osError(op, name, err)
		}
		return nil
	}
	// A hard link is created only if the name is free, atomically: the
	// file appears whole, and an existing one is never replaced.
	err = pr.Link(tmp, base)
	_ = pr.Remove(tmp)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return osError(op, name, fs.ErrExist)
	}
	// No hard links on this file system: create the file exclusively and
	// write it in place, which is not atomic but never replaces a file.
	f, err := pr.OpenFile(base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return osError(op, name, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return osError(op, name, err)
	}
	return nil
}

// parentDir checks the directories on the way to a file being written,
// creating the missing ones, and returns the information of the last. Each
// must be a directory, not a link to one.
func (w *Workspace) parentDir(op, name string, r *os.Root, dir string) (fs.FileInfo, error) {
	fi, err := r.Lstat(".")
	if err != nil || dir == "." {
		if err != nil {
			return nil, osError(op, name, err)
		}
		return fi, nil
	}
	for made := false; ; made = true {
		missing := false
		cur := ""
		for seg := range strings.SplitSeq(dir, "/") {
			cur = path.Join(cur, seg)
			fi, err = r.Lstat(filepath.FromSlash(cur))
			if errors.Is(err, fs.ErrNotExist) && !made {
				missing = true
				break
			}
			if err != nil {
				return nil, osError(op, name, err)
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				return nil, symlinkRefusal(op, name)
			}
			if !fi.IsDir() {
				return nil, notDir(op, name)
			}
		}
		if !missing {
			return fi, nil
		}
		// Then check again what was just made: plain directories too.
		if err := r.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return nil, osError(op, name, err)
		}
	}
}

func symlinkRefusal(op, name string) error {
	return refusal(op, name, ErrSymlink,
		fmt.Sprintf("%q goes through a symbolic link, and writes through links are refused", name),
		"write to the path the link points to, if it is inside the workspace", nil)
}

// tempName is a name next to base that no one else uses, kept within the
// length file systems allow.
func tempName(base string) string {
	if len(base) > 200 {
		base = cut(base, 200)
	}
	return fmt.Sprintf(".%s.%08x.tmp", base, rand.Uint32())
}

func writeTemp(r *os.Root, tmp string, data []byte, mode fs.FileMode, sync bool) error {
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode) // on the open file, so no link can redirect it
	}
	if err == nil && sync {
		err = f.Sync() // or a crash soon after the rename may leave an empty file
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = r.Remove(tmp)
	}
	return err
}
