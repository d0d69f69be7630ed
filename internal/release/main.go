// Command release prepares the repository's modules for a release, and
// checks, without publishing anything, that a user's go get of each
// released module resolves to a matching core.
//
// The library modules are versioned together: the root module
// (github.com/toolbelt-go/tool) and each nested one (toolmcp, toolopenai,
// …) get the same version at the same commit. On main, each nested module
// requires the root (and its siblings) through replace directives, for the
// tests and for `GOWORK=off go mod tidy`; a published go.mod must not
// depend on them, since a user's build ignores them. So the release commit
// is made by
//
//	go run ./internal/release prepare v0.4.0
//
// which requires every module of the repository at that version and drops
// the replace directives that point into the repository. Then the tags: the
// root's first (v0.4.0), then each nested module's (toolmcp/v0.4.0, …), so
// that the proxy can resolve each nested module's requirement when it is
// first fetched. The examples, bench and internal modules are not released.
//
//	go run ./internal/release check v0.4.0
//
// does all of that in a copy of the tracked files, serves the modules from a
// local module proxy (with every other module from the local module cache,
// so it needs no network), and builds a fresh module that imports every
// released package, the way a user's go get would. .ci/run runs it.
package main

import (
	"fmt"
	"os"
)

const usage = `usage:
  release prepare VERSION   require every module of the repository at VERSION, drop replace directives into it
  release check VERSION     prepare a copy, serve it from a local proxy, and build a user's module against it
  release modules           list the released modules`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no command\n%s", usage)
	}
	top, err := repoRoot()
	if err != nil {
		return err
	}
	switch {
	case args[0] == "modules" && len(args) == 1:
		mods, err := findModules(top)
		if err != nil {
			return err
		}
		for _, m := range mods {
			if m.released {
				fmt.Printf("%s\t%s\n", m.path, m.tagPrefix())
			}
		}
		return nil
	case args[0] == "prepare" && len(args) == 2:
		if err := checkVersion(args[1]); err != nil {
			return err
		}
		return prepare(top, args[1])
	case args[0] == "check" && len(args) == 2:
		if err := checkVersion(args[1]); err != nil {
			return err
		}
		return check(top, args[1])
	}
	return fmt.Errorf("bad arguments %q\n%s", args, usage)
}
