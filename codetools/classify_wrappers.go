package codetools

import (
	"path"
	"strings"

	"github.com/toolbelt-go/tool"
)

// A handler classifies a program the table of readers cannot describe:
// the wrappers, which run another program; the shell's own commands;
// programs with scripts of their own (sed, awk, jq, find); git and go.
type handler func(c *classifier, n string, args []shWord)

// programs are the handlers, by program name. Set in init, as several
// handlers classify the commands they run, through this table.
var programs map[string]handler

func init() {
	programs = map[string]handler{
		"env": runEnv, "nice": runNice, "nohup": runNohup, "time": runTime, "timeout": runTimeout,
		"stdbuf": runStdbuf, "ionice": runIonice, "xargs": runXargs, "command": runCommand, "exec": runExec,
		"sh": runShell, "bash": runShell, "dash": runShell, "zsh": runShell, "ksh": runShell, "mksh": runShell,
		"ash": runShell, "trap": runTrap, "eval": runEval,
		"cd": runCd, "pushd": runCd, "popd": runPopd, "set": runSet, "unset": runUnset,
		"export": runDeclare, "declare": runDeclare, "typeset": runDeclare, "local": runDeclare, "readonly": runDeclare,
		"umask": runLimit, "ulimit": runLimit,
		"jq": runJq, "sed": runSed, "awk": runAwk, "gawk": runAwk, "mawk": runAwk, "nawk": runAwk,
		"find": runFind, "git": runGit, "go": runGo,
		"tee": runTee, "dd": runDd, "crontab": runCrontab,
		"curl": runNetwork, "wget": runNetwork, "http": runNetwork, "https": runNetwork,
	}
	for _, n := range []string{"source", ".", "alias", "unalias", "hash", "enable", "builtin", "let", "shopt", "fc", "history", "bind", "complete"} {
		programs[n] = func(c *classifier, n string, _ []shWord) {
			c.cannot(n + " changes what later commands mean, which the check does not follow")
		}
	}
}

// runsOthers are programs that run another program given in their
// arguments, in ways the check does not follow: asked every time.
var runsOthers = setOf("watch", "parallel", "flock", "setsid", "chroot", "unshare", "nsenter", "strace", "ltrace",
	"gdb", "lldb", "valgrind", "taskset", "chrt", "script", "runuser", "busybox", "toybox", "firejail", "bwrap",
	"systemd-run", "at", "batch", "expect", "sshpass", "proot", "fakeroot", "torsocks", "proxychains",
	"proxychains4", "cpulimit", "numactl", "prlimit", "setpriv", "capsh", "chpst", "daemonize", "start-stop-daemon",
	"tini", "dumb-init", "catchsegv", "faketime", "rlwrap", "unbuffer", "entr", "inotifywait", "su", "pkexec")

// interpreters run code: a file, or code given on the command line or
// read from their input, which the check cannot see.
var interpreters = setOf("python", "python2", "python3", "node", "nodejs", "deno", "bun", "perl", "ruby", "php",
	"lua", "luajit", "Rscript", "tclsh", "wish", "osascript", "pwsh", "powershell", "julia", "groovy", "scala",
	"irb", "ghci", "runghc", "erl", "elixir", "racket", "guile", "sbcl", "swift")

// destructive programs may delete data or stop programs, whatever their
// arguments.
var destructive = setOf("rm", "rmdir", "unlink", "shred", "truncate", "mkfs", "mke2fs", "fdisk", "sfdisk",
	"parted", "wipefs", "shutdown", "reboot", "halt", "poweroff", "kill", "killall", "pkill", "sudo", "doas",
	"srm", "mkswap", "blkdiscard")

// network programs reach other machines.
var network = setOf("ssh", "scp", "sftp", "ping", "ping6", "dig", "nslookup", "host", "nc", "ncat", "netcat",
	"telnet", "ftp", "rsync", "traceroute", "mtr", "whois")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// wrapperOf parses a wrapper's options and returns what it runs, or nil
