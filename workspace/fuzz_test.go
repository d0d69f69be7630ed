package workspace

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// snapshot records a tree as it is on disk: type, permissions and
// content of every entry, links as their targets.
func snapshot(t testing.TB, dir string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		for _, s := range skip {
			if rel == s {
				return fs.SkipDir
			}
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			dest, _ := os.Readlink(p)
			desc += " -> " + dest
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(before, after map[string]string) string {
	var b strings.Builder
	for k, v := range before {
		if after[k] != v {
			fmt.Fprintf(&b, "%s: %q -> %q\n", k, v, after[k])
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			fmt.Fprintf(&b, "%s: new %q\n", k, v)
		}
	}
	return b.String()
}

// FuzzWorkspace drives every operation with arbitrary paths against a real
// tree planted with links out of the root, to a sibling with the same
// prefix, to denied files, absolute links, loops and special files. After
// each operation it checks on disk that nothing outside the root (and the
// write root) changed, that no link or special file inside was replaced,
// that no read returned content from outside or from a denied file, that
// nothing blocked, and that every refusal is a message for the model with
// no host path in it. The root is put back as it was after each input.
//
// In a path, {T} stands for the directory holding the root and its
// siblings, {R} for the root: the seeds reach absolute paths that way.
func FuzzWorkspace(f *testing.F) {
	tr := plant(f, nil)
	outside := snapshot(f, tr.tmp, "app", "scratch")
	inside := snapshot(f, tr.root)
	originals := map[string][]byte{}
	special := map[string]string{} // links and special files: never replaced
	for rel, desc := range inside {
		if strings.HasPrefix(desc, "-") {
			originals[rel], _ = os.ReadFile(filepath.Join(tr.root, rel))
		} else if !strings.HasPrefix(desc, "d") {
			special[rel] = describe(filepath.Join(tr.root, rel))
		}
	}
	tr.ws.noSync = true // the checks are about where writes land, not durability
	seeds := []string{
		"main.go", ".", "..", "../outside/secret.txt", "/etc/passwd", "{T}/outside/secret.txt", "{T}/app2/secret.txt",
		"{R}2/secret.txt", "{R}/main.go", "{R}/../app2/secret.txt", "{T}/scratch/new.txt", "link-out/secret.txt",
		"link-file-out", "link-sibling", "abs-link", "abs-out", "dotdot/outside/secret.txt", "link-in/deep.txt",
		"link-in/new.txt", "loop1", "fifo", "sock", "null", ".env", ".ENV", ".env.", "link-env", "link-sub-env",
		"link-git/config", ".git/config", "sub/ro/fixed.txt", "sub/ro-link/x", "sub/up/outside", "dot/dot/main.go",
		"sub/../../outside/secret.txt", "a\x00b", "\uff0e\uff0e/outside/secret.txt", "..\\outside\\secret.txt",
		"%2e%2e/outside", strings.Repeat("a/", 100) + "x", strings.Repeat("n", 300), "sub/./deep.txt/", "\xff\xfe",
		"main.go/", "sub//deep.txt", "new/dir/file.txt", "./", "link-in/up/.env", "key.pem", "KEY.PEM",
		// The directory reached is kept open while a path is resolved:
		// ".." and links after it, and names folded once for a whole path.
		"sub/ro/../deep.txt", "sub/ro/../../sub/ro/fixed.txt", "link-in/../sub/deep.txt", "sub/up/../app/.env",
		"sub/deep.txt/../deep.txt", strings.Repeat("sub/ro/../", 50) + "deep.txt", "SUB/.Env/x", "sub/．env",
	}
	for i, s := range seeds {
		f.Add(uint8(i), s, []byte("data"))
	}
	f.Fuzz(func(t *testing.T, op uint8, name string, data []byte) {
		name = strings.ReplaceAll(strings.ReplaceAll(name, "{R}", tr.root), "{T}", tr.tmp)
		if len(data) > 64 {
			data = data[:64]
		}
		var got []byte
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			switch op % 7 {
			case 0:
				got, err = tr.ws.ReadFile(name)
			case 1:
				_, err = tr.ws.Stat(name)
			case 2:
				_, err = tr.ws.ReadDir(name)
			case 3:
				err = tr.ws.WriteFile(name, data)
			case 4:
				err = tr.ws.CreateFile(name, data)
			case 5:
				n := 0
				err = tr.ws.WalkDir(name, func(string, fs.DirEntry, error) error {
					if n++; n > 200 {
						return fs.SkipAll
					}
					return nil
				})
			case 6:
				_, err = tr.ws.Check(name, Write)
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a hang check, generous for a loaded machine
			t.Fatalf("op %d on %q blocked", op%7, name)
		}
		if bytes.Contains(got, []byte(outsideMarker)) || bytes.Contains(got, []byte(envMarker)) {
			t.Fatalf("op %d on %q returned protected content", op%7, name)
		}
		if err != nil {
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("op %d on %q: the error has no PathError for the host: %v", op%7, name, err)
			}
			noHostPath(t, tr.tmp, name, modelText(t, err))
		}
		if d := diffSnapshots(outside, snapshot(t, tr.tmp, "app", "scratch")); d != "" {
			t.Fatalf("op %d on %q changed the file system outside the workspace:\n%s", op%7, name, d)
		}
		for rel, desc := range special {
			if got := describe(filepath.Join(tr.root, rel)); got != desc {
				t.Fatalf("op %d on %q replaced %s (%s) with %q", op%7, name, rel, desc, got)
			}
		}
		if err == nil && (op%7 == 3 || op%7 == 4) {
			restore(t, tr, inside, snapshot(t, tr.root), originals)
		}
	})
}

// describe is an entry's type and, for a link, its target.
func describe(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return err.Error()
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		dest, _ := os.Readlink(p)
		return fi.Mode().Type().String() + " -> " + dest
	}
	return fi.Mode().Type().String()
}

