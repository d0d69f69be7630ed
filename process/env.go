package process

import (
	"os"
	"runtime"
	"slices"
)

// minimalEnvNames are the variables a program needs to find its tools, its
// home and temporary directories and its locale. None usually holds a
// secret.
var minimalEnvNames = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// windowsEnvNames are their Windows counterparts, with the variables
// Windows programs fail without.
var windowsEnvNames = []string{"PATH", "PATHEXT", "SystemRoot", "SystemDrive", "windir", "ComSpec", "TEMP", "TMP",
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "ProgramData", "ProgramFiles",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "USERNAME"}

// MinimalEnv returns the environment a program gets when [Command.Env] or
// [CLI.Env] is nil: the host's values of PATH, HOME, USER, LOGNAME, SHELL,
// LANG, LC_ALL, LC_CTYPE, TZ and TMPDIR (on Windows: PATH, PATHEXT,
// SystemRoot, TEMP, USERPROFILE, APPDATA and the like), followed by the
// host's values of the variables named in extra. Variables the host does
// not set are left out. The host's other variables (API keys, tokens,
// database URLs) are not passed, so a program cannot print them for the
// model to read.
//
// To pass more, name it: Env: process.MinimalEnv("GOPATH", "GOCACHE"); to
// pass the host's whole environment, say so: Env: os.Environ().
func MinimalEnv(extra ...string) []string {
	names := minimalEnvNames
	if runtime.GOOS == "windows" {
		names = windowsEnvNames
	}
	env := make([]string, 0, len(names)+len(extra))
	var seen []string
	for _, n := range slices.Concat(names, extra) {
		if n == "" || slices.Contains(seen, n) {
			continue
		}
		seen = append(seen, n)
		if v, ok := os.LookupEnv(n); ok {
			env = append(env, n+"="+v)
		}
	}
	return env
}
