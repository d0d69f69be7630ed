// Package process runs programs for tools: [Run] runs one under a call's
// context, so that when the call is cancelled or times out the program and
// everything it started are gone and the call returns; [NewCLI] exposes an
// existing program as a tool; [HeadTailBuffer] keeps the head and the tail
// of any amount of output in bounded memory.
//
//	res, err := process.Run(ctx, process.Command{Path: "go", Args: []string{"test", "./..."}, Dir: repo})
//	if err != nil {
//		return "", err // could not start, or stopped: the model is told which, the host sees why
//	}
//	// res.ExitCode, res.Stdout, res.Stderr, res.StdoutDropped, res.Duration, res.PipesHeld
//
// # Guarantees
//
// When Run returns, the program has exited and so has every process it
// started that Run can reach, whether the program exited, timed out or was
// cancelled. What it can reach depends on the platform:
//
//   - Linux with a writable cgroup v2 (root, or a delegated subtree such as
//     a systemd user service with Delegate=yes): every descendant. The
//     program starts inside a cgroup of its own (CLONE_INTO_CGROUP), and
//     the whole cgroup is killed (cgroup.kill) and removed. Only a process
//     that moves itself to another cgroup escapes, which takes the rights
//     to the cgroup tree (root, or the delegated owner), as systemd-run
//     --scope does. Processes another service starts on the program's
//     behalf (systemctl start, docker run's container) were never its
//     descendants.
//   - Linux without one (a container whose /sys/fs/cgroup is read-only,
//     cgroup v1 only): the program's process group, plus every process
//     whose environment carries the command's mark, plus their children
//     and descendants by parent link, found in /proc. A descendant escapes
//     when it has left the process group (setsid, setpgid), no longer
//     carries the mark (it cleared its environment, or wrote its process
//     title over it, as nginx, postgres, sshd and perl's $0 do), and has no
//     parent in the tree (its parent exited: a daemon's double fork).
//     Processes of other users, which Run may not signal, escape too.
//   - macOS and the BSDs: the program's process group. A descendant that
//     starts its own session or process group escapes.
//   - Windows: the process tree taskkill /T walks from the program, by
//     parent links, while the program lives. A descendant whose parent has
//     exited is no longer linked to the tree and escapes, and so does what a
//     program that exits on its own leaves running.
//
// If the host itself dies (a crash, SIGKILL), the commands it was running
// are not stopped. On Linux their cgroups remain, named
// toolbelt-<host PID>-<random> under the host's cgroup; the next host in
// the same cgroup removes the empty ones.
//
// # Sandbox
//
// On Linux, [Command.Sandbox] confines a program and everything it starts
// to the paths and network it allows, enforced by the kernel whatever the
// program does: with bubblewrap's namespaces where bubblewrap can run,
// else with Landlock and a seccomp filter; [DetectSandbox] says which this
// machine offers, and why not the other. The guarantees above hold inside
// a sandbox too. Elsewhere (macOS, Windows, a kernel without Landlock and
// no usable bubblewrap), Run refuses a command with a Sandbox rather than
// run it unconfined.
//
// A program's environment is [MinimalEnv] unless the host passes another:
// a program cannot print the host's API keys for the model to read. The
// errors of Run name the program by its base name, never its path,
// arguments or environment.
package process