// (after saying why) when the check cannot follow it.
func (c *classifier) wrapperOf(n string, spec *optSpec, args []shWord) (parsedArgs, []shWord, bool) {
	p := spec.parse(args)
	if p.unknown != "" {
		c.cannot("the check does not know the option " + cut(p.unknown, 40) + " of " + n)
		return p, nil, false
	}
	return p, args[p.rest:], true
}

var envSpec = &optSpec{short: "i0u:C:S:va:",
	long: longs("ignore-environment", "null", "unset=", "chdir=", "split-string=", "debug", "block-signal=?",
		"default-signal=?", "ignore-signal=?", "list-signal-handling", "argv0=", "help", "version"), posix: true}

func runEnv(c *classifier, n string, args []shWord) {
	p, inner, ok := c.wrapperOf(n, envSpec, args)
	if !ok {
		return
	}
	if p.has("-S", "--split-string") {
		c.cannot("env -S splits a string into a command, which the check does not follow")
		return
	}
	prefix := "env"
	var set []string
	for len(inner) > 0 && strings.Contains(inner[0].text, "=") && !strings.HasPrefix(inner[0].text, "=") {
		set = append(set, cut(inner[0].text, 60))
		inner = inner[1:]
	}
	if len(set) > 0 {
		prefix += " " + strings.Join(set, " ")
		c.raise(tool.SafetyMutating, "env sets "+strings.Join(set, " "), "")
	}
	if len(inner) == 0 {
		if len(set) > 0 {
			c.v.scope = append(c.v.scope, prefix)
		}
		return // env alone prints the environment
	}
	dirs := p.values("-C", "--chdir")
	if len(dirs) > 0 {
		cwd, lost := c.cwd, c.lostCwd
		defer func() { c.cwd, c.lostCwd = cwd, lost }()
		c.cd(shWord{text: dirs[len(dirs)-1].value})
	}
	before := len(c.v.scope)
	c.wrapped(prefix, inner)
	if len(set) > 0 && len(c.v.scope) == before {
		c.v.scope = append(c.v.scope, prefix+" "+inner[0].text)
	}
}

func runNice(c *classifier, n string, args []shWord) {
	spec := &optSpec{short: "n:", long: longs("adjustment=", "help", "version"), posix: true, numbers: true}
	if _, inner, ok := c.wrapperOf(n, spec, args); ok && len(inner) > 0 {
		c.wrapped(n, inner)
	}
}

func runNohup(c *classifier, n string, args []shWord) {
	spec := &optSpec{long: longs("help", "version"), posix: true}
	if _, inner, ok := c.wrapperOf(n, spec, args); ok && len(inner) > 0 {
		c.wrapped(n, inner)
	}
}

func runTime(c *classifier, n string, args []shWord) {
	spec := &optSpec{short: "f:o:apvq", long: longs("format=", "output=", "append", "portability", "verbose", "quiet", "help", "version"), posix: true}
	p, inner, ok := c.wrapperOf(n, spec, args)
	if !ok {
		return
	}
	if p.has("-o", "--output") {
		c.raise(tool.SafetyDestructive, "time -o replaces a file", "time -o")
	}
	if len(inner) > 0 {
		c.wrapped(n, inner)
	}
}

func runTimeout(c *classifier, n string, args []shWord) {
	spec := &optSpec{short: "k:s:v", long: longs("kill-after=", "signal=", "foreground", "preserve-status", "verbose", "help", "version"), posix: true}
	if _, inner, ok := c.wrapperOf(n, spec, args); ok && len(inner) > 1 {
		c.wrapped(n, inner[1:]) // after the duration
	}
}

func runStdbuf(c *classifier, n string, args []shWord) {
	spec := &optSpec{short: "i:o:e:", long: longs("input=", "output=", "error=", "help", "version"), posix: true}
	if _, inner, ok := c.wrapperOf(n, spec, args); ok && len(inner) > 0 {
		c.wrapped(n, inner)
	}
}

func runIonice(c *classifier, n string, args []shWord) {
	spec := &optSpec{short: "c:n:tp:P:u:", long: longs("class=", "classdata=", "ignore", "pid=", "pgid=", "uid=", "help", "version"), posix: true}
	p, inner, ok := c.wrapperOf(n, spec, args)
	switch {
	case !ok:
	case p.has("-p", "-P", "-u", "--pid", "--pgid", "--uid"):
		c.raise(tool.SafetyMutating, "ionice changes the priority of other processes", "ionice")
	case len(inner) > 0:
		c.wrapped(n, inner)
	}
}

