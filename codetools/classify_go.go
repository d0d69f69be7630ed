package codetools

import (
	"strings"

	"github.com/toolbelt-go/tool"
)

// goReadOnly are the go commands that only read, with the flags they
// take that have a value; every other flag they accept has none.
var goReadOnly = map[string]map[string]bool{
	"version": {},
	"doc":     {},
	"env":     {},
	"help":    {},
	"list": setOf("-f", "-reuse", "-C", "-overlay", "-modfile", "-pgo", "-mod", "-tags", "-gcflags", "-ldflags",
		"-asmflags", "-gccgoflags", "-buildmode", "-compiler", "-installsuffix", "-pkgdir", "-p", "-covermode",
		"-coverpkg", "-json"),
}

// goFlags are the flags without a value the read-only go commands accept.
var goFlags = setOf("-m", "-v", "-json", "-changed", "-e", "-deps", "-find", "-test", "-u", "-versions",
	"-retracted", "-a", "-n", "-x", "-work", "-race", "-msan", "-asan", "-cover", "-trimpath", "-linkshared",
	"-buildvcs", "-modcacherw", "-all", "-c", "-cmd", "-short", "-src", "-compiled", "-export", "-h", "-help")

// goRuns are the flags, of any go command, that run a program given in
// them, or load code from a file: asked about every time.
var goRuns = []string{"-toolexec", "-exec", "-vettool", "-overlay", "-debug-actiongraph", "-debug-trace", "-http"}

func runGo(c *classifier, n string, args []shWord) {
	cwd, lost := c.cwd, c.lostCwd
	defer func() { c.cwd, c.lostCwd = cwd, lost }()
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimPrefix(a.text, "-"), "=")
		for _, r := range goRuns {
			if "-"+name == r {
				c.cannot("go " + r + " runs a program or loads code the check cannot see")
				return
			}
		}
	}
	if len(args) >= 2 && (args[0].text == "-C" || args[0].text == "--C") {
		c.cd(args[1])
		args = args[2:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0].text, "-") {
		return // go, go -h
	}
	sub := args[0].text
	rest := args[1:]
	values, ok := goReadOnly[sub]
	switch {
	case !ok:
		c.raise(tool.SafetyMutating, "go "+sub+" builds or runs code, or changes files", goScope(sub, rest))
		return
	case sub == "env" && slicesAny(rest, "-w", "--w", "-u", "--u"):
		c.raise(tool.SafetyMutating, "go env -w changes the go command's settings", goScope(sub, rest))
		return
	case sub == "list" && slicesAny(rest, "-export", "--export", "-compiled", "--compiled"):
		c.raise(tool.SafetyMutating, "go list -export builds the packages", "go list -export")
		return
	}
	for i := 0; i < len(rest); i++ {
		t := rest[i].text
		name, val, eq := strings.Cut(t, "=")
		name = "-" + strings.TrimLeft(name, "-")
		switch {
		case !strings.HasPrefix(t, "-"):
			switch {
			case sub == "version":
				c.read(rest[i], names)
			case strings.HasPrefix(t, ".") || strings.HasPrefix(t, "/") || rest[i].tilde:
				// A package pattern by directory (../..., /x/...) reads
				// the Go files there.
				w := rest[i]
				if w.text = strings.TrimSuffix(w.text, "/..."); w.text == "..." {
					w.text = "."
				}
				c.read(w, names)
			}
		case name == "-mod" && (val == "mod" || !eq && i+1 < len(rest) && rest[i+1].text == "mod"):
			c.raise(tool.SafetyMutating, "go list -mod=mod may rewrite go.mod", "go list -mod=mod")
			return
		case name == "-modfile" || name == "-pgo" || name == "-reuse":
			if eq {
				c.read(shWord{text: val}, contents)
			} else if i+1 < len(rest) {
				c.read(rest[i+1], contents)
			}
			if !eq {
				i++
			}
		case name == "-C":
			c.cannot("go " + sub + " -C changes the directory after the check")
			return
		case values[name] && !eq && name != "-json":
			i++
		case values[name] || goFlags[name]:
		default:
			c.cannot("the check does not know the flag " + cut(t, 40) + " of go " + sub)
			return
		}
	}
}

// goScope is "go test", or "go tool NAME", "go env -w NAME", "go mod tidy".
func goScope(sub string, rest []shWord) string {
	scope := "go " + sub
	switch sub {
	case "tool", "mod", "work", "telemetry":
		if len(rest) > 0 && plainWord(rest[0]) {
			scope += " " + rest[0].text
		}
	case "env":
		scope += " -w"
		for _, r := range rest {
			if !strings.HasPrefix(r.text, "-") {
				name, _, _ := strings.Cut(r.text, "=")
				scope += " " + cut(name, 40)
			}
		}
	}
	return scope
}

func slicesAny(args []shWord, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a.text == o || strings.HasPrefix(a.text, o+"=") {
				return true
			}
		}
	}
	return false
}
