// Package codetools is a reference set of coding tools for an agent,
// confined to a workspace: read_file, list_dir, find, grep, edit_file,
// write_file and run_shell. It is built only on the public API of package
// tool, so it doubles as an example of tools written to use every part of
// the pipeline.
//
//	ws, err := workspace.Open(repo, nil) // the guard: .git, .env, keys denied
//	if err != nil { ... }
//	defer ws.Close()
//	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
//	reg.MustAdd(codetools.New(ws, nil).Tools()...)
//	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: askTheUser}))
//
// # The tools
//
//	tool        class                               what it uses
//	read_file   ReadOnly                            OutputArgs and CapItems: 500 lines, then pages by offset
//	list_dir    ReadOnly                            NewPaginated: signed cursors, 100 entries a page
//	find        ReadOnly                            OutputArgs and CapFiles; .gitignore honoured
//	grep        ReadOnly                            NewPaginated, 50 matches a page; .gitignore honoured
//	edit_file   Mutating                            a diff preview (Describe), staleness check
//	write_file  Mutating; Destructive to overwrite  a diff preview, staleness check
//	run_shell   per command (see ClassifyCommand)   process.Run, Classify, Require, Describe
//
// With [tool.AskForWritesPolicy], the reads run at once and every write is
// asked about: edits and writes with a diff, commands with their class.
// run_shell asks every time for a destructive command and for one its check
// cannot follow (a wrapper that hides what it runs, an option that writes
// a file or runs a program); "allow always" for another command covers
// that command only, as the person saw it (program and subcommand, behind
// its wrappers: "go test", "nice go test", "make build"), and a command
// that names a path outside the workspace or on its deny list, through
// ".." or a link, is asked about too, as read_file would refuse it.
//
// Every path goes through the [workspace.Workspace]: refusals come back to
// the model as tool errors that say what to do instead.
//
// # The sandbox
//
// On Linux, run_shell runs each command in a sandbox built from the
// workspace's rules ([workspace.Workspace.Prepare], [process.Sandbox]),
// whatever the check said: a command approved as read-only may write
// nothing; another may write only in the workspace (and a private
// temporary directory), the repositories only when it runs git alone;
// neither sees anything of the user's outside the workspace but the
// system's programs, nor the files on the deny list (under whatever name
// they were given since), nor the network (unless
// [SandboxOptions.Network]), within the bounds of [SandboxOptions.Limits].
// Commands of one workspace wait for one another when they could race. With a sandbox, a
// read-only command whose files the check cannot see (grep -r, a pattern)
// runs without a question; without one ([Toolset.Sandbox] says which, and
// why), it is asked about. docs/sandbox.md says, per system, what is
// enforced and what is not.
//
// # Conversations
//
// edit_file and write_file refuse to change a file that the model has not
// read, or that changed since it last read it (or wrote it): the toolset
// remembers a hash of what the model last saw of each file, at most
// [Options.MaxRemembered] files, least recently used out first. That
// memory is kept per session (tool.Request.Session): what one
// conversation's model read never lets another's change the file, so one
// Toolset in one registry can serve many conversations, as an MCP server's
// sessions are; calls without a session share one memory. A host may
// still make a Toolset per conversation, over one shared
// *workspace.Workspace when they work on the same tree; a Toolset costs
// its tools and its memory, nothing else. [Toolset.Forget] clears the
// memory when the host drops earlier turns from the conversation.
//
// # Output
//
// Long results stay small for the model: read_file and find show a first
// part and say how to page on, list_dir and grep answer a page at a time
// with a signed cursor, and run_shell keeps the head and tail of a
// command's output (1 MiB of each stream by default), of which the
// registry's output cap shows the model one part; give the registry a
// spill store (RegistryOptions.Spill) and the model reads the rest with
// read_output.
package codetools
