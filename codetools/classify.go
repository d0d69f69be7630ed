package codetools

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/toolbelt-go/tool"
)

// ClassifyCommand returns the safety class of a shell command line, from
// its text alone, as run_shell's approval step sees it:
//
//   - ReadOnly for commands known only to read or print, with options the
//     check knows none of which writes a file or runs a program (ls, cat,
//     grep, sed without w/e/r commands, git status, go list…);
//   - Network for commands that reach other machines without changing
//     local files (curl without -o, git fetch, git push);
//   - Mutating for commands that change files or run code the check
//     cannot see (mkdir, go test, make, python, an unknown program, a
//     variable assignment, a >> redirection), and for every command the
//     check cannot follow;
//   - Destructive for commands that may lose data (rm, git reset --hard,
//     git clean -f, git push --force, find -delete, sudo, a > redirection).
//
// A pipeline or a list (;, &&, ||, &) takes the worst class of its parts;
// a wrapper (env, nice, timeout, xargs, sh -c…) takes the class of what it
// runs, or Mutating when the check cannot tell what that is. A line the
// check cannot follow (command substitution, here-documents, subshells,
// loops, unclosed quotes, an option it does not know on a program it would
// otherwise call read-only) is never ReadOnly.
func ClassifyCommand(command string) tool.Safety {
	return classifyShell(command, rules{}).safety
}

// shellVerdict is what the classifier found in a command line.
type shellVerdict struct {
	safety tool.Safety
	// unknown says why the line could not be followed: it is asked about
	// every time, whatever its class.
	unknown string
	reasons []string // what makes it more than read-only ("rm", "> out.txt")
	// scope is what "allow always" covers: each command that is not
	// read-only as the person saw it, program and subcommand ("go test"),
	// behind the wrappers that ran it ("nice go test") and the variables
	// set for it ("GOOS=linux go build").
	scope []string
	// named are operands that lead outside the workspace or to a protected
	// file, or that expand when the command runs: asked about whether or
	// not a sandbox hides them.
	named []string
	// unseen are reads whose files the check cannot see (a whole tree, a
	// pattern, names from the input): a sandbox that hides protected
	// files makes them harmless; without one they are asked about.
	unseen []string
	// otherWrites is set when something other than version control (git,
	// hg) may write: a program, a redirection, a variable set. A command
	// without it may change the repositories' own files in its sandbox;
	// any other could plant what a later git of the person's runs.
	otherWrites bool
}

// versionControlOnly reports whether the command writes, and only through
// version control (git add && git commit).
func (v shellVerdict) versionControlOnly() bool {
	return v.safety != tool.SafetyReadOnly && !v.otherWrites && v.unknown == ""
}

// lookup applies the workspace's rules to a path, as
// [workspace.Workspace.Lookup] does. Nil checks nothing.
type lookup func(p string) (fs.FileInfo, error)

// rules are the workspace's rules as the check applies them: the lookup
// of a path, and whether the content of a file with other names (hard
// links) may be read.
type rules struct {
	look   lookup
	linked func(fi fs.FileInfo) bool
	// gitRuns, without a sandbox, says why git run in a directory
	// (relative to the workspace root) could run a program its
	// repository names; "" when none. Nil checks nothing.
	gitRuns func(dir string) string
}

// maxShellDepth bounds sh -c nesting, and the wrappers (xargs, env,
// timeout…) followed in one command.
const maxShellDepth = 4

func classifyShell(src string, r rules) shellVerdict {
	v := shellVerdict{safety: tool.SafetyReadOnly}
	c := &classifier{look: r.look, linked: r.linked, gitRuns: r.gitRuns, v: &v}
	c.script(src)
	slices.Sort(v.scope)
	v.scope = slices.Compact(v.scope)
	return v
}

type classifier struct {
	vcs     int // inside a version-control command's classification
	gitRuns func(dir string) string
	look    lookup
	linked  func(fi fs.FileInfo) bool
	v       *shellVerdict
	cwd     string   // the shell's directory, relative to the workspace root
	lostCwd bool     // a cd went somewhere the check cannot follow
	prefix  []string // the wrappers around the command being read, for scopes
	depth   int
}