// restore puts the root back as the snapshot inside was: files written
// and directories made are removed, files changed get their content back.
func restore(t *testing.T, tr *tree, inside, now map[string]string, originals map[string][]byte) {
	for rel, desc := range now {
		if _, ok := inside[rel]; !ok {
			if err := os.RemoveAll(filepath.Join(tr.root, rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
		} else if desc != inside[rel] && originals[rel] != nil {
			if err := os.WriteFile(filepath.Join(tr.root, rel), originals[rel], 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, e := range mustReadDir(t, tr.scratch) {
		if e.Name() != "note.txt" {
			os.RemoveAll(filepath.Join(tr.scratch, e.Name()))
		}
	}
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

// FuzzRepositoryFiles reads what a command may write in a repository:
// its config (core.hooksPath, extensions.worktreeConfig) and a .git file
// (gitdir: …). Whatever they hold: no panic, and a .git file leads to a
// directory inside a root or nowhere.
func FuzzRepositoryFiles(f *testing.F) {
	for _, seed := range []string{"", "[core]\n\thooksPath = .husky\n", "[extensions]\nworktreeConfig", "gitdir: ../x\n",
		"gitdir: /etc\n", "gitdir: ../../..\n", "[core\nhooksPath=", "[Core]\n HooksPath = \"a b\"\n"} {
		f.Add(seed)
	}
	root := f.TempDir()
	ws, err := Open(root, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer ws.Close()
	f.Fuzz(func(t *testing.T, content string) {
		if err := os.WriteFile(filepath.Join(root, "config"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		readGitConfig(ws.roots[0], "config")
		repo, ok := ws.gitFileTarget(ws.roots[0], "config")
		if ok && (repo.rel == "." || repo.rel == ".." || strings.HasPrefix(repo.rel, "../") || filepath.IsAbs(repo.rel)) {
			t.Errorf("gitdir %q leads to %q", content, repo.rel)
		}
	})
}
