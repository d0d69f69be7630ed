package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// check prepares a copy of the tracked files for version, serves the
// released modules from a local proxy, and builds a new module that
// imports every released package, resolved the way a user's go get
// resolves it: from the proxy, with no replace directive and no workspace.
func check(top, version string) (err error) {
	tmp, err := os.MkdirTemp("", "toolbelt-release-")
	if err != nil {
		return err
	}
	env := checkEnv(tmp)
	defer func() {
		// The module cache is read-only; go clean empties it.
		clean := exec.Command("go", "clean", "-modcache")
		clean.Env = env
		_ = clean.Run()
		if rmErr := os.RemoveAll(tmp); err == nil {
			err = rmErr
		}
	}()
	repo := filepath.Join(tmp, "repo")
	if err := copyTracked(top, repo); err != nil {
		return err
	}
	if err := prepare(repo, version); err != nil {
		return err
	}
	mods, err := findModules(repo)
	if err != nil {
		return err
	}
	var imports []string
	for _, m := range mods {
		if !m.released {
			continue
		}
		if err := publish(filepath.Join(tmp, "proxy"), repo, m, version); err != nil {
			return fmt.Errorf("%s: %w", m.path, err)
		}
		pkgs, err := importable(filepath.Join(repo, m.dir), m.path)
		if err != nil {
			return err
		}
		if m.dir != "." {
			if err := noCoreInternals(filepath.Join(repo, m.dir)); err != nil {
				return fmt.Errorf("%s: %w", m.path, err)
			}
		}
		imports = append(imports, pkgs...)
		fmt.Printf("served %s@%s (%d packages)\n", m.path, version, len(pkgs))
	}
	user := filepath.Join(tmp, "user")
	if err := writeUser(user, imports); err != nil {
		return err
	}
	for _, m := range mods {
		if m.released {
			if err := goCmd(user, env, "get", m.path+"@"+version); err != nil {
				return err
			}
		}
	}
	// tidy also loads the tests of the packages the user's imports depend
	// on, in other modules (gonja's, under Eino's schema package, import
	// golang.org/x/term through x/crypto), whose modules the offline cache
	// may not hold though nothing is built from them: -e lets it record
	// what it can, and the build that follows fails for anything a
	// released package needs.
	for _, args := range [][]string{{"mod", "tidy", "-e"}, {"build", "./..."}} {
		if err := goCmd(user, env, args...); err != nil {
			return err
		}
	}
	fmt.Printf("a new module resolved and built every released package at %s\n", version)
	return nil
}

// checkEnv is the go command's environment for the user's module: no
// workspace, the local proxy first, then the modules the local cache
// already holds, and nothing from the network.
func checkEnv(tmp string) []string {
	cache := strings.TrimSpace(goEnv("GOMODCACHE"))
	proxy := "file://" + filepath.ToSlash(filepath.Join(tmp, "proxy")) + ",file://" + filepath.ToSlash(filepath.Join(cache, "cache", "download")) + ",off"
	return append(os.Environ(),
		"GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY="+proxy, "GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=",
		"GOTOOLCHAIN=local", "GOMODCACHE="+filepath.Join(tmp, "modcache"))
}

func goEnv(name string) string {
	out, _ := exec.Command("go", "env", name).Output()
	return string(out)
}

func goCmd(dir string, env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// copyTracked copies the files git tracks (as they are in the working
// tree) from top to dst.
func copyTracked(top, dst string) error {
	cmd := exec.Command("git", "ls-files", "-z", "--cached")
	cmd.Dir = top
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, name := range bytes.Split(out, []byte{0}) {
		if len(name) == 0 {
			continue
		}
		src := filepath.Join(top, string(name))
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, string(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, data, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// publish writes module m at version into a GOPROXY directory.
func publish(proxy, repo string, m repoModule, version string) error {
	escaped, err := module.EscapePath(m.path)
	if err != nil {
		return err
	}
	dir := filepath.Join(proxy, escaped, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mv := module.Version{Path: m.path, Version: version}
	zf, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(zf, mv, filepath.Join(repo, m.dir)); err != nil {
		zf.Close()
		return err
	}
	if err := zf.Close(); err != nil {
		return err
	}
	mod, err := os.ReadFile(filepath.Join(repo, m.dir, "go.mod"))
	if err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{version + ".mod": mod, version + ".info": info, "list": []byte(version + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// importable lists the packages of the module in dir a user can import:
// not main, not internal, not in testdata or in a nested module.
func importable(dir, path string) ([]string, error) {
	var pkgs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel != "." {
			if d.Name() == "testdata" || d.Name() == "internal" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		name, err := packageName(p)
		if err != nil || name == "" || name == "main" {
			return err
		}
		imp := path
		if rel != "." {
			imp += "/" + filepath.ToSlash(rel)
		}
		pkgs = append(pkgs, imp)
		return nil
	})
	slices.Sort(pkgs)
	return pkgs, err
}

// packageName returns the package name of the non-test Go files in dir,
// or "" when there are none.
func packageName(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.PackageClauseOnly)
		if err != nil {
			return "", err
		}
		return f.Name.Name, nil
	}
	return "", nil
}

func writeUser(dir string, imports []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/user\n\ngo 1.25.0\n"), 0o644); err != nil {
		return err
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	fmt.Fprintln(w, "// Command user imports every released package, as a user's module would.")
	fmt.Fprintln(w, "package main")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "import (")
	for _, p := range imports {
		fmt.Fprintf(w, "\t_ %q\n", p)
	}
	fmt.Fprintln(w, ")")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "func main() {}")
	if err := w.Flush(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "main.go"), b.Bytes(), 0o644)
}

// noCoreInternals reports an error if a Go file of the nested module in
// dir, tests included, imports a package under the root module's
// internal/: Go allows it (the import path is under the root's), but a
// user's go get pairs the module with whatever core version MVS picks, and
// internal packages promise nothing across versions.
func noCoreInternals(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(path, rootModule+"/internal/") {
				rel, _ := filepath.Rel(dir, p)
				return fmt.Errorf("%s imports %s, an internal package of the core module; depend on the core's public API only", rel, path)
			}
		}
		return nil
	})
}
