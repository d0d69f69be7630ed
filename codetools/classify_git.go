package codetools

import (
	"slices"
	"strings"

	"github.com/toolbelt-go/tool"
)

// gitReadOnly are the git commands that only read the repository.
var gitReadOnly = setOf("status", "diff", "log", "show", "blame", "annotate", "rev-parse", "ls-files", "ls-tree",
	"cat-file", "describe", "shortlog", "grep", "whatchanged", "version", "help", "count-objects", "for-each-ref",
	"name-rev", "merge-base", "rev-list", "show-ref", "check-ignore", "var", "show-branch", "range-diff")

// gitGlobal are git's own options before the subcommand: those that take
// a value, and those that do not.
var (
	gitGlobalValue = setOf("--namespace", "--super-prefix", "--list-cmds", "--attr-source")
	gitGlobalFlag  = setOf("-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--no-lazy-fetch",
		"--bare", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
		"--no-optional-locks", "--html-path", "--man-path", "--info-path", "--version", "--help", "-v", "-h")
)

// gitRuns are, per subcommand, the options that make git run a program
// the person did not see (a pager, a remote's helper, a command per
// commit) or write a file; "*" applies to every subcommand. Git accepts
// any unambiguous prefix of a long option, so a prefix of one of these
// counts as it.
var gitRuns = map[string][]string{
	"*":         {"--upload-pack", "--receive-pack", "--exec"},
	"grep":      {"-O", "--open-files-in-pager"},
	"rebase":    {"-x"},
	"difftool":  {"-x", "--extcmd", "--tool", "-t"},
	"help":      {"-w", "--web", "-i", "--info", "-m", "--man"},
	"ls-remote": {"-u"},
	"fetch":     {"-u"},
	"clone":     {"-u", "--template"},
	"archive":   {"--remote"},
}

func runGit(c *classifier, n string, args []shWord) {
	cwd, lost := c.cwd, c.lostCwd
	defer func() { c.cwd, c.lostCwd = cwd, lost }()
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		name, val, eq := strings.Cut(t, "=")
		switch {
		case t == "-c" || name == "--config-env" || name == "--exec-path" && eq:
			c.cannot("git " + t + " can make git run any program")
			return
		case t == "-C":
			if i+1 < len(args) {
				c.cd(args[i+1])
			}
			i++
		case name == "--git-dir" || name == "--work-tree":
			if eq {
				c.read(shWord{text: val, dollar: args[i].dollar, glob: args[i].glob, tilde: args[i].tilde}, names)
			} else if i+1 < len(args) {
				c.read(args[i+1], names)
				i++
			}
		case gitGlobalValue[name]:
			if !eq {
				i++
			}
		case gitGlobalFlag[t] || name == "--exec-path":
		case strings.HasPrefix(t, "-"):
			c.cannot("the check does not know the git option " + cut(t, 40))
			return
		default:
			goto sub
		}
	}
	return // git alone, git --version
