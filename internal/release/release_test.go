package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPinned(t *testing.T) {
	ours := map[string]bool{rootModule: true, rootModule + "/toolmcp": true}
	in := `module github.com/toolbelt-go/tool/toolmcp

go 1.25.0

require (
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/toolbelt-go/tool v0.0.0-00010101000000-000000000000
)

replace github.com/toolbelt-go/tool => ../

replace example.com/other => example.com/fork v1.2.3
`
	out, err := pinned("go.mod", []byte(in), ours, "v0.4.0")
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{"github.com/toolbelt-go/tool v0.4.0", "github.com/modelcontextprotocol/go-sdk v1.8.0", "replace example.com/other => example.com/fork v1.2.3"} {
		if !strings.Contains(got, want) {
			t.Errorf("prepared go.mod lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=> ../") || strings.Contains(got, "v0.0.0-00010101000000") {
		t.Errorf("prepared go.mod still points into the repository:\n%s", got)
	}
}

func TestCheckVersion(t *testing.T) {
	for v, ok := range map[string]bool{"v0.4.0": true, "v1.2.3-rc.1": true, "v0.4": false, "0.4.0": false, "v0.4.0-dev": false, "v0.4.0+meta": false} {
		if err := checkVersion(v); (err == nil) != ok {
			t.Errorf("checkVersion(%q) = %v", v, err)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestImportable(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/m\n")
	write(t, filepath.Join(dir, "a.go"), "package m\n")
	write(t, filepath.Join(dir, "sub", "b.go"), "package sub\n")
	write(t, filepath.Join(dir, "sub", "b_test.go"), "package sub_test\n")
	write(t, filepath.Join(dir, "cmd", "main.go"), "package main\n")
	write(t, filepath.Join(dir, "internal", "x", "x.go"), "package x\n")
	write(t, filepath.Join(dir, "testdata", "t.go"), "package t\n")
	write(t, filepath.Join(dir, "nested", "go.mod"), "module example.com/m/nested\n")
	write(t, filepath.Join(dir, "nested", "n.go"), "package nested\n")
	write(t, filepath.Join(dir, "onlytests", "o_test.go"), "package onlytests\n")
	got, err := importable(dir, "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"example.com/m", "example.com/m/sub"}; !slices.Equal(got, want) {
		t.Errorf("importable = %q, want %q", got, want)
	}
}

func TestNoCoreInternals(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.go"), "package a\n\nimport _ \""+rootModule+"/dialect\"\n")
	if err := noCoreInternals(dir); err != nil {
		t.Fatalf("public import refused: %v", err)
	}
	write(t, filepath.Join(dir, "a_test.go"), "package a\n\nimport _ \""+rootModule+"/internal/providertest\"\n")
	if err := noCoreInternals(dir); err == nil || !strings.Contains(err.Error(), "a_test.go") {
		t.Fatalf("internal import in a test file: %v", err)
	}
}

func TestFindModules(t *testing.T) {
	top, err := repoRoot()
	if err != nil {
		t.Skip(err)
	}
	mods, err := findModules(top)
	if err != nil {
		t.Fatal(err)
	}
	if mods[0].path != rootModule || !mods[0].released || mods[0].tagPrefix() != "" {
		t.Errorf("first module %+v, want the released root", mods[0])
	}
	for _, m := range mods {
		parts := strings.Split(filepath.ToSlash(m.dir), "/")
		want := m.dir == "." || len(parts) == 1 && !slices.Contains(notReleased, parts[0])
		if m.released != want {
			t.Errorf("%s (%s): released = %v", m.path, m.dir, m.released)
		}
	}
	for dir, want := range map[string]bool{".": true, "toolmcp": true, "examples/connect": false, "bench": false, "internal/release": false, "approvalweb/browsertest": false} {
		if released(dir) != want {
			t.Errorf("released(%q) = %v", dir, !want)
		}
	}
}
