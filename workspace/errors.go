package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/toolbelt-go/tool"
)

// Why an operation was refused. Each is wrapped in the [*PathError] that
// is the Cause of the [*tool.Error] a method returns, for the host to test
// with errors.Is; the model reads the tool.Error's own message.
var (
	// ErrOutside: the path leads outside the workspace, by "..", as an
	// absolute path, or through a symbolic link.
	ErrOutside = errors.New("workspace: path escapes the workspace")
	// ErrDenied: the path, or a directory above it, is on the deny list.
	ErrDenied = errors.New("workspace: path is protected")
	// ErrReadOnly: a write to a read-only subtree.
	ErrReadOnly = errors.New("workspace: path is read-only")
	// ErrSymlink: a write through a symbolic link (as the file or as a
	// directory above it).
	ErrSymlink = errors.New("workspace: write through a symbolic link")
	// ErrNotRegular: a FIFO, a socket, a device or another special file,
	// refused before it is opened; or a directory where a file is needed.
	ErrNotRegular = errors.New("workspace: not a regular file")
	// ErrTooLarge: a read or a write over the size limit.
	ErrTooLarge = errors.New("workspace: file too large")
	// ErrInvalidPath: a path that is empty, too long, not UTF-8, holds a
	// NUL byte, a control character or (on Windows) a name the system
	// would read differently, or goes through too many symbolic links.
	ErrInvalidPath = errors.New("workspace: invalid path")
	// ErrHardLink: a read of a regular file that has other names (hard
	// links), where the platform tells: its content may be a file outside
	// the workspace, or a protected one, under a name the rules allow.
	ErrHardLink = errors.New("workspace: file has other names (hard links)")
	// ErrChanged: the file system changed under an operation in a way that
	// could have let it leave its checks (a directory swapped for a link).
	ErrChanged = errors.New("workspace: the file system changed during the operation")
)

// PathError is the host's view of a failed operation. Path is the path as
// the caller gave it (the model's words, never a host path the model was
// not given); Err is one of the Err… values above, or the operating
// system's error, or both, joined. Unlike the model's message, Err may
// name host paths.
type PathError struct {
	Op   string // "read", "write", "create", "list", "stat", "walk"
	Path string
	Err  error
}

// Error returns the operation, the path and the cause, for logs.
func (e *PathError) Error() string { return "workspace: " + e.Op + " " + e.Path + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *PathError) Unwrap() error { return e.Err }

// refusal builds the error every method returns: a message and a hint
// written for the model, the facts for the host.
func refusal(op, name string, kind error, msg, hint string, cause error) error {
	err := kind
	if cause != nil {
		err = errors.Join(kind, cause)
	}
	return &tool.Error{Message: msg, Hint: hint, Cause: &PathError{Op: op, Path: name, Err: err}}
}

func escapes(op, name string, how string) error {
	return refusal(op, name, ErrOutside,
		fmt.Sprintf("path escapes the workspace%s: %q", how, name),
		`paths are relative to the workspace root ("." is the root itself); absolute paths must lie inside it`, nil)
}

func invalidPath(op, name, why string) error {
	return refusal(op, name, ErrInvalidPath, fmt.Sprintf("invalid path %q: %s", cut(name, 200), why),
		"write the path relative to the workspace root, with / between names", nil)
}

// osError maps an operating-system error to a message for the model that
// says what happened without the host paths the OS error carries.
func osError(op, name string, err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return err // already one of ours
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refusal(op, name, fs.ErrNotExist, fmt.Sprintf("no such file or directory: %q", name),
			"check the path: list the directory to see what is there", err)
	case errors.Is(err, fs.ErrExist):
		return refusal(op, name, fs.ErrExist, fmt.Sprintf("%q already exists", name), "", err)
	case errors.Is(err, fs.ErrPermission):
		return refusal(op, name, fs.ErrPermission, fmt.Sprintf("permission denied: %q", name),
			"the operating system does not let this process "+opVerb(op)+" it", err)
	case isEscapeError(err):
		return refusal(op, name, ErrOutside, fmt.Sprintf("path escapes the workspace through a symbolic link: %q", name),
			"the link points outside the workspace (or is absolute, which is never followed); use a path inside it", err)
	case errors.Is(err, syscall.ENOTDIR):
		return refusal(op, name, err, fmt.Sprintf("a name on the way to %q is a file, not a directory", name), "", err)
	case errors.Is(err, syscall.ELOOP):
		return refusal(op, name, ErrInvalidPath, fmt.Sprintf("too many levels of symbolic links in %q", name), "", err)
	}
	// The errno text ("no space left on device") names no path; anything
	// else might, so the model gets a generic message.
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return refusal(op, name, err, fmt.Sprintf("could not %s %q: %s", opVerb(op), name, errno.Error()), "", err)
	}
	return &tool.Error{Message: fmt.Sprintf("could not %s %q", opVerb(op), name),
		Hint: "an error the operator can see in the logs", Cause: &PathError{Op: op, Path: name, Err: err}}
}

// isEscapeError recognizes os.Root's refusal of a path that leaves the
// root, which it reports with an unexported error value.
func isEscapeError(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

func opVerb(op string) string {
	switch op {
	case "list", "walk":
		return "list"
	case "stat":
		return "look at"
	case "write", "create":
		return "write"
	}
	return "read"
}
