package codetools

import (
	"path"
	"slices"
	"strings"

	"github.com/toolbelt-go/tool"
)

// ClassifyCommand returns the safety class of a shell command line, from
// its text alone, as run_shell's approval step sees it:
//
//   - ReadOnly for commands known only to read or print (ls, cat, grep
//     without -r, git status, git diff, go list…);
//   - Network for commands that reach other machines without changing
//     local files (curl without -o, git fetch, git push);
//   - Mutating for commands that change files or run code the check
//     cannot see (mkdir, mv, go test, make, python, an unknown program, a
//     variable assignment, a >> redirection);
//   - Destructive for commands that may lose data (rm, git reset --hard,
//     git clean -f, git push --force, find -delete, sudo, a > redirection).
//
// A pipeline or a list (;, &&, ||, &) takes the worst class of its parts.
// A line the check cannot follow (command substitution, here-documents,
// subshells, loops, unclosed quotes) is never ReadOnly: it is Mutating, or
// Destructive if a part it could read is.
func ClassifyCommand(command string) tool.Safety {
	return classifyShell(command, nil).safety
}

// shellVerdict is what the classifier found in a command line.
type shellVerdict struct {
	safety   tool.Safety
	unparsed string   // why the line could not be followed, if it could not
	reasons  []string // what makes it more than read-only ("rm", "> out.txt")
	scope    []string // the commands that are not read-only, for "allow always"
	reads    []string // operands read outside the workspace, protected, or that expand
}

// pathOK reports whether a read of p (clean, relative to the workspace
// root, or absolute) is allowed by the workspace's rules. Nil allows all.
type pathOK func(p string) bool

// maxShellDepth bounds sh -c nesting, and the wrappers (xargs, env,
// timeout…) followed in one command.
const maxShellDepth = 4

func classifyShell(src string, ok pathOK) shellVerdict {
	v := shellVerdict{safety: tool.SafetyReadOnly}
	c := &classifier{ok: ok, v: &v}
	c.script(src, 0)
	slices.Sort(v.scope)
	v.scope = slices.Compact(v.scope)
	return v
}

type classifier struct {
	ok      pathOK
	v       *shellVerdict
	cwd     string // the shell's directory, relative to the workspace root
	lostCwd bool   // a cd went somewhere the check cannot follow
}

func (c *classifier) script(src string, depth int) {
	s := parseShell(src)
	if s.bg {
		c.raise(tool.SafetyMutating, "runs a command in the background (&)", "&")
	}
	for _, cmd := range s.cmds {
		c.command(cmd, depth)
	}
	if s.unparsed != "" {
		if c.v.unparsed == "" {
			c.v.unparsed = s.unparsed
		}
		c.raise(tool.SafetyMutating, s.unparsed, "")
	}
}

// rank orders the classes from harmless to dangerous.
func rank(s tool.Safety) int {
	switch s {
	case tool.SafetyReadOnly:
		return 0
	case tool.SafetyNetwork:
		return 1
	case tool.SafetyDestructive:
		return 3
	}
	return 2
}

// raise makes the verdict at least s, for reason; scope names the command
// for "allow always".
func (c *classifier) raise(s tool.Safety, reason, scope string) {
	if rank(s) > rank(c.v.safety) {
		c.v.safety = s
	}
	if s != tool.SafetyReadOnly && reason != "" && len(c.v.reasons) < 8 && !slices.Contains(c.v.reasons, reason) {
		c.v.reasons = append(c.v.reasons, reason)
	}
	if s != tool.SafetyReadOnly && scope != "" {
		c.v.scope = append(c.v.scope, scope)
	}
}

// pathUse says what a command does with its operands.
type pathUse uint8

const (
	noPaths  pathUse = iota // echo, printf: operands are text
	names                   // ls, stat, wc: looks at files without printing them
	contents                // cat, grep: prints what files hold
)

