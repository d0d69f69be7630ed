package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// rootModule is the module path of the repository's root module.
const rootModule = "github.com/toolbelt-go/tool"

// repoModule is one go.mod of the repository.
type repoModule struct {
	dir      string // relative to the repository root, "." for the root
	path     string
	released bool // a library module users depend on
}

// tagPrefix is what the module's tags start with: "" for the root,
// "toolmcp/" for the module in toolmcp.
func (m repoModule) tagPrefix() string {
	if m.dir == "." {
		return ""
	}
	return filepath.ToSlash(m.dir) + "/"
}

// notReleased are the directories whose modules are not for users. A
// released nested module sits right under the repository root (toolmcp/);
// a module deeper down (approvalweb/browsertest/) holds only tests.
var notReleased = []string{"examples", "bench", "internal"}

func released(dir string) bool {
	parts := strings.Split(filepath.ToSlash(dir), "/")
	return dir == "." || len(parts) == 1 && !slices.Contains(notReleased, parts[0])
}

func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not in a git repository: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// findModules lists the repository's modules, the root first.
func findModules(top string) ([]repoModule, error) {
	var mods []repoModule
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != top) {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "go.mod" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		path := modfile.ModulePath(data)
		if path == "" {
			return fmt.Errorf("%s names no module", p)
		}
		dir, err := filepath.Rel(top, filepath.Dir(p))
		if err != nil {
			return err
		}
		mods = append(mods, repoModule{dir: dir, path: path, released: released(dir)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(mods, func(a, b repoModule) int {
		if (a.dir == ".") != (b.dir == ".") {
			if a.dir == "." {
				return -1
			}
			return 1
		}
		return strings.Compare(a.dir, b.dir)
	})
	if len(mods) == 0 || mods[0].path != rootModule {
		return nil, fmt.Errorf("the repository root is not module %s", rootModule)
	}
	return mods, nil
}

func checkVersion(v string) error {
	if !semver.IsValid(v) || semver.Canonical(v) != v || semver.Prerelease(v) != "" && !strings.HasPrefix(semver.Prerelease(v), "-rc.") {
		return fmt.Errorf("%q is not a release version like v0.4.0 (or v0.4.0-rc.1)", v)
	}
	return nil
}

// prepare requires every module of the repository at version, in every
// released module's go.mod, and drops the replace directives that point
// into the repository.
func prepare(top, version string) error {
	mods, err := findModules(top)
	if err != nil {
		return err
	}
	ours := map[string]bool{}
	for _, m := range mods {
		ours[m.path] = true
	}
	for _, m := range mods {
		if !m.released {
			continue
		}
		file := filepath.Join(top, m.dir, "go.mod")
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		out, err := pinned(file, data, ours, version)
		if err != nil {
			return err
		}
		if !bytes.Equal(out, data) {
			if err := os.WriteFile(file, out, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// pinned returns the go.mod with every requirement of one of ours at
// version and no replace directive of one of ours to a local directory.
func pinned(name string, data []byte, ours map[string]bool, version string) ([]byte, error) {
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range f.Require {
		if ours[r.Mod.Path] {
			if err := f.AddRequire(r.Mod.Path, version); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range f.Replace {
		if ours[r.Old.Path] && r.New.Version == "" {
			if err := f.DropReplace(r.Old.Path, r.Old.Version); err != nil {
				return nil, err
			}
		}
	}
	f.Cleanup()
	return f.Format()
}