var xargsSpec = &optSpec{short: "0a:d:E:e::I:i::L:l::n:opP:rs:tx",
	long: longs("null", "arg-file=", "delimiter=", "eof=?", "replace=?", "max-lines=?", "max-args=", "open-tty",
		"interactive", "max-procs=", "no-run-if-empty", "max-chars=", "verbose", "show-limits", "exit",
		"process-slot-var=", "help", "version"), posix: true}

// runXargs: xargs runs a command (echo by default) with operands read from
// its input, or a file: what they name is unseen.
func runXargs(c *classifier, n string, args []shWord) {
	p, inner, ok := c.wrapperOf(n, xargsSpec, args)
	if !ok {
		return
	}
	c.readValues(p, contents, "-a", "--arg-file")
	if len(inner) == 0 {
		return // echo
	}
	before := c.v.safety
	c.wrapped(n, inner)
	if c.v.safety == tool.SafetyReadOnly && before == tool.SafetyReadOnly {
		if r := readers[path.Base(inner[0].text)]; r != nil && r.use != noPaths || programs[path.Base(inner[0].text)] != nil {
			c.unseen("xargs " + inner[0].text + " (operands come from its input)")
		}
	}
}

func runCommand(c *classifier, n string, args []shWord) {
	p, inner, ok := c.wrapperOf(n, &optSpec{short: "pvV", posix: true}, args)
	switch {
	case !ok:
	case p.has("-v", "-V"):
		// command -v prints where a program is.
	case len(inner) > 0:
		c.wrapped(n, inner)
	}
}

func runExec(c *classifier, n string, args []shWord) {
	if _, inner, ok := c.wrapperOf(n, &optSpec{short: "cla:", posix: true}, args); ok && len(inner) > 0 {
		c.wrapped(n, inner)
	}
}

// runShell: sh -c SCRIPT runs the script, read as a command line; sh FILE
// runs a file the check cannot see; sh alone runs what it reads from its
// input.
func runShell(c *classifier, n string, args []shWord) {
	script := -1
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "--" || t == "-" {
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' && t[0] != '+' {
			break
		}
		if strings.HasPrefix(t, "--") {
			switch t {
			case "--norc", "--noprofile", "--posix", "--noediting", "--restricted", "--verbose", "--debugger":
				continue
			}
			c.cannot("the check does not know the option " + cut(t, 40) + " of " + n)
			return
		}
		for _, f := range t[1:] {
			switch {
			case f == 'c' && t[0] == '-':
				script = 0
			case f == 'o' || f == 'O':
				i++ // its value
			case strings.ContainsRune("aefhmnuvxbBCEHPTkpt", f):
			default:
				c.cannot("the check does not know the option " + cut(t, 40) + " of " + n)
				return
			}
		}
	}
	rest := args[min(i, len(args)):]
	switch {
	case script == 0 && len(rest) > 0:
		s := rest[0]
		if s.dollar || s.tilde {
			c.cannot(n + " -c runs a script that expands when the command runs")
			return
		}
		if c.depth >= maxShellDepth {
			c.cannot("it nests commands too deeply to check")
			return
		}
		// The script runs in a shell of its own: a cd inside stays there.
		cwd, lost := c.cwd, c.lostCwd
		c.depth++
		c.prefix = append(c.prefix, n+" -c")
		c.script(s.text)
		c.prefix = c.prefix[:len(c.prefix)-1]
		c.depth--
		c.cwd, c.lostCwd = cwd, lost
	case script == 0:
		c.cannot(n + " -c has no script")
	case len(rest) > 0:
		c.read(rest[0], contents)
		c.raise(tool.SafetyMutating, "runs the "+n+" script "+rest[0].text+", which the check cannot see", n+" "+cut(rest[0].text, 60))
	default:
		c.cannot(n + " runs the commands it reads from its input, which the check cannot see")
	}
}

