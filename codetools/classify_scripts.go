package codetools

import (
	"strings"

	"github.com/toolbelt-go/tool"
)

// The programs with a language of their own: sed scripts, awk programs,
// jq filters and find expressions. Each is read-only only when the check
// reads the script and finds nothing in it that writes a file, reads one
// it cannot see or runs a program.

var sedSpec = &optSpec{short: "ne:f:i::El:rsuz",
	long: longs("quiet", "silent", "expression=", "file=", "in-place=?", "line-length=", "regexp-extended",
		"separate", "unbuffered", "null-data", "posix", "debug", "sandbox", "follow-symlinks", "binary", "help", "version")}

func runSed(c *classifier, n string, args []shWord) {
	p := sedSpec.parse(args)
	switch {
	case p.unknown != "":
		c.cannot("the check does not know the option " + cut(p.unknown, 40) + " of sed")
		return
	case p.has("-f", "--file"):
		c.cannot("sed -f runs a script from a file, which the check does not read")
		return
	case p.has("-i", "--in-place"):
		// Its script and files are read as without -i: "allow always" for
		// sed -i must not cover a script that runs a program or writes
		// elsewhere, nor a file outside the rules.
		c.raise(tool.SafetyMutating, "sed -i edits files in place", "sed -i")
	}
	scripts := p.values("-e", "--expression")
	ops := p.operands
	if len(scripts) == 0 && len(ops) > 0 {
		scripts = []parsedOpt{{value: ops[0].text}}
		if ops[0].expands() {
			c.cannot("the sed script expands when the command runs")
			return
		}
		ops = ops[1:]
	}
	if !p.has("--sandbox") {
		for _, s := range scripts {
			if why := sedUnsafe(s.value); why != "" {
				c.cannot("the sed script " + why)
				return
			}
		}
	}
	c.readAll(ops, contents)
}

// sedUnsafe reads a sed script far enough to find the commands that write
// a file (w, W, and the w flag of s), read one (r, R) or run a program (e,
// and the e flag of s), and says which it found. What it cannot read is
// unsafe too.
func sedUnsafe(script string) string {
	s := script
	i := 0
	next := func() (byte, bool) {
		if i >= len(s) {
			return 0, false
		}
		i++
		return s[i-1], true
	}
	skipBlanks := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ';' || s[i] == '\n') {
			i++
		}
	}
	// delimited skips a regex or replacement ending at delim, escapes
	// included.
	delimited := func(delim byte) bool {
		for i < len(s) {
			ch := s[i]
			i++
			switch {
			case ch == '\\':
				i++
			case ch == delim:
				return true
			case ch == '\n' && delim != '\n':
				return false
			}
		}
		return false
	}
	address := func() bool {
		switch {
		case i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '$'):
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '/':
			i++
			if !delimited('/') {
				return false
			}
		case i+1 < len(s) && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !delimited(d) {
				return false
			}
		}
		for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
		return true
	}
	for {
		skipBlanks()
		if i >= len(s) {
			return ""
		}
		if s[i] == '#' {
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		if !address() {
			return "could not be read"
		}
		for i < len(s) && (s[i] == ',' || s[i] == ' ' || s[i] == '+' || s[i] == '~') {
			i++
			if !address() {
				return "could not be read"
			}
		}
		for i < len(s) && (s[i] == '!' || s[i] == ' ') {
			i++
		}
		cmd, ok := next()
		if !ok {
			return ""
		}
		switch cmd {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
			for i < len(s) && s[i] >= '0' && s[i] <= '9' { // l 70
				i++
			}
		case 'q', 'Q':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case ':', 'b', 't', 'T':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case 'a', 'i', 'c':
			// Text to the end of the line (GNU one-liner form too).
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 's':
			delim, ok := next()
			if !ok || delim == '\\' || delim == '\n' {
				return "could not be read"
			}
			for range 2 { // the pattern, then the replacement
				if !delimited(delim) {
					return "could not be read"
				}
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				switch f := s[i]; {
				case f == 'w' || f == 'W':
					return "writes a file (the w flag of s)"
				case f == 'e':
					return "runs a program (the e flag of s)"
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f == ' ' || f >= '0' && f <= '9':
				default:
					return "could not be read"
				}
				i++
			}
		case 'y':
			delim, ok := next()
			if !ok || delim == '\\' || delim == '\n' {
				return "could not be read"
			}
			for range 2 {
				if !delimited(delim) {
					return "could not be read"
				}
			}
		case 'w', 'W':
			return "writes a file (w)"
		case 'r', 'R':
			return "reads a file into its output (r)"
		case 'e':
			return "runs a program (e)"
		case 'v':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		default:
			return "could not be read"
		}
	}
}

// awkSpec: -f reads the program from a file, and gawk's -i, -l, -E and
// the profiling and dumping options load code or write files; none of
// those is known here, so they make the command one the check cannot
// follow.
var awkSpec = &optSpec{short: "F:v:", long: longs("field-separator=", "assign=", "posix", "traditional", "lint=?", "help", "version", "characters-as-bytes", "sandbox")}

// awkUnsafe are the parts of an awk program that run programs (system,
// pipes into or out of commands), write files (> and >>), read files
// (getline), or load code (@include, @load).
var awkUnsafe = []string{"system", "|", ">", "getline", "@", "close", "fflush", "ENVIRON", "PROCINFO"}

