// Package workspace confines the file access of tools to a directory tree,
// the workspace, for paths a model writes: often wrong, sometimes steered
// by a prompt injection.
//
//	ws, err := workspace.Open("/srv/checkout", nil) // DefaultDeny protects .git, .env, keys
//	if err != nil { ... }
//	defer ws.Close()
//	data, err := ws.ReadFile(in.Path) // a *tool.Error for the model if refused
//
// It is built on [os.Root], which resolves every name inside the root
// with the operating system's help (openat with O_NOFOLLOW, one name at a
// time), so a symbolic link swapped in during a call cannot lead out of
// it. Around that, the workspace adds the rules a coding agent needs:
//
//   - Paths are relative to the workspace root; "." is the root. ".." is
//     resolved lexically, as filepath.Clean does, and a path that climbs
//     above the root is refused. An absolute path is accepted only inside
//     the root (or a write root), compared name by name, so /srv/app2 is not
//     inside /srv/app.
//   - Symbolic links are followed for reads when they are relative and
//     stay inside the root; an absolute link, or one that leads out, is
//     refused (os.Root's own rule). The deny list applies to where a link
//     leads as well as to its name. Writes through a link, as the file or
//     any directory above it, are refused even when the link stays inside:
//     writes go only where their path says.
//   - A deny list (DefaultDeny: .git, .env, private keys, the credential
//     files of a maintained catalogue) hides paths from every operation
//     and listing; read-only patterns refuse writes; extra write roots add
//     directories outside the root.
//   - A regular file with more than one name (a hard link), where the
//     system tells, is not read: its content may be a file outside the
//     workspace, or a protected one, under a name the rules allow.
//   - FIFOs, sockets and devices are refused before they are opened (a
//     FIFO would block the reader for ever), and files are opened with
//     O_NONBLOCK and checked again after opening, in case one was swapped
//     in. Reads and writes have size limits.
//   - Writes are atomic: a temporary file in the same directory takes the
//     file's place by rename, keeping its permission bits.
//   - Every refusal is a *tool.Error written for the model ("path escapes
//     the workspace: \"../../etc/passwd\"", with a hint), whose Cause, a
//     *PathError wrapping one of the Err… values, is for the host. Host
//     paths appear only in the cause, never in the message.
//
// # Limits
//
// The rules hold against paths, not against everything that can happen on
// the machine. Another process changing the tree during a call can
// make an operation fail, but not leave the root: os.Root holds that line.
// The deny check of a path that is read follows its links before opening,
// so a link swapped in between the check and the open can reach a denied
// file inside the root for that one read; writes are not affected (they
// refuse links, and check the directory they write in after opening it).
//
// # Commands
//
// Commands a tool runs open files themselves. [Workspace.Prepare] builds,
// from the same rules, the sandbox that confines a command on Linux (see
// process.Sandbox), and holds the workspace for the command so that no
// other command changes the tree under it; [Workspace.Lookup] checks a
// path a command will open before it runs, with ".." resolved after links,
// as the kernel resolves it.
//
// # Other systems
//
// os.Root holds the root on Linux, macOS and the BSDs with openat and
// O_NOFOLLOW, and on Windows with handle-relative opens; on every one it
// follows links only inside the root and refuses absolute ones. It does
// not refuse device files or /proc (the workspace does, by file type), and
// its Chmod can act on a link swapped in during the call on Unix (the
// workspace sets permissions on the open file instead). The workspace's
// rules are the same on Linux, macOS and Windows, with these differences,
// all on the side of refusing:
//
//   - On macOS and Windows, file systems usually ignore case, and macOS
//     also the Unicode normalization of names. The deny and read-only
//     lists are matched with case and normalization folded everywhere, so
//     ".ENV" is denied like ".env" on every system.
//   - On Windows, \ is a separator as well as /; drive letters and UNC
//     paths are absolute paths; names Windows would read as another name
//     are refused: names ending in a dot or space (".env." opens ".env"),
//     names with a colon (alternate data streams), names that look like
//     short names (NAME~1) and device names (CON, NUL, COM1…, which os.Root
//     refuses too). The deny list is matched with trailing dots and spaces
//     dropped on every system.
//   - Windows has no FIFOs or device files in the file system, and
//     O_NONBLOCK is not used there. Replacing a file that another process
//     holds open fails on Windows (the error says so) where it succeeds
//     elsewhere.
//   - Creating symbolic links needs a privilege on Windows; links made
//     anyway are handled as everywhere.
package workspace