func (c *classifier) script(src string) {
	s := parseShell(src)
	if s.bg {
		c.raise(tool.SafetyMutating, "runs a command in the background (&)", "&")
	}
	for _, cmd := range s.cmds {
		c.command(cmd)
	}
	if s.unparsed != "" {
		c.cannot(s.unparsed)
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

const maxListed = 8 // reasons, reads kept in a verdict

// raise makes the verdict at least s, for reason; scope names the command
// for "allow always", behind the wrappers around it.
func (c *classifier) raise(s tool.Safety, reason, scope string) {
	if rank(s) > rank(c.v.safety) {
		c.v.safety = s
	}
	if s != tool.SafetyReadOnly && c.vcs == 0 {
		c.v.otherWrites = true
	}
	if s == tool.SafetyReadOnly {
		return
	}
	if reason != "" && len(c.v.reasons) < maxListed && !slices.Contains(c.v.reasons, reason) {
		c.v.reasons = append(c.v.reasons, reason)
	}
	if scope != "" {
		c.v.scope = append(c.v.scope, strings.Join(append(slices.Clone(c.prefix), scope), " "))
	}
}

// cannot marks the line as one the check cannot follow.
func (c *classifier) cannot(why string) {
	if c.v.unknown == "" {
		c.v.unknown = why
	}
	c.v.otherWrites = true
	c.raise(tool.SafetyMutating, why, "")
}

// wrapped reads the command a wrapper runs, its scope behind the wrapper's.
func (c *classifier) wrapped(prefix string, words []shWord) {
	if c.depth >= maxShellDepth {
		c.cannot("it nests commands too deeply to check")
		return
	}
	c.depth++
	c.prefix = append(c.prefix, prefix)
	c.run(words)
	c.prefix = c.prefix[:len(c.prefix)-1]
	c.depth--
}

// pathUse says what a command does with its operands.
type pathUse uint8

const (
	noPaths  pathUse = iota // echo, printf: operands are text
	names                   // ls, stat, wc: looks at files without printing them
	contents                // cat, grep: prints what files hold
)

// read checks an operand a command reads.
func (c *classifier) read(w shWord, use pathUse) {
	if use == noPaths || w.text == "-" || w.text == "" {
		return
	}
	if w.dollar || w.tilde {
		c.named(w.text + " (expands when the command runs)")
		return
	}
	p := w.text
	if w.glob {
		// The files a pattern matches are unseen, but where it looks is
		// not: ../*.txt leaves the workspace.
		p = p[:strings.IndexAny(p, "*?[{")]
		switch j := strings.LastIndexByte(p, '/'); {
		case j < 0:
			p = "."
		case j == 0:
			p = "/"
		default:
			p = p[:j]
		}
		if use == contents {
			c.unseen(w.text + " (a pattern that may match protected files)")
		}
		use = names
	}
	if !path.IsAbs(p) {
		if c.lostCwd {
			c.named(w.text + " (after a cd the check cannot follow)")
			return
		}
		p = c.at(p)
	}
	if c.look == nil {
		return
	}
	fi, err := c.look(p)
	switch {
	case err != nil:
		c.named(w.text)
	case use == contents && c.linked != nil && c.linked(fi):
		c.named(w.text + " (a file with other names: hard links)")
	}
}

// at returns the path p, relative to the shell's directory, relative to
// the workspace root, as written: not cleaned, since a ".." after a link
// leads where the link's target's parent is, which the workspace's
// lookup follows as the kernel does.
func (c *classifier) at(p string) string {
	if c.cwd == "" {
		return p
	}
	return c.cwd + "/" + p
}

// readAll checks operands.
func (c *classifier) readAll(ws []shWord, use pathUse) {
	for _, w := range ws {
		c.read(w, use)
	}
}

// readDir checks an operand whose files a command reads when it is a
// directory (diff dirA dirB compares the files in both).
func (c *classifier) readDir(w shWord) {
	c.read(w, contents)
	if c.look == nil || w.expands() || c.lostCwd {
		return
	}
	p := w.text
	if !path.IsAbs(p) {
		p = c.at(p)
	}
	if fi, err := c.look(p); err == nil && fi != nil && fi.IsDir() {
		c.unseen(w.text + " (reads the files in a directory)")
	}
}

func (c *classifier) named(what string) { c.v.named = c.list(c.v.named, what) }

func (c *classifier) unseen(what string) { c.v.unseen = c.list(c.v.unseen, what) }

// list adds what to a list of reads, at most maxListed long: a command
// with more than the question can show is asked about every time, so that
// "allow always" never covers reads the person was not shown.
func (c *classifier) list(l []string, what string) []string {
	switch {
	case slices.Contains(l, what):
	case len(l) < maxListed:
		l = append(l, what)
	default:
		c.cannot("it reads more paths outside the workspace's rules than a question can show")
	}
	return l
}

func (c *classifier) command(cmd shCommand) {
	for _, r := range cmd.redirs {
		c.redirect(r)
	}
	if len(cmd.assigns) > 0 {
		// A variable can change what a program does (LD_PRELOAD, PATH,
		// GIT_PAGER, GOFLAGS=-toolexec=…): the command is as the person
		// saw it, values included.
		var set []string
		for _, a := range cmd.assigns {
			set = append(set, cut(a.text, 60))
		}
		c.prefix = append(c.prefix, strings.Join(set, " "))
		defer func() { c.prefix = c.prefix[:len(c.prefix)-1] }()
		if len(cmd.words) == 0 {
			c.raise(tool.SafetyMutating, "sets "+strings.Join(set, " ")+", which later commands see", "")
			c.v.scope = append(c.v.scope, strings.Join(c.prefix, " "))
			return
		}
		c.raise(tool.SafetyMutating, "runs "+cmd.words[0].text+" with "+strings.Join(set, " "), "")
		before := len(c.v.scope)
		c.run(cmd.words)
		if len(c.v.scope) == before {
			c.v.scope = append(c.v.scope, strings.Join(append(slices.Clone(c.prefix), cmd.words[0].text), " "))
		}
		return
	}
	if len(cmd.words) > 0 {
		c.run(cmd.words)
	}
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
	// A file written through another name (a hard link to a file outside,
	// or to a protected one) is changed where its other names are: named
	// in the question and the scope, as a file read is.
	c.read(t, contents)
	if truncate {
		c.raise(tool.SafetyDestructive, "> "+t.text+" replaces what the file held", "> "+cut(t.text, 60))
		return
	}
	c.raise(tool.SafetyMutating, ">> "+t.text+" appends to a file", ">> "+cut(t.text, 60))
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// cut shortens s to n bytes, on a character boundary, for scopes and
// reasons.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// systemBin are the directories whose programs are known by their base
// name: /bin/rm is rm.
var systemBin = []string{"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin"}

// run classifies one command from its words.
func (c *classifier) run(words []shWord) {
	name := words[0]
	args := words[1:]
	if name.expands() {
		c.raise(tool.SafetyMutating, "runs "+name.text+", a program known only when the command runs", cut(name.text, 60))
		c.cannot("the program's name expands when the command runs (" + name.text + ")")
		return
	}
	n := name.text
	if strings.Contains(n, "/") {
		if slices.Contains(systemBin, path.Dir(n)) {
			n = path.Base(n)
		} else {
			c.raise(tool.SafetyMutating, "runs "+n+", a program the check does not know", cut(n, 60))
			return
		}
	}
	if h, ok := programs[n]; ok {
		if n == "git" {
			c.vcs++
			defer func() { c.vcs-- }()
		}
		h(c, n, args)
		return
	}
	if r, ok := readers[n]; ok {
		r.classify(c, n, args)
		return
	}
	if o := runsViaOption(n, args); o != "" {
		c.cannot(n + " " + cut(o, 40) + " runs a program given in the option")
		return
	}
	if fileOps[n] {
		// The operands are paths it changes or copies: one outside the
		// workspace or protected, or a file with other names (changing it,
		// or copying what it holds, reaches the file its other names are
		// in), is named in the question, and in the scope.
		for _, o := range lenient("").parse(args).operands {
			c.read(o, contents)
		}
	}
	if !fileOps[n] {
		c.pathWords(args)
	}
	if n == "hg" {
		// Mercurial, whose own files the sandbox protects as git's.
		c.vcs++
		defer func() { c.vcs-- }()
	}
	switch {
	case runsOthers[n]:
		c.cannot(n + " runs another program the check does not follow")
	case interpreters[n]:
		c.interpreter(n, args)
	case destructive[n]:
		c.raise(tool.SafetyDestructive, n+" may delete data or stop programs", commandScope(n, args))
	case network[n]:
		c.raise(tool.SafetyNetwork, n+" reaches other machines", commandScope(n, args))
	default:
		c.raise(tool.SafetyMutating, "runs "+n+", which may change files or run code", commandScope(n, args))
	}
}

// runsVia are, for programs the check does not read, the short options
// that run a program given as their value; long ones are found by name.
var runsVia = map[string]string{
	"tar": "IF", "rsync": "e", "man": "PH", "zip": "T", "ssh": "oF", "scp": "oFS", "sftp": "oFS",
	"make": "fCE", "gmake": "fCE", "npm": "", "git": "", "curl": "K",
}

// runsViaWords are the parts of a long option's name that say it runs a
// program (tar --to-command, --use-compress-program, --checkpoint-action,
// rsync --rsh, man --pager, make --eval).
var runsViaWords = []string{"command", "exec", "program", "rsh", "pager", "editor", "shell", "script", "hook",
	"plugin", "eval", "proxy", "cmd", "filter", "interpreter", "preload", "action", "config", "makefile", "file=", "entrypoint"}

// runsViaOption returns the option of a program the check does not read
// that would run another program the person may not have noticed, which
// "allow always" for the program must not cover.
func runsViaOption(n string, args []shWord) string {
	short := runsVia[n]
	for _, a := range args {
		t := a.text
		switch {
		case t == "--":
			return ""
		case strings.HasPrefix(t, "--"):
			name := strings.ToLower(t)
			for _, w := range runsViaWords {
				if strings.Contains(name, w) {
					return t
				}
			}
		case strings.HasPrefix(t, "-") && len(t) > 1 && short != "" && strings.ContainsAny(t[1:2], short):
			return t
		}
	}
	return ""
}

// pathWords checks the words of a program the check does not read that
// can only be paths leading out of the workspace (.., ../x, /x, ~/x), given
// alone or as an option's value (npm --prefix=.., cargo
// --manifest-path=../x/Cargo.toml): the program works on a project, or
// writes, where the person may not have noticed, which "allow always" for
// it must not cover.
func (c *classifier) pathWords(args []shWord) {
	for _, a := range args {
		w := a
		if strings.HasPrefix(a.text, "-") {
			_, val, ok := strings.Cut(a.text, "=")
			if !ok {
				continue
			}
			w.text = val
		}
		t := w.text
		if w.tilde || t == ".." || strings.HasPrefix(t, "../") || strings.HasPrefix(t, "/") ||
			strings.Contains(t, "/../") || strings.HasSuffix(t, "/..") {
			c.read(w, names)
		}
	}
}

// fileOps are programs whose operands are the files they change: they
// have no subcommands, and their operands are checked as paths.
var fileOps = setOf("mkdir", "touch", "cp", "mv", "ln", "chmod", "chown", "chgrp", "install", "rm", "rmdir",
	"unlink", "shred", "truncate", "srm", "mkfifo", "mknod", "rsync", "tar", "zip", "unzip", "gzip", "gunzip",
	"bzip2", "xz", "unxz", "zstd", "patch")

// commandScope is what "allow always" covers for a program the check does
// not read: the program and its subcommands, the plain words that follow
// it (make build, npm run test, cargo test), before any option or path;
// the program alone for those that take files, not subcommands (mkdir).
func commandScope(n string, args []shWord) string {
	scope := n
	if fileOps[n] {
		return scope
	}
	for i := 0; i < len(args) && i < 2; i++ {
		if !plainWord(args[i]) {
			break
		}
		scope += " " + args[i].text
	}
	scope = cut(scope, 80)
	// A variable set on the command line (make build CC=…, SHELL=…)
	// changes what the program runs, as one set before it does: the scope
	// holds it as the person saw it.
	for _, a := range args {
		if isAssignment(token{raw: a.text}) {
			scope += " " + cut(a.text, 60)
		}
	}
	return scope
}

// plainWord reports whether a word is a subcommand's name rather than an
// option, a path or a value.
func plainWord(w shWord) bool {
	t := w.text
	if w.expands() || t == "" || !isAlpha(t[0]) || len(t) > 40 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if !isAlnum(t[i]) && !strings.ContainsRune("_.:+-", rune(t[i])) {
			return false
		}
	}
	return true
}