func runAwk(c *classifier, n string, args []shWord) {
	p := awkSpec.parse(args)
	if p.unknown != "" {
		c.cannot("the check does not know the option " + cut(p.unknown, 40) + " of " + n)
		return
	}
	ops := p.operands
	if len(ops) == 0 {
		c.cannot(n + " has no program")
		return
	}
	prog := ops[0]
	if prog.expands() {
		c.cannot("the " + n + " program expands when the command runs")
		return
	}
	if !p.has("--sandbox") {
		for _, u := range awkUnsafe {
			if strings.Contains(prog.text, u) {
				c.cannot("the " + n + " program uses " + u + ", which may write files or run programs")
				return
			}
		}
	}
	for _, o := range ops[1:] {
		if identifier(o.text, true) && strings.Contains(o.text, "=") {
			continue // var=value, an assignment between files
		}
		c.read(o, contents)
	}
}

// runJq: the filter is the first operand unless -f gave a file; the other
// operands are files, unless --args or --jsonargs made them values;
// --rawfile and --slurpfile read a file each. Modules (import, include)
// read files the check cannot see.
func runJq(c *classifier, n string, args []shWord) {
	noValue := "nrjacsSCMeRhVb0"
	oneValue := map[string]bool{"--indent": true, "-f": true, "--from-file": true, "-L": true, "--library-path": true}
	twoValues := map[string]bool{"--arg": true, "--argjson": true, "--slurpfile": true, "--rawfile": true, "--named-arg": true}
	longFlags := setOf("--null-input", "--raw-input", "--slurp", "--compact-output", "--tab", "--color-output",
		"--monochrome-output", "--ascii-output", "--unbuffered", "--sort-keys", "--raw-output", "--raw-output0",
		"--join-output", "--exit-status", "--seq", "--stream", "--stream-errors", "--help", "--version",
		"--build-configuration", "--binary")
	var operands []shWord
	fromFile, values := false, false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case values || !strings.HasPrefix(t, "-") || t == "-":
			if !values {
				operands = append(operands, args[i])
			}
		case t == "--args" || t == "--jsonargs":
			values = true
		case t == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case twoValues[t]:
			if i+2 < len(args) && (t == "--slurpfile" || t == "--rawfile") {
				c.read(args[i+2], contents)
			}
			i += 2
		case oneValue[t]:
			if i+1 < len(args) && (t == "-f" || t == "--from-file") {
				fromFile = true
				c.read(args[i+1], contents)
			}
			i++
		case longFlags[t]:
		case !strings.HasPrefix(t, "--") && strings.Trim(t[1:], noValue) == "":
		default:
			c.cannot("the check does not know the option " + cut(t, 40) + " of jq")
			return
		}
	}
	if !fromFile && len(operands) > 0 {
		f := operands[0]
		operands = operands[1:]
		if f.expands() {
			c.cannot("the jq filter expands when the command runs")
			return
		}
		if strings.Contains(f.text, "import") || strings.Contains(f.text, "include") {
			c.cannot("the jq filter loads modules, which read files the check cannot see")
			return
		}
	}
	c.readAll(operands, contents)
}

// findArgs are find's primaries that take a value, and how many.
var findArgs = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1,
	"-iregex": 1, "-type": 1, "-xtype": 1, "-size": 1, "-perm": 1, "-user": 1, "-group": 1, "-uid": 1,
	"-gid": 1, "-links": 1, "-inum": 1, "-maxdepth": 1, "-mindepth": 1, "-mtime": 1, "-mmin": 1, "-atime": 1,
	"-amin": 1, "-ctime": 1, "-cmin": 1, "-used": 1, "-fstype": 1, "-regextype": 1, "-lname": 1, "-ilname": 1,
	"-context": 1, "-printf": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1, "-samefile": 1, "-files0-from": 1,
}

// findFlags are find's primaries without a value that only test or print.
var findFlags = setOf("-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-not", "!", "-a", "-o",
	"-and", "-or", ",", "(", ")", "-empty", "-executable", "-readable", "-writable", "-nouser", "-nogroup",
	"-xdev", "-mount", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-daystart", "-depth",
	"-d", "-follow", "-warn", "-nowarn", "-help", "--help", "-version", "--version")

// runFind: the paths come first (after -H, -L, -P, -D and -O), then the
// expression. Actions that run a program (-exec and its kin) make the
// command more than a read, as its class says, asked about every time:
// the files it runs on are whatever matches.
func runFind(c *classifier, n string, args []shWord) {
	i := 0
	for i < len(args) && (args[i].text == "-H" || args[i].text == "-L" || args[i].text == "-P" ||
		strings.HasPrefix(args[i].text, "-O") || args[i].text == "-D") {
		if args[i].text == "-D" {
			i++
		}
		i++
	}
	for ; i < len(args); i++ {
		t := args[i].text
		if strings.HasPrefix(t, "-") || t == "!" || t == "(" || t == ")" || t == "," {
			break
		}
		c.read(args[i], names)
	}
	for ; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "-delete":
			c.raise(tool.SafetyDestructive, "find -delete deletes files", "find -delete")
		case t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir":
			end := i + 1
			for end < len(args) && args[end].text != ";" && args[end].text != "+" {
				end++
			}
			if end == i+1 {
				c.cannot("find " + t + " has no command")
				return
			}
			inner := args[i+1 : end]
			c.raise(tool.SafetyMutating, "find "+t+" runs "+inner[0].text+" on every file it finds", "")
			c.cannot("find " + t + " runs a program on files the check cannot see")
			c.wrapped("find "+t, inner)
			i = end
		case t == "-fprint" || t == "-fprint0" || t == "-fprintf" || t == "-fls":
			c.raise(tool.SafetyDestructive, "find "+t+" replaces a file", "find "+t)
			i++
		case t == "-files0-from":
			if i+1 < len(args) {
				c.read(args[i+1], contents)
			}
			i++
		case findArgs[t] > 0:
			i += findArgs[t]
		case strings.HasPrefix(t, "-newer") && len(t) == len("-newerXY"):
			i++
		case findFlags[t]:
		default:
			c.cannot("the check does not know the find primary " + cut(t, 40))
			return
		}
	}
}