sub:
	sub := args[i].text
	rest := args[i+1:]
	scope := "git " + sub
	if c.gitRuns != nil && !c.lostCwd {
		if why := c.gitRuns(c.cwd); why != "" {
			c.cannot("git here runs what the repository tells it to, with your rights, and " + why)
			return
		}
	}
	if o := gitDangerous(sub, rest); o != "" {
		c.cannot("git " + sub + " " + o + " runs a program or writes where the check cannot see")
		return
	}
	if !gitReadOnly[sub] && sub != "config" {
		c.gitChange(sub, rest)
	}
	switch {
	case gitReadOnly[sub]:
		if slices.ContainsFunc(rest, func(w shWord) bool { return gitMatches(w.text, "--output") }) {
			c.raise(tool.SafetyDestructive, "git "+sub+" --output replaces a file", scope+" --output")
			return
		}
		c.gitRead(sub, rest)
	case sub == "branch":
		switch {
		case gitHas(rest, "-D", "--delete", "-M", "-C", "--force", "-f"):
			c.raise(tool.SafetyDestructive, "git branch -D/-M/-f can drop commits", scope)
		case gitHas(rest, "-d", "-m", "-c", "--move", "--copy", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description") || len(gitOperands(rest)) > 0 && !gitHas(rest, "-l", "--list", "--contains", "--merged", "--no-merged", "--points-at"):
			c.raise(tool.SafetyMutating, "git branch changes branches", scope)
		}
	case sub == "tag":
		switch {
		case gitHas(rest, "-d", "--delete", "-f", "--force"):
			c.raise(tool.SafetyDestructive, "git tag -d/-f drops or moves a tag", scope)
		case !gitHas(rest, "-l", "--list", "--contains", "--merged", "--no-merged", "--points-at") && len(gitOperands(rest)) > 0:
			c.raise(tool.SafetyMutating, "git tag makes a tag", scope)
		}
	case sub == "remote":
		ops := gitOperands(rest)
		switch {
		case len(ops) == 0 || ops[0].text == "get-url":
		case ops[0].text == "show":
			c.raise(tool.SafetyNetwork, "git remote show asks the remote", scope+" show")
		default:
			c.raise(tool.SafetyMutating, "git remote changes remotes", scope+" "+cut(ops[0].text, 20))
		}
	case sub == "config":
		c.gitConfig(rest)
	case sub == "stash":
		ops := gitOperands(rest)
		switch {
		case len(ops) > 0 && ops[0].text == "show" && gitHas(rest, "-p", "--patch", "-u", "--include-untracked", "--only-untracked"):
			// A stash holds what was staged and in the work tree, a
			// protected file's content among it.
			c.named("git stash show -p (prints stashed files, which may hold what a protected file held)")
		case len(ops) > 0 && (ops[0].text == "list" || ops[0].text == "show"):
		case len(ops) > 0 && (ops[0].text == "drop" || ops[0].text == "clear"):
			c.raise(tool.SafetyDestructive, "git stash drop/clear loses stashed changes", scope+" "+ops[0].text)
		default:
			c.raise(tool.SafetyMutating, "git stash changes the work tree", scope)
		}
	case sub == "reflog":
		ops := gitOperands(rest)
		if len(ops) > 0 && (ops[0].text == "expire" || ops[0].text == "delete") {
			c.raise(tool.SafetyDestructive, "git reflog expire/delete loses history", scope+" "+ops[0].text)
		}
	case sub == "reset":
		if gitHas(rest, "--hard", "--merge", "--keep") {
			c.raise(tool.SafetyDestructive, "git reset --hard discards changes", scope+" --hard")
		} else {
			c.raise(tool.SafetyMutating, "git reset moves the branch", scope)
		}
	case sub == "clean":
		if !gitHas(rest, "-n", "--dry-run") {
			c.raise(tool.SafetyDestructive, "git clean deletes untracked files", scope)
		}
	case sub == "checkout" || sub == "switch":
		if gitHas(rest, "-f", "--force", "--discard-changes", "-p", "--patch") || slices.ContainsFunc(rest, func(w shWord) bool { return w.text == "--" || w.text == "." }) {
			c.raise(tool.SafetyDestructive, "git "+sub+" with paths or --force discards changes", scope+" --force")
		} else {
			c.raise(tool.SafetyMutating, "git "+sub+" changes the work tree", scope)
		}
	case sub == "restore":
		if gitHas(rest, "-S", "--staged") && !gitHas(rest, "-W", "--worktree") {
			c.raise(tool.SafetyMutating, "git restore --staged unstages changes", scope+" --staged")
		} else {
			c.raise(tool.SafetyDestructive, "git restore discards changes in the work tree", scope)
		}
	case sub == "push":
		if gitHas(rest, "-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "-d", "--prune") ||
			slices.ContainsFunc(rest, func(w shWord) bool { return strings.HasPrefix(w.text, "+") || strings.HasPrefix(w.text, ":") }) {
			c.raise(tool.SafetyDestructive, "git push --force/--delete can lose commits on the remote", scope+" --force")
		} else {
			c.raise(tool.SafetyNetwork, "git push sends commits to a remote", scope)
		}
	case sub == "fetch" || sub == "ls-remote":
		c.raise(tool.SafetyNetwork, "git "+sub+" reaches a remote", scope)
	case sub == "bisect" && len(rest) > 0 && rest[0].text == "run", sub == "submodule" && slices.ContainsFunc(rest, func(w shWord) bool { return w.text == "foreach" }):
		c.cannot("git " + sub + " runs a command the check does not follow")
	case sub == "rm" || sub == "filter-branch" || sub == "filter-repo" || sub == "prune" || sub == "update-ref" && gitHas(rest, "-d"):
		c.raise(tool.SafetyDestructive, "git "+sub+" deletes files or history", scope)
	case sub == "gc" && slices.ContainsFunc(rest, func(w shWord) bool { return strings.HasPrefix(w.text, "--prune") }):
		c.raise(tool.SafetyDestructive, "git gc --prune deletes unreachable objects", scope+" --prune")
	default:
		c.raise(tool.SafetyMutating, "git "+sub+" changes the repository", scope)
	}
}

// gitDangerous returns the option that makes a git command run a program
// or write a file the person did not see, if one is there.
func gitDangerous(sub string, args []shWord) string {
	for _, w := range args {
		t := w.text
		if t == "--" {
			return ""
		}
		for _, d := range slices.Concat(gitRuns["*"], gitRuns[sub]) {
			if gitMatches(t, d) {
				return d
			}
		}
	}
	return ""
}

// gitMatches reports whether the word t is the option o, given whole, with
// a value (--o=x, -ox), in a group of short options (-xo), or, for a long
// option, as a prefix of it at least three letters long (git's
// abbreviations).
func gitMatches(t, o string) bool {
	name, _, _ := strings.Cut(t, "=")
	switch {
	case strings.HasPrefix(o, "--"):
		return name == o || strings.HasPrefix(name, "--") && len(name) >= 5 && strings.HasPrefix(o, name)
	case strings.HasPrefix(t, "--") || !strings.HasPrefix(t, "-"):
		return false
	}
	return strings.ContainsRune(t[1:], rune(o[1])) // -x in -x, -xcmd, -px
}

// gitHas reports whether one of the options was given.
func gitHas(args []shWord, opts ...string) bool {
	for _, w := range args {
		if w.text == "--" {
			return false
		}
		name, _, _ := strings.Cut(w.text, "=")
		for _, o := range opts {
			if name == o || len(o) == 2 && len(name) > 2 && name[0] == '-' && name[1] != '-' && name[1:2] == o[1:] {
				return true
			}
		}
	}
	return false
}

// gitOperands returns the words that are not options.
func gitOperands(args []shWord) []shWord {
	var out []shWord
	for i, w := range args {
		if w.text == "--" {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(w.text, "-") {
			out = append(out, w)
		}
	}
	return out
}

// gitRead checks the paths a reading git command names: its operands
// (revisions are checked too, harmlessly), the path of rev:path (git show
// HEAD:.env prints a committed .env), and the files its options read. A
// command that prints whole commits (git log -p) can still show a
// protected file that was committed: the check cannot see which files a
// commit holds, nor can a sandbox, which shows .git so that git works.
func (c *classifier) gitRead(sub string, args []shWord) {
	noIndex := false
	for i, w := range args {
		t := w.text
		name, val, eq := strings.Cut(t, "=")
		switch {
		case t == "--":
		case gitMatches(t, "--no-index"):
			noIndex = true
		case name == "--contents" || name == "--ignore-revs-file" || name == "--exclude-from" || name == "--file" || t == "-S" || t == "-X" || t == "-f":
			switch {
			case eq:
				c.read(shWord{text: val}, contents)
			case i+1 < len(args):
				c.read(args[i+1], contents)
			}
		case strings.HasPrefix(t, "-"):
		default:
			if rev, p, ok := strings.Cut(t, ":"); ok && p != "" {
				if rev == "" || isDigits(rev) && len(rev) == 1 {
					// :path, :2:path: the copy in the index, staged,
					// which a sandbox cannot hide: a protected file's
					// content may be staged under any name.
					c.named(cut(t, 60) + " (a staged file, which may hold what a protected file held)")
					continue
				}
				c.read(shWord{text: strings.TrimPrefix(p, "./"), dollar: w.dollar, glob: w.glob, tilde: w.tilde}, contents)
				continue
			}
			if noIndex {
				c.readDir(w)
			} else {
				c.read(w, contents)
			}
		}
	}
	// What is staged: printed from git's objects, which a sandbox shows
	// (so that git works) and cannot hide a protected file's content in.
	switch {
	case sub == "diff" && gitHas(args, "--cached", "--staged"):
		c.named("git diff --cached (prints staged files, which may hold what a protected file held)")
	case sub == "grep" && gitHas(args, "--cached"):
		c.named("git grep --cached (searches staged files, which may hold what a protected file held)")
	case sub == "cat-file" && !gitCatFileHarmless(args):
		c.named("git cat-file (prints objects, staged files' among them)")
	}
	if sub == "grep" {
		c.unseen("git grep (searches every tracked file)")
	}
	if noIndex && sub == "grep" {
		c.unseen("git grep --no-index (searches a whole tree)")
	}
}

// gitCatFileHarmless reports whether git cat-file prints only what an
// object is (-t), its size (-s) or that it exists (-e), not its content.
func gitCatFileHarmless(args []shWord) bool {
	info := false
	for _, w := range args {
		switch w.text {
		case "-t", "-s", "-e":
			info = true
		case "--":
		default:
			if strings.HasPrefix(w.text, "-") {
				return false
			}
		}
	}
	return info
}

// gitConfig: reading is read-only; a write is scoped to the key it sets,
// since a key decides what git runs later (core.pager, core.fsmonitor,
// alias.*), outside any sandbox too.
func (c *classifier) gitConfig(args []shWord) {
	if gitHas(args, "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--show-origin", "--show-scope", "--name-only") {
		return
	}
	ops := gitOperands(args)
	switch {
	case len(ops) > 0 && (ops[0].text == "get" || ops[0].text == "list"):
		return
	case len(ops) == 1 && !gitHas(args, "--unset", "--unset-all", "--remove-section", "--rename-section", "--add", "--replace-all", "-e", "--edit"):
		return // git config KEY prints it
	}
	key := "(edit)"
	for _, o := range ops {
		if o.text != "set" && o.text != "unset" {
			key = cut(o.text, 60)
			break
		}
	}
	c.raise(tool.SafetyMutating, "git config changes settings, some of which run programs", "git config "+key)
}

// gitMessageFrom are the subcommands whose -F (and commit's -t) reads a
// file: a message, a template.
var gitMessageFrom = setOf("commit", "tag", "notes", "merge")

// gitChange checks the paths a git command that changes the repository
// names: its operands (pathspecs, patches, the values of options given
// apart) and the files its options read (git commit -F .env puts the file
// in history, which git log then prints). A word that is no path (a
// message, a revision) names nothing in the workspace and passes.
func (c *classifier) gitChange(sub string, args []shWord) {
	for _, w := range gitOperands(args) {
		c.read(w, contents)
	}
	for _, w := range args {
		t := w.text
		if t == "--" {
			return
		}
		name, val, eq := strings.Cut(t, "=")
		switch {
		case eq && (name == "--file" || name == "--template" || name == "--pathspec-from-file"):
		case gitMessageFrom[sub] && len(t) > 2 && strings.HasPrefix(t, "-F"):
			val = t[2:]
		case sub == "commit" && len(t) > 2 && strings.HasPrefix(t, "-t"):
			val = t[2:]
		default:
			continue
		}
		c.read(shWord{text: val, dollar: w.dollar, glob: w.glob, tilde: w.tilde}, contents)
	}
}
