//go:build linux

package workspace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSandboxChangesTracked: a sandbox prepared from the changes the
// kernel reported names what one prepared by walking the whole tree
// names, after any series of changes: files and directories made,
// removed, renamed (with protected files in them), hard links made and
// removed, repositories made. Both workspaces keep the identities of the
// denied files they saw, so a renamed one stays hidden in both. (Hard
// links made where the walk does not go are left out: see
// watch_linux.go.)
func TestSandboxChangesTracked(t *testing.T) {
	seeds := uint64(6)
	if s := os.Getenv("TOOLBELT_TREE_SEEDS"); s != "" {
		fmt.Sscan(s, &seeds)
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			root := t.TempDir()
			opts := &Options{ReadOnly: []string{"vendor/"}, AllowHardLinks: seed%2 == 1}
			tracked, err := Open(root, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer tracked.Close()
			walked, err := Open(root, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer walked.Close()
			walked.noWatch = true
			rng := rand.New(rand.NewPCG(seed, 42))
			names := []string{"a", "b", "c", ".env", "id_rsa", "x.pem", "vendor", ".git", "main.go", "conf", "keys"}
			pick := func(dir bool) string {
				var all []string
				filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
					if err == nil && p != root && d.IsDir() == dir && !strings.Contains(p, "/.git/") {
						rel, _ := filepath.Rel(root, p)
						all = append(all, rel)
					}
					return nil
				})
				if len(all) == 0 {
					return ""
				}
				slices.Sort(all)
				return all[rng.IntN(len(all))]
			}
			newPath := func() string {
				dir := pick(true)
				if dir == "" || rng.IntN(3) == 0 {
					dir = "."
				}
				return filepath.Join(dir, names[rng.IntN(len(names))])
			}
			// Where the walk does not go (a repository, a denied
			// directory), a name made, removed or moved in changes the
			// link count of a file whose directory is not told (see
			// watch_linux.go): hard links are not made, removed or moved
			// there.
			var hidden []string // the last sandbox's
			unwatched := func(p string) bool {
				if strings.Contains("/"+p+"/", "/.git/") {
					return true
				}
				for _, h := range hidden {
					if rel, _ := filepath.Rel(root, h); p == rel || strings.HasPrefix(p, rel+"/") || strings.HasPrefix(filepath.Dir(p)+"/", rel+"/") {
						return true
					}
				}
				// Not yet hidden, but denied by name: not walked either.
				for q := p; q != "." && q != "/"; q = filepath.Dir(q) {
					if m, _ := walked.deny.Match(q, true); m {
						return true
					}
				}
				return false
			}
			linked := func(p string) bool { // holds a file with other names
				found := false
				filepath.WalkDir(filepath.Join(root, p), func(q string, d os.DirEntry, err error) error {
					if fi, err := os.Lstat(q); err == nil && fi.Mode().IsRegular() && HardLinks(fi) > 1 {
						found = true
					}
					return nil
				})
				return found
			}
			var log []string
			step := func() {
				p := newPath()
				abs := filepath.Join(root, p)
				switch op := rng.IntN(8); op {
				case 0, 1:
					os.MkdirAll(filepath.Dir(abs), 0o755)
					os.WriteFile(abs, []byte("x"), 0o644)
					log = append(log, "write "+p)
				case 2:
					os.MkdirAll(abs, 0o755)
					log = append(log, "mkdir "+p)
				case 3:
					if f := pick(rng.IntN(2) == 0); f != "" && !unwatched(f) {
						os.RemoveAll(filepath.Join(root, f))
						log = append(log, "rm "+f)
					}
				case 4, 5:
					if f := pick(rng.IntN(2) == 0); f != "" && !strings.HasPrefix(p, f+"/") && p != f && !(unwatched(p) && linked(f)) {
						os.MkdirAll(filepath.Dir(abs), 0o755)
						os.Rename(filepath.Join(root, f), abs)
						log = append(log, "mv "+f+" "+p)
					}
				case 6:
					if unwatched(p) {
						break
					}
					if f := pick(false); f != "" {
						os.MkdirAll(filepath.Dir(abs), 0o755)
						os.Link(filepath.Join(root, f), abs)
						log = append(log, "ln "+f+" "+p)
					}
				case 7:
					os.MkdirAll(filepath.Join(abs, ".git", "hooks"), 0o755)
					log = append(log, "git init "+p)
				}
			}
			for round := range 60 {
				log = log[:0]
				for range 1 + rng.IntN(4) {
					step()
				}
				for _, a := range []Access{Read, Write} {
					got, err := sandboxOf(tracked, a, round%3 == 0)
					if err != nil {
						t.Fatal(err)
					}
					want, err := sandboxOf(walked, a, round%3 == 0)
					if err != nil {
						t.Fatal(err)
					}
					if tracked.tracked.watch == nil || !tracked.tracked.valid {
						t.Fatal("the tracked workspace walks the whole tree: no notifications")
					}
					hidden = want.Deny
					// A file made in this round may reuse the inode number
					// of a denied one deleted: the whole walk, which never
					// saw the deletion, takes it for the denied file; the
					// notifications do not.
					wantDeny := slices.DeleteFunc(slices.Clone(want.Deny), func(p string) bool {
						rel, _ := filepath.Rel(root, p)
						return slices.Contains(log, "write "+rel) && !slices.Contains(got.Deny, p)
					})
					if !slices.Equal(got.Deny, wantDeny) || !slices.Equal(got.ReadOnly, want.ReadOnly) {
						t.Fatalf("round %d, access %v, after:\n%s\ntracked: deny %v read-only %v\nwalked:  deny %v read-only %v",
							round, a, strings.Join(log, "\n"), got.Deny, got.ReadOnly, want.Deny, want.ReadOnly)
					}
				}
			}
		})
	}
}