// runTrap: trap ACTION SIGNAL… runs ACTION, a command line, later.
func runTrap(c *classifier, n string, args []shWord) {
	if len(args) < 2 || strings.HasPrefix(args[0].text, "-") || args[0].text == "" {
		return // trap, trap -p, trap -l, trap - SIG, trap '' SIG
	}
	if args[0].expands() || c.depth >= maxShellDepth {
		c.cannot("trap runs an action the check cannot see")
		return
	}
	c.depth++
	c.prefix = append(c.prefix, n)
	c.script(args[0].text)
	c.prefix = c.prefix[:len(c.prefix)-1]
	c.depth--
}

// runEval reads its arguments, joined, as a command line.
func runEval(c *classifier, n string, args []shWord) {
	var parts []string
	for _, a := range args {
		if a.expands() {
			c.cannot("eval runs words that expand when the command runs")
			return
		}
		parts = append(parts, a.text)
	}
	if c.depth >= maxShellDepth {
		c.cannot("it nests commands too deeply to check")
		return
	}
	c.depth++
	c.prefix = append(c.prefix, n)
	c.script(strings.Join(parts, " "))
	c.prefix = c.prefix[:len(c.prefix)-1]
	c.depth--
}

func runCd(c *classifier, n string, args []shWord) {
	p := (&optSpec{short: "LPe", posix: true}).parse(args)
	if p.unknown != "" || len(p.operands) == 0 || p.operands[0].text == "-" {
		c.named("cd to the home directory or elsewhere")
		c.lostCwd = true
		return
	}
	c.cd(p.operands[0])
}

func runPopd(c *classifier, n string, args []shWord) { c.lostCwd = true }

// cd follows the shell's directory; entering a protected directory is
// reading it.
func (c *classifier) cd(w shWord) {
	before := len(c.v.named)
	c.read(w, names)
	if len(c.v.named) > before || w.expands() || path.IsAbs(w.text) || c.lostCwd {
		c.lostCwd = true
		return
	}
	c.cwd = c.at(w.text)
}

// runSet: set with options or positional parameters changes only this
// shell's options.
func runSet(c *classifier, n string, args []shWord) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "--" || t == "-" || len(t) < 2 || t[0] != '-' && t[0] != '+' {
			return // the rest are positional parameters
		}
		for _, f := range t[1:] {
			switch {
			case f == 'o':
				i++
			case strings.ContainsRune("aefhmnuvxbBCEHPTkpt", f):
			default:
				c.cannot("the check does not know the option " + cut(t, 40) + " of set")
				return
			}
		}
	}
}

// identifier reports whether s is a variable name, with =value after it
// when value is set.
func identifier(s string, value bool) bool {
	name := s
	if value {
		name, _, _ = strings.Cut(s, "=")
	}
	if name == "" || !(name[0] == '_' || isAlpha(name[0])) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if name[i] != '_' && !isAlnum(name[i]) {
			return false
		}
	}
	return true
}

// runUnset: bash evaluates the subscript of unset 'a[$(…)]'.
func runUnset(c *classifier, n string, args []shWord) {
	for _, a := range args {
		if a.text == "-v" || a.text == "-n" {
			continue
		}
		if a.text == "-f" || !identifier(a.text, false) {
			c.cannot("unset " + cut(a.text, 40) + " is not a plain variable name")
			return
		}
	}
}

// runDeclare: export, declare and the like set variables (as an
// assignment does), and refuse what bash would evaluate: function
// definitions, name references, array subscripts.
func runDeclare(c *classifier, n string, args []shWord) {
	var set []string
	for _, a := range args {
		t := a.text
		switch {
		case t == "--":
		case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
			if strings.Trim(t[1:], "xrgaAilupt") != "" {
				c.cannot(n + " " + cut(t, 20) + " defines functions or references, which the check does not follow")
				return
			}
		case identifier(t, strings.Contains(t, "=")):
			set = append(set, cut(t, 60))
		default:
			c.cannot(n + " " + cut(t, 40) + " is not a plain variable")
			return
		}
	}
	if len(set) > 0 {
		scope := n + " " + strings.Join(set, " ")
		c.raise(tool.SafetyMutating, n+" sets "+strings.Join(set, " ")+", which later commands see", scope)
	}
}