// read checks an operand a read-only command reads.
func (c *classifier) read(w shWord, use pathUse) {
	if use == noPaths || w.text == "-" || w.text == "" {
		return
	}
	switch {
	case w.dollar || w.tilde:
		c.flag(w.text + " (expands when the command runs)")
		return
	case w.glob && use == contents:
		c.flag(w.text + " (a pattern that may match protected files)")
		return
	}
	p := w.text
	if !path.IsAbs(p) && !strings.HasPrefix(p, `\`) {
		if c.lostCwd {
			c.flag(w.text + " (after a cd the check cannot follow)")
			return
		}
		p = path.Join(c.cwd, p)
	}
	if c.ok != nil && !c.ok(p) {
		c.flag(w.text)
	}
}

func (c *classifier) flag(what string) {
	if len(c.v.reads) < 8 && !slices.Contains(c.v.reads, what) {
		c.v.reads = append(c.v.reads, what)
	}
}

// operands returns the words that are not flags (a word starting with -,
// until --), and checks the values of --flag=value words as paths.
func (c *classifier) operands(args []shWord, use pathUse) []shWord {
	var out []shWord
	flags := true
	for _, a := range args {
		if flags && a.text == "--" {
			flags = false
			continue
		}
		if flags && len(a.text) > 1 && a.text[0] == '-' {
			if _, val, ok := strings.Cut(a.text, "="); ok && strings.HasPrefix(a.text, "--") {
				c.read(shWord{text: val, dollar: a.dollar, glob: a.glob}, use)
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// hasFlag reports whether one of the flags is among args (before --).
// A short flag also counts inside a group (-rf has -r and -f).
func hasFlag(args []shWord, flags ...string) bool {
	for _, a := range args {
		t := a.text
		if t == "--" {
			return false
		}
		if len(t) < 2 || t[0] != '-' {
			continue
		}
		for _, f := range flags {
			if t == f || strings.HasPrefix(t, f+"=") {
				return true
			}
			if len(f) == 2 && f[0] == '-' && f[1] != '-' && t[1] != '-' && strings.IndexByte(t[1:], f[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

func (c *classifier) command(cmd shCommand, depth int) {
	for _, a := range cmd.assigns {
		name, _, _ := strings.Cut(a.text, "=")
		c.raise(tool.SafetyMutating, "sets "+name+", which can change what later commands run", "set "+name)
	}
	for _, r := range cmd.redirs {
		c.redirect(r)
	}
	if len(cmd.words) == 0 {
		return
	}
	c.run(cmd.words, depth)
}

func (c *classifier) redirect(r shRedirect) {
	t := r.target
	switch r.op {
	case "<":
		c.read(t, contents)
	case "<<<":
	case ">&", "<&":
		if t.text == "-" || isDigits(t.text) {
			return // a file descriptor duplicated or closed
		}
		c.write(t, true)
	case ">>", "&>>":
		c.write(t, false)
	default: // > >| &> <>
		c.write(t, r.op != "<>")
	}
}

func (c *classifier) write(t shWord, truncate bool) {
	if t.text == "/dev/null" && !t.expands() {
		return
	}
	if truncate {
		c.raise(tool.SafetyDestructive, "> "+t.text+" replaces what the file held", ">")
		return
	}
	c.raise(tool.SafetyMutating, ">> "+t.text+" appends to a file", ">>")
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// run classifies one command from its words.
func (c *classifier) run(words []shWord, depth int) {
	name := words[0]
	args := words[1:]
	if name.expands() || strings.ContainsAny(name.text, `/\`) {
		c.raise(tool.SafetyMutating, "runs "+name.text+", a program the check does not know", name.text)
		return
	}
	n := name.text
	if depth > maxShellDepth {
		c.raise(tool.SafetyMutating, "nests commands too deeply to check", n)
		return
	}
	switch n {
	// Read-only, operands are text.
	case "echo", "printf", "true", "false", ":", "pwd", "whoami", "id", "uname", "seq", "sleep", "expr",
		"basename", "dirname", "which", "type", "printenv", "test", "[", "nproc", "arch", "tty", "groups",
		"locale", "yes", "exit":
	case "date":
		if hasFlag(args, "-s", "--set") {
			c.raise(tool.SafetyMutating, "date --set changes the clock", n)
		}
	case "hostname":
		if len(c.operands(args, noPaths)) > 0 {
			c.raise(tool.SafetyMutating, "hostname NAME renames the machine", n)
		}
	// Read-only, look at files.
	case "ls", "stat", "du", "df", "file", "tree", "wc", "realpath", "readlink", "md5sum", "sha1sum",
		"sha256sum", "sha512sum", "cksum", "b2sum":
		for _, o := range c.operands(args, names) {
			c.read(o, names)
		}
	case "cd", "pushd":
		c.cd(args)
	// Read-only, print files.
	case "cat", "head", "tail", "less", "more", "tac", "nl", "od", "hexdump", "strings", "cmp", "comm",
		"cut", "column", "fold", "fmt", "paste", "join", "expand", "unexpand", "rev", "base64", "tr", "diff":
		if n == "diff" && hasFlag(args, "--output") {
			c.raise(tool.SafetyMutating, "diff --output writes a file", n)
		}
		for _, o := range c.operands(args, contents) {
			c.read(o, contents)
		}
	case "sort":
		if hasFlag(args, "-o", "--output") {
			c.raise(tool.SafetyDestructive, "sort -o replaces a file", n)
		}
		c.readAll(args, contents)
	case "uniq", "xxd":
		ops := c.operands(args, contents)
		if len(ops) > 1 || n == "xxd" && hasFlag(args, "-r") {
			c.raise(tool.SafetyDestructive, n+" with an output file replaces it", n)
		}
		for _, o := range ops[:min(len(ops), 1)] {
			c.read(o, contents)
		}
	case "grep", "egrep", "fgrep", "rg", "ag", "ack":
		c.search(n, args)
	case "jq":
		ops := c.operands(args, contents)
		for i, o := range ops {
			if i > 0 || hasFlag(args, "-n", "--null-input") {
				c.read(o, contents)
			}
		}
	case "sed":
		c.sed(args)
	case "find":
		c.find(args, depth)
	case "git":
		c.git(args)
	case "go":
		c.goTool(args)
	// Wrappers: the command they run decides.
	case "xargs":
		if inner := skipOptions(args, "-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--replace"); len(inner) > 0 {
			before := c.v.safety
			c.run(inner, depth+1)
			if c.v.safety == tool.SafetyReadOnly && before == tool.SafetyReadOnly {
				c.flag("xargs " + inner[0].text + " (operands come from its input)")
			}
		}
	case "env":
		inner := skipOptions(args, "-u", "--unset", "-C", "--chdir", "-S", "--split-string")
		for len(inner) > 0 && strings.Contains(inner[0].text, "=") {
			c.raise(tool.SafetyMutating, "env sets "+inner[0].text, "env")
			inner = inner[1:]
		}
		if len(inner) > 0 {
			c.run(inner, depth+1)
		}
	case "time", "nice", "nohup", "timeout", "stdbuf", "ionice", "command", "exec":
		inner := skipOptions(args, "-n", "-k", "-s", "--signal", "--kill-after", "-o", "-e", "-i", "-c", "-p")
		if n == "timeout" && len(inner) > 0 {
			inner = inner[1:] // the duration
		}
		if n == "command" && hasFlag(args, "-v", "-V") {
			return
		}
		if len(inner) > 0 {
			c.run(inner, depth+1)
		} else if n == "exec" {
			c.raise(tool.SafetyMutating, "exec changes the shell's files", n)
		}
	case "sh", "bash", "dash", "zsh", "ksh":
		c.shell(n, args, depth)
	// Destructive.
	case "rm", "rmdir", "unlink", "shred", "truncate", "mkfs", "fdisk", "parted", "wipefs", "shutdown",
		"reboot", "halt", "poweroff", "kill", "killall", "pkill", "sudo", "su", "doas", "dd":
		if n == "dd" && !hasDDOutput(args) {
			c.raise(tool.SafetyMutating, "dd", n)
			return
		}
		c.raise(tool.SafetyDestructive, n+" may delete data or stop programs", n)
	case "tee":
		if len(c.operands(args, noPaths)) > 0 {
			if hasFlag(args, "-a", "--append") {
				c.raise(tool.SafetyMutating, "tee -a appends to files", n)
			} else {
				c.raise(tool.SafetyDestructive, "tee replaces the files it writes", n)
			}
		}
	case "crontab":
		if hasFlag(args, "-r") {
			c.raise(tool.SafetyDestructive, "crontab -r deletes the crontab", n)
		} else if !hasFlag(args, "-l") {
			c.raise(tool.SafetyMutating, "crontab changes scheduled jobs", n)
		}
	// Network.
	case "curl", "wget", "ssh", "ping", "dig", "nslookup", "host", "nc", "telnet", "ftp", "http", "https":
		if n == "wget" || hasFlag(args, "-o", "-O", "--output", "--remote-name", "-T", "--upload-file", "-d", "--data", "-X", "--request", "-F", "--form") {
			c.raise(tool.SafetyMutating, n+" writes files or sends data", n)
			return
		}
		c.raise(tool.SafetyNetwork, n+" reaches other machines", n)
	default:
		c.raise(tool.SafetyMutating, "runs "+n+", which may change files", n)
	}
}

func (c *classifier) readAll(args []shWord, use pathUse) {
	for _, o := range c.operands(args, use) {
		c.read(o, use)
	}
}

func hasDDOutput(args []shWord) bool {
	for _, a := range args {
		if strings.HasPrefix(a.text, "of=") {
			return true
		}
	}
	return false
}

// skipOptions returns args after the wrapper's own options; those in
// withValue take the next word as their value.
func skipOptions(args []shWord, withValue ...string) []shWord {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			return args[i+1:]
		}
		if len(t) < 2 || t[0] != '-' {
			return args[i:]
		}
		if slices.Contains(withValue, t) {
			i++
		}
	}
	return nil
}

func (c *classifier) cd(args []shWord) {
	ops := c.operands(args, names)
	if len(ops) == 0 || ops[0].text == "-" {
		c.flag("cd to the home directory")
		c.lostCwd = true
		return
	}
	w := ops[0]
	before := len(c.v.reads)
	c.read(w, contents) // entering a protected directory is reading it
	if len(c.v.reads) > before || w.expands() || path.IsAbs(w.text) || c.lostCwd {
		c.lostCwd = true
		return
	}
	c.cwd = path.Join(c.cwd, w.text)
}

// search classifies grep and its kin: the first operand is the pattern,
// unless -e or -f gave it; searching a tree reads every file in it,
// protected ones included.
func (c *classifier) search(n string, args []shWord) {
	ops := c.operands(args, contents)
	if !hasFlag(args, "-e", "--regexp", "-f", "--file") && len(ops) > 0 {
		ops = ops[1:]
	}
	recursive := n == "rg" || n == "ag" || n == "ack" || hasFlag(args, "-r", "-R", "--recursive", "--dereference-recursive", "-d", "--directories")
	if recursive {
		c.flag(n + " searching a whole tree (use the grep tool, which skips protected files)")
		return
	}
	for _, o := range ops {
		c.read(o, contents)
	}
}

// sed is read-only without -i and without the commands that write files
// or run programs (w, W, e); the check looks for those letters anywhere
// in the script, which errs on the side of asking.
func (c *classifier) sed(args []shWord) {
	if hasFlag(args, "-i", "--in-place") {
		c.raise(tool.SafetyMutating, "sed -i edits files in place", "sed -i")
		return
	}
	ops := c.operands(args, contents)
	scripted := hasFlag(args, "-e", "--expression", "-f", "--file")
	for i, o := range ops {
		if i == 0 && !scripted {
			if strings.ContainsAny(o.text, "wWe") {
				c.raise(tool.SafetyMutating, "the sed script may write files or run commands (w, W, e)", "sed")
			}
			continue
		}
		c.read(o, contents)
	}
	for i, a := range args {
		if (a.text == "-e" || a.text == "--expression") && i+1 < len(args) && strings.ContainsAny(args[i+1].text, "wWe") {
			c.raise(tool.SafetyMutating, "the sed script may write files or run commands (w, W, e)", "sed")
		}
	}
}

func (c *classifier) find(args []shWord, depth int) {
	for i, a := range args {
		switch a.text {
		case "-delete":
			c.raise(tool.SafetyDestructive, "find -delete deletes files", "find -delete")
		case "-exec", "-execdir", "-ok", "-okdir":
			end := i + 1
			for end < len(args) && args[end].text != ";" && args[end].text != "+" {
				end++
			}
			if end > i+1 {
				c.run(args[i+1:end], depth+1)
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			c.raise(tool.SafetyDestructive, "find "+a.text+" replaces a file", "find")
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a.text, "-") || a.text == "!" || a.text == "(" || a.text == ")" {
			break // the paths come first
		}
		c.read(a, names)
	}
}

func (c *classifier) shell(n string, args []shWord, depth int) {
	for i, a := range args {
		if a.text == "-c" && i+1 < len(args) {
			if args[i+1].dollar {
				c.raise(tool.SafetyMutating, n+" -c with a script that expands when run", n)
				return
			}
			c.script(args[i+1].text, depth+1)
			return
		}
	}
	c.raise(tool.SafetyMutating, "runs a "+n+" script the check cannot see", n)
}

// gitReadOnly are the git commands that only read the repository.
var gitReadOnly = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "blame": true, "annotate": true, "rev-parse": true,
	"ls-files": true, "ls-tree": true, "cat-file": true, "describe": true, "shortlog": true, "grep": true,
	"whatchanged": true, "version": true, "help": true, "count-objects": true, "for-each-ref": true,
	"name-rev": true, "merge-base": true, "rev-list": true, "show-ref": true, "check-ignore": true, "var": true,
	"show-branch": true, "range-diff": true,
}

func (c *classifier) git(args []shWord) {
	// Global options, some with a value.
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "-c" || strings.HasPrefix(t, "--config-env") || strings.HasPrefix(t, "--exec-path=") {
			// -c core.pager=…, core.sshCommand=… run programs.
			c.raise(tool.SafetyMutating, "git -c can make git run other programs", "git -c")
			i++
			continue
		}
		if t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace" {
			if i+1 < len(args) {
				c.read(args[i+1], contents)
			}
			i++
			continue
		}
		if name, val, ok := strings.Cut(t, "="); ok && (name == "--git-dir" || name == "--work-tree") {
			c.read(shWord{text: val, dollar: args[i].dollar, glob: args[i].glob}, contents)
			continue
		}
		if !strings.HasPrefix(t, "-") {
			break
		}
	}
	if i >= len(args) {
		return // git, git --version
	}
	sub := args[i].text
	rest := args[i+1:]
	scope := "git " + sub
	switch {
	case gitReadOnly[sub]:
		if hasFlag(rest, "--output", "-o") && (sub == "diff" || sub == "log" || sub == "show" || sub == "format-patch") {
			c.raise(tool.SafetyDestructive, "git "+sub+" --output replaces a file", scope)
			return
		}
		if sub == "grep" {
			c.flag("git grep searching a whole tree (use the grep tool, which skips protected files)")
			return
		}
		c.gitPaths(rest)
	case sub == "branch":
		switch {
		case hasFlag(rest, "-D", "--delete", "-M", "-C", "--force", "-f"):
			c.raise(tool.SafetyDestructive, "git branch -D/-M/-f can drop commits", scope)
		case hasFlag(rest, "-d", "-m", "-c", "--move", "--copy", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description") || len(c.operands(rest, noPaths)) > 0:
			c.raise(tool.SafetyMutating, "git branch changes branches", scope)
		}
	case sub == "tag":
		switch {
		case hasFlag(rest, "-d", "--delete", "-f", "--force"):
			c.raise(tool.SafetyDestructive, "git tag -d/-f drops or moves a tag", scope)
		case !hasFlag(rest, "-l", "--list") && len(c.operands(rest, noPaths)) > 0:
			c.raise(tool.SafetyMutating, "git tag makes a tag", scope)
		}
	case sub == "remote":
		ops := c.operands(rest, noPaths)
		if len(ops) > 0 && ops[0].text != "show" && ops[0].text != "get-url" {
			c.raise(tool.SafetyMutating, "git remote changes remotes", scope)
		}
	case sub == "config":
		if !hasFlag(rest, "--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin") && !(len(rest) > 0 && (rest[0].text == "get" || rest[0].text == "list")) {
			c.raise(tool.SafetyMutating, "git config changes settings", scope)
		}
	case sub == "stash":
		ops := c.operands(rest, noPaths)
		switch {
		case len(ops) > 0 && (ops[0].text == "list" || ops[0].text == "show"):
		case len(ops) > 0 && (ops[0].text == "drop" || ops[0].text == "clear"):
			c.raise(tool.SafetyDestructive, "git stash drop/clear loses stashed changes", scope)
		default:
			c.raise(tool.SafetyMutating, "git stash changes the work tree", scope)
		}
	case sub == "reflog":
		ops := c.operands(rest, noPaths)
		if len(ops) > 0 && (ops[0].text == "expire" || ops[0].text == "delete") {
			c.raise(tool.SafetyDestructive, "git reflog expire/delete loses history", scope)
		}
	case sub == "reset":
		if hasFlag(rest, "--hard", "--merge", "--keep") {
			c.raise(tool.SafetyDestructive, "git reset --hard discards changes", scope)
		} else {
			c.raise(tool.SafetyMutating, "git reset moves the branch", scope)
		}
	case sub == "clean":
		if !hasFlag(rest, "-n", "--dry-run") {
			c.raise(tool.SafetyDestructive, "git clean deletes untracked files", scope)
		}
	case sub == "checkout" || sub == "switch":
		if hasFlag(rest, "-f", "--force", "--discard-changes", "-p", "--patch") || slices.ContainsFunc(rest, func(w shWord) bool { return w.text == "--" || w.text == "." }) {
			c.raise(tool.SafetyDestructive, "git "+sub+" with paths or --force discards changes", scope)
		} else {
			c.raise(tool.SafetyMutating, "git "+sub+" changes the work tree", scope)
		}
	case sub == "restore":
		if hasFlag(rest, "-S", "--staged") && !hasFlag(rest, "-W", "--worktree") {
			c.raise(tool.SafetyMutating, "git restore --staged unstages changes", scope)
		} else {
			c.raise(tool.SafetyDestructive, "git restore discards changes in the work tree", scope)
		}
	case sub == "push":
		if hasFlag(rest, "-f", "--force", "--force-with-lease", "--force-if-includes", "--mirror", "--delete", "-d", "--prune") ||
			slices.ContainsFunc(rest, func(w shWord) bool { return strings.HasPrefix(w.text, "+") || strings.HasPrefix(w.text, ":") }) {
			c.raise(tool.SafetyDestructive, "git push --force/--delete can lose commits on the remote", scope)
		} else {
			c.raise(tool.SafetyNetwork, "git push sends commits to a remote", scope)
		}
	case sub == "fetch" || sub == "ls-remote":
		c.raise(tool.SafetyNetwork, "git "+sub+" reaches a remote", scope)
	case sub == "rm" || sub == "filter-branch" || sub == "filter-repo" || sub == "prune" || sub == "update-ref" && hasFlag(rest, "-d"):
		c.raise(tool.SafetyDestructive, "git "+sub+" deletes files or history", scope)
	case sub == "gc" && slices.ContainsFunc(rest, func(w shWord) bool { return strings.HasPrefix(w.text, "--prune") }):
		c.raise(tool.SafetyDestructive, "git gc --prune deletes unreachable objects", scope)
	default:
		c.raise(tool.SafetyMutating, "git "+sub+" changes the repository", scope)
	}
}

// gitPaths checks the paths a reading git command names: after --, and in
// rev:path (git show HEAD:.env prints a committed .env). A command that
// prints whole commits (git log -p) can still show a protected file that
// was committed; the check cannot see which files a commit holds.
func (c *classifier) gitPaths(args []shWord) {
	after := false
	for _, a := range args {
		switch {
		case a.text == "--":
			after = true
		case after:
			c.read(a, contents)
		case strings.HasPrefix(a.text, "-"):
		default:
			if _, p, ok := strings.Cut(a.text, ":"); ok && p != "" {
				c.read(shWord{text: p, dollar: a.dollar, glob: a.glob, tilde: a.tilde}, contents)
			}
		}
	}
}

func (c *classifier) goTool(args []shWord) {
	ops := c.operands(args, noPaths)
	if len(ops) == 0 {
		return
	}
	sub := ops[0].text
	switch sub {
	case "version", "list", "doc", "help":
		return
	case "env":
		if !hasFlag(args, "-w", "-u") {
			return
		}
	}
	c.raise(tool.SafetyMutating, "go "+sub+" builds or runs code, or changes files", "go "+sub)
}