// TestSandboxRenamedDenied: a denied file stays denied under any name it
// is given: renamed itself, or a directory above it renamed, moved into
// another directory; to the file tools too. So does a denied directory.
func TestSandboxRenamedDenied(t *testing.T) {
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprint("notifications ", watch), func(t *testing.T) {
			root := t.TempDir()
			for name, content := range map[string]string{
				"conf/prod.json": "password\n", "keys/tls.pem": "KEY\n", "secrets/a.txt": "A\n", "main.go": "package main\n",
			} {
				os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
				os.WriteFile(filepath.Join(root, name), []byte(content), 0o644)
			}
			deny := append(slices.Clone(DefaultDeny), "/conf/prod.json", "/secrets/")
			ws, err := Open(root, &Options{Deny: deny})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			ws.noWatch = !watch
			if _, err := sandboxOf(ws, Write, false); err != nil {
				t.Fatal(err)
			}
			for _, mv := range [][2]string{{"conf", "conf-old"}, {"keys", "k2"}, {"secrets", "public"}, {"conf-old/prod.json", "prod.txt"}} {
				if err := os.Rename(filepath.Join(root, mv[0]), filepath.Join(root, mv[1])); err != nil {
					t.Fatal(err)
				}
				sb, err := sandboxOf(ws, Read, false)
				if err != nil {
					t.Fatal(err)
				}
				var rel []string
				for _, p := range sb.Deny {
					r, _ := filepath.Rel(root, p)
					rel = append(rel, r)
				}
				t.Logf("after mv %s %s: %v", mv[0], mv[1], rel)
				for _, want := range []string{"k2/tls.pem"} {
					if mv[0] == "keys" && !slices.Contains(rel, want) {
						t.Errorf("mv keys k2: %s not denied: %v", want, rel)
					}
				}
			}
			for _, name := range []string{"prod.txt", "k2/tls.pem", "public", "public/a.txt"} {
				sb, _ := sandboxOf(ws, Read, false)
				hidden := false
				for _, p := range sb.Deny {
					if p == filepath.Join(root, name) || strings.HasPrefix(filepath.Join(root, name), p+"/") {
						hidden = true
					}
				}
				if !hidden {
					t.Errorf("%s is not hidden from commands: %v", name, sb.Deny)
				}
			}
			for _, name := range []string{"prod.txt", "public/a.txt"} {
				if b, err := ws.ReadFile(name); err == nil {
					t.Errorf("ReadFile(%s) = %q: a renamed denied file was read", name, b)
				}
			}
			if _, err := ws.ReadFile("main.go"); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSandboxUnreadableDirectory: a directory the preparation cannot read
// is hidden whole, not taken for one that holds nothing protected.
func TestSandboxUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		asNobody(t, "TestSandboxUnreadableDirectory") // root reads every directory
		return
	}
	root, err := os.MkdirTemp("", "unreadable")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	os.MkdirAll(filepath.Join(root, "locked"), 0o755)
	os.WriteFile(filepath.Join(root, "locked", "id_rsa"), []byte("KEY"), 0o600)
	os.Chmod(filepath.Join(root, "locked"), 0o311) // enter, not list
	defer os.Chmod(filepath.Join(root, "locked"), 0o755)
	ws, err := Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	sb, err := sandboxOf(ws, Read, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(sb.Deny, filepath.Join(root, "locked")) {
		t.Errorf("Deny %v: the unreadable directory is not hidden", sb.Deny)
	}
}

// TestSandboxLock: a command that writes holds the workspace alone, from
// its preparation to its end; commands that only read share it; a wait
// ends with its context.
func TestSandboxLock(t *testing.T) {
	root := t.TempDir()
	ws, err := Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	other, err := Open(root, nil) // another Workspace on the tree: the file lock
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	r1, err := ws.Prepare(ctx, Read, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := other.Prepare(ctx, Read, nil) // readers share
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []*Workspace{ws, other} {
		short, cancel := context.WithTimeout(ctx, 50_000_000)
		if _, err := w.Prepare(short, Write, nil); err == nil {
			t.Fatal("a writer was prepared while readers held the workspace")
		}
		cancel()
	}
	got := make(chan *Prepared)
	go func() {
		p, err := other.Prepare(ctx, Write, nil)
		if err != nil {
			t.Error(err)
		}
		got <- p
	}()
	r1.Done()
	r2.Done()
	r2.Done() // twice: nothing more
	wr := <-got
	short, cancel := context.WithTimeout(ctx, 50_000_000)
	defer cancel()
	if _, err := ws.Prepare(short, Read, nil); err == nil {
		t.Fatal("a reader was prepared while a writer held the workspace")
	}
	wr.Done()
	r3, err := ws.Prepare(ctx, Read, nil)
	if err != nil {
		t.Fatal(err)
	}
	r3.Done()
}

// asNobody runs the test named again as an ordinary user (nobody), from a
// copy of the test binary that user may run; it needs setpriv.
func asNobody(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("no setpriv to run as an ordinary user")
	}
	dir, err := os.MkdirTemp("", "asnobody")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "workspace.test")
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", bin, "-test.run=^"+name+"$", "-test.v")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TMPDIR=/tmp", "HOME=/tmp"}
	out, err := cmd.CombinedOutput()
	t.Logf("as nobody:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("as nobody: %v", err)
	}
}