func runLimit(c *classifier, n string, args []shWord) {
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") || isDigits(a.text[1:]) {
			c.raise(tool.SafetyMutating, n+" changes limits for later commands", commandScope(n, args))
			return
		}
	}
}

// interpreter: a script file is Mutating, scoped to the script; code on
// the command line or from the input is asked about every time.
func (c *classifier) interpreter(n string, args []shWord) {
	for _, a := range args {
		t := a.text
		if t == "-" {
			break
		}
		if !strings.HasPrefix(t, "-") {
			c.read(a, contents)
			c.raise(tool.SafetyMutating, "runs the "+n+" program "+t+", which the check cannot see", n+" "+cut(t, 60))
			return
		}
		if strings.HasPrefix(t, "--eval") || strings.HasPrefix(t, "--print") || strings.HasPrefix(t, "--command") ||
			!strings.HasPrefix(t, "--") && strings.ContainsAny(t[1:], "ceErp") {
			c.cannot(n + " " + cut(t, 20) + " runs code given on the command line")
			return
		}
	}
	c.cannot(n + " runs code the check cannot see")
}

func runTee(c *classifier, n string, args []shWord) {
	p := lenient("", "output-error=?").parse(args)
	switch {
	case len(p.operands) == 0:
	case p.has("-a", "--append"):
		c.raise(tool.SafetyMutating, "tee -a appends to files", "tee -a")
	default:
		c.raise(tool.SafetyDestructive, "tee replaces the files it writes", "tee")
	}
}

func runDd(c *classifier, n string, args []shWord) {
	for _, a := range args {
		if strings.HasPrefix(a.text, "of=") {
			c.raise(tool.SafetyDestructive, "dd of= replaces a file or a device", "dd")
			return
		}
		if v, ok := strings.CutPrefix(a.text, "if="); ok {
			c.read(shWord{text: v, dollar: a.dollar, glob: a.glob, tilde: a.tilde}, contents)
		}
	}
	c.raise(tool.SafetyMutating, "dd", "dd")
}

func runCrontab(c *classifier, n string, args []shWord) {
	switch {
	case len(args) == 1 && args[0].text == "-l":
	case len(args) > 0 && args[0].text == "-r":
		c.raise(tool.SafetyDestructive, "crontab -r deletes the crontab", "crontab -r")
	default:
		c.raise(tool.SafetyMutating, "crontab changes scheduled jobs", "crontab")
	}
}

// curlSends are the long options of curl and wget that write a file, send
// one, or send credentials the person did not see (--netrc, --cookie); a
// prefix of one counts as it.
var curlSends = []string{"output", "remote-name", "upload-file", "data", "form", "json", "request", "config",
	"output-dir", "create-dirs", "cookie", "dump-header", "trace", "libcurl", "stderr", "etag-save", "hsts",
	"alt-svc", "netrc", "cert", "key", "user", "proxy-user", "post-data", "post-file", "body-data", "body-file",
	"method", "save-cookies", "load-cookies", "input-file"}

// runNetwork: curl and the like reach other machines; with an output file,
// data to send or stored credentials, they change things, or send what the
// person did not see.
func runNetwork(c *classifier, n string, args []shWord) {
	writes := n == "wget"
	for _, a := range args {
		t := a.text
		switch {
		case t == "--":
		case strings.HasPrefix(t, "--"):
			name, _, _ := strings.Cut(t[2:], "=")
			for _, w := range curlSends {
				if name == w || strings.HasPrefix(name, w+"-") || strings.HasPrefix(w, name) {
					writes = true
				}
			}
		case strings.HasPrefix(t, "-") && strings.ContainsAny(t[1:], "oOTdFXKcDJnbEu"):
			writes = true
		}
	}
	if writes {
		c.raise(tool.SafetyMutating, n+" writes files or sends data", commandScope(n, args))
		return
	}
	c.raise(tool.SafetyNetwork, n+" reaches other machines", commandScope(n, args))
}
