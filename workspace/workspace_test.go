package workspace

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// withinBound fails the test if f blocks: a FIFO opened the ordinary way
// would. The bound only catches a hang: 10 s, for a loaded machine.
func withinBound(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

func TestReadFile(t *testing.T) {
	tr := plant(t, nil)
	ok := func(content string) error { return errors.New("ok:" + content) }
	cases := []struct {
		name string
		want error // a sentinel, or ok(content)
	}{
		{"main.go", ok("package main\n")},
		{"./sub/../main.go", ok("package main\n")},
		{"link-file-in", ok("package main\n")},
		{"link-in/deep.txt", ok("deep\n")},
		{"dot/main.go", ok("package main\n")},
		{"sub/up/main.go", ok("package main\n")},
		{filepath.Join(tr.tmp, "app", "main.go"), ok("package main\n")},
		{filepath.Join(tr.scratch, "note.txt"), ok("scratch\n")},
		// .. and absolute paths.
		{"../outside/secret.txt", ErrOutside},
		{"sub/../../outside/secret.txt", ErrOutside},
		{"/etc/passwd", ErrOutside},
		{filepath.Join(tr.tmp, "outside", "secret.txt"), ErrOutside},
		{filepath.Join(tr.tmp, "app", "..", "outside", "secret.txt"), ErrOutside},
		// Sibling prefix: /…/app2 is not inside /…/app.
		{filepath.Join(tr.tmp, "app2", "secret.txt"), ErrOutside},
		{tr.root + "2/secret.txt", ErrOutside},
		// Links that leave the root, absolute links.
		{"link-out/secret.txt", ErrOutside},
		{"link-file-out", ErrOutside},
		{"link-sibling", ErrOutside},
		{"dotdot/outside/secret.txt", ErrOutside},
		{"abs-link", ErrOutside},
		{"abs-out", ErrOutside},
		// The deny list, by name, by case, and through links.
		{".env", ErrDenied},
		{".ENV", ErrDenied},
		{"sub/../.env", ErrDenied},
		{"link-env", ErrDenied},
		{"link-sub-env", ErrDenied},
		{".git/config", ErrDenied},
		{"link-git/config", ErrDenied},
		{"key.pem", ErrDenied},
		// Special files and directories.
		{"fifo", ErrNotRegular},
		{"sock", ErrNotRegular},
		{"sub", ErrNotRegular},
		{".", ErrNotRegular},
		{"loop1", ErrInvalidPath},
		{"main.go/x", ErrNotRegular},
		{"missing.txt", fs.ErrNotExist},
		{"a\x00b", ErrInvalidPath},
		{"", ErrInvalidPath},
	}
	if _, err := os.Lstat(filepath.Join(tr.root, "null")); err == nil {
		cases = append(cases, struct {
			name string
			want error
		}{"null", ErrNotRegular})
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, "/", "|"), func(t *testing.T) {
			var got []byte
			var err error
			withinBound(t, "ReadFile("+c.name+")", func() { got, err = tr.ws.ReadFile(c.name) })
			if content, isOK := strings.CutPrefix(c.want.Error(), "ok:"); isOK {
				if err != nil || string(got) != content {
					t.Fatalf("got %q, %v; want %q", got, err, content)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("got %q, %v; want an error matching %v", got, err, c.want)
			}
			text := modelText(t, err)
			noHostPath(t, tr.tmp, c.name, text)
			if bytes.Contains(got, []byte(outsideMarker)) || bytes.Contains(got, []byte(envMarker)) {
				t.Fatal("a refused read returned protected content")
			}
		})
	}
}

func TestRefusalMessages(t *testing.T) {
	tr := plant(t, nil)
	cases := []struct{ name, want string }{
		{"../../etc/passwd", "path escapes the workspace: \"../../etc/passwd\"\npaths are relative to the workspace root"},
		{"link-out/secret.txt", "path escapes the workspace through a symbolic link: \"link-out/secret.txt\"\nthe link points outside"},
		{"abs-link", "path escapes the workspace through a symbolic link: \"abs-link\"\nthe link is absolute"},
		{".env", "path is protected: \".env\" is on the workspace's deny list"},
		{"fifo", "\"fifo\" is a named pipe (FIFO), not a regular file"},
		{"sock", "\"sock\" is a socket, not a regular file"},
		{"missing.txt", "no such file or directory: \"missing.txt\"\ncheck the path"},
	}
	for _, c := range cases {
		_, err := tr.ws.ReadFile(c.name)
		if text := modelText(t, err); !strings.Contains(text, c.want) {
			t.Errorf("ReadFile(%q): the model reads\n%s\nwant it to start with\n%s", c.name, text, c.want)
		}
	}
	var pe *PathError
	_, err := tr.ws.ReadFile("link-out/secret.txt")
	if !errors.As(err, &pe) || pe.Op != "read" || pe.Path != "link-out/secret.txt" {
		t.Fatalf("the host's cause is not a PathError with the operation and path: %#v", err)
	}
}

func TestReadFileSizeLimit(t *testing.T) {
	tr := plant(t, &Options{MaxReadBytes: 20})
	if err := os.WriteFile(filepath.Join(tr.root, "big.txt"), bytes.Repeat([]byte("x"), 21), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := tr.ws.ReadFile("big.txt")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if text := modelText(t, err); !strings.Contains(text, `"big.txt" is too large: 21 bytes, and the limit is 20 bytes`) {
		t.Fatalf("message: %s", text)
	}
	if b, err := tr.ws.ReadFile("main.go"); err != nil || string(b) != "package main\n" {
		t.Fatalf("a small file: %q, %v", b, err)
	}
}

// TestDevices reads device files from a workspace rooted at /dev, where
// they need no privilege to find: an endless one (zero) and a blocking one
// (tty) must be refused before they are opened.
func TestDevices(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no device files in the file system")
	}
	ws, err := Open("/dev", &Options{Deny: []string{}})
	if err != nil {
		t.Skip(err)
	}
	defer ws.Close()
	for _, name := range []string{"null", "zero", "urandom", "tty", "/dev/zero"} {
		if _, err := os.Stat(filepath.Join("/dev", filepath.Base(name))); err != nil {
			continue
		}
		var err error
		withinBound(t, "reading /dev/"+name, func() { _, err = ws.ReadFile(name) })
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%q) = %v, want ErrNotRegular", name, err)
		}
		if err := ws.WriteFile(name, []byte("x")); !errors.Is(err, ErrNotRegular) {
			t.Errorf("WriteFile(%q) = %v, want ErrNotRegular", name, err)
		}
	}
}

func TestStat(t *testing.T) {
	tr := plant(t, nil)
	fi, err := tr.ws.Stat("link-in")
	if err != nil || !fi.IsDir() || fi.Name() != "link-in" {
		t.Fatalf("Stat(link-in) = %v, %v; want the directory it points to, named link-in", fi, err)
	}
	fi, err = tr.ws.Stat("fifo")
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("Stat(fifo) = %v, %v; looking at a FIFO is allowed", fi, err)
	}
	for name, want := range map[string]error{".env": ErrDenied, "link-out": ErrOutside, "nope": fs.ErrNotExist} {
		if _, err := tr.ws.Stat(name); !errors.Is(err, want) {
			t.Errorf("Stat(%q) = %v, want %v", name, err, want)
		}
	}
}

// TestLookup: the rules of a read, links followed, without opening; a
// path that does not exist yet is no error when its name is allowed.
func TestLookup(t *testing.T) {
	tr := plant(t, nil)
	for name, want := range map[string]error{
		"main.go": nil, "link-in/deep.txt": nil, "new.txt": nil, "sub/new/dir": nil, "fifo": nil,
		tr.root + "/main.go": nil, tr.scratch + "/note.txt": nil,
		".env": ErrDenied, "link-env": ErrDenied, "link-sub-env": ErrDenied, "link-git/config": ErrDenied,
		"sub/.env": ErrDenied, "link-out": ErrOutside, "link-out/secret.txt": ErrOutside, "link-file-out": ErrOutside,
		"../outside/secret.txt": ErrOutside, tr.tmp + "/outside/secret.txt": ErrOutside, "abs-out": ErrOutside,
		"sub/up/../outside": ErrOutside, "loop1": ErrInvalidPath,
	} {
		fi, err := tr.ws.Lookup(name)
		switch {
		case want == nil && err != nil:
			t.Errorf("Lookup(%q) = %v", name, err)
		case want != nil && !errors.Is(err, want):
			t.Errorf("Lookup(%q) = %v, want %v", name, err, want)
		case want == nil && strings.Contains(name, "new") && fi != nil:
			t.Errorf("Lookup(%q) found a file", name)
		}
	}
	if fi, err := tr.ws.Lookup("link-in"); err != nil || !fi.IsDir() {
		t.Errorf("Lookup(link-in) = %v, %v; want the directory", fi, err)
	}
}

func TestReadDir(t *testing.T) {
	tr := plant(t, nil)
	names := func(name string) (string, error) {
		ents, err := tr.ws.ReadDir(name)
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return strings.Join(out, " "), err
	}
	got, err := names(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, hidden := range []string{".env", ".git", "key.pem"} {
		if strings.Contains(" "+got+" ", " "+hidden+" ") {
			t.Errorf("the listing shows the denied %s: %s", hidden, got)
		}
	}
	for _, shown := range []string{"main.go", "sub", "link-in", "link-out", "fifo"} {
		if !strings.Contains(" "+got+" ", " "+shown+" ") {
			t.Errorf("the listing leaves out %s: %s", shown, got)
		}
	}
	if got, err := names("link-in"); err != nil || got != "deep.txt ro ro-link up" {
		t.Errorf("ReadDir(link-in) = %q, %v", got, err)
	}
	for name, want := range map[string]error{
		"link-out": ErrOutside, "dotdot": ErrOutside, "..": ErrOutside, "link-git": ErrDenied, ".git": ErrDenied,
		"main.go": ErrNotRegular, "nope": fs.ErrNotExist,
	} {
		if _, err := names(name); !errors.Is(err, want) {
			t.Errorf("ReadDir(%q) = %v, want %v", name, err, want)
		}
	}
	ents, _ := tr.ws.ReadDir("sub")
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || fi.Name() != e.Name() {
			t.Errorf("Info of %s: %v, %v", e.Name(), fi, err)
		}
	}
}

func TestReadDirLimit(t *testing.T) {
	tr := plant(t, &Options{MaxDirEntries: 3})
	if _, err := tr.ws.ReadDir("."); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if _, err := tr.ws.ReadDir("sub/ro"); err != nil {
		t.Fatal(err)
	}
}

func TestWalkDir(t *testing.T) {
	tr := plant(t, nil)
	var seen []string
	err := tr.ws.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		seen = append(seen, p)
		if p == "sub/ro" {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(seen, " ")
	for _, want := range []string{". ", " main.go ", " sub ", " sub/deep.txt ", " sub/ro ", " link-in ", " link-out "} {
		if !strings.Contains(" "+got+" ", want) {
			t.Errorf("the walk misses %q: %s", want, got)
		}
	}
	for _, not := range []string{".env", ".git", "key.pem", "link-in/", "link-out/", "sub/ro/fixed.txt", "secret"} {
		if strings.Contains(got, not) {
			t.Errorf("the walk shows %q: %s", not, got)
		}
	}
	seen = nil
	if err := tr.ws.WalkDir("link-in", func(p string, d fs.DirEntry, err error) error {
		seen = append(seen, p)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, " "); got != "link-in link-in/deep.txt link-in/ro link-in/ro/fixed.txt link-in/ro-link link-in/up" {
		t.Errorf("walking through a link inside: %s", got)
	}
	if err := tr.ws.WalkDir("link-out", func(string, fs.DirEntry, error) error { return nil }); !errors.Is(err, ErrOutside) {
		t.Errorf("walking a link out: %v", err)
	}
}

func TestWriteFile(t *testing.T) {
	tr := plant(t, nil)
	cases := []struct {
		name string
		want error // nil: written
	}{
		{"new.txt", nil},
		{"newdir/a/b.txt", nil},
		{"main.go", nil},
		{"./sub/../other.txt", nil},
		{filepath.Join(tr.root, "abs.txt"), nil},
		{filepath.Join(tr.scratch, "out.txt"), nil},
		{filepath.Join(tr.scratch, "deeper", "out.txt"), nil},
		// Writes through links, inside or out, as the file or a parent.
		{"link-in/x.txt", ErrSymlink},
		{"link-out/x.txt", ErrSymlink},
		{"link-file-in", ErrSymlink},
		{"link-file-out", ErrSymlink},
		{"dotdot/outside/x.txt", ErrSymlink},
		{"sub/up/x.txt", ErrSymlink},
		{"dot/x.txt", ErrSymlink},
		// Outside.
		{"../outside/x.txt", ErrOutside},
		{filepath.Join(tr.tmp, "app2", "x.txt"), ErrOutside},
		{filepath.Join(tr.tmp, "outside", "secret.txt"), ErrOutside},
		// Denied and read-only.
		{".env", ErrDenied},
		{".git/hooks/pre-commit", ErrDenied},
		{"sub/.env.local", ErrDenied},
		{"sub/ro/fixed.txt", ErrReadOnly},
		{"sub/ro/new.txt", ErrReadOnly},
		{"sub/RO/new.txt", ErrReadOnly},
		// Not files.
		{".", ErrNotRegular},
		{"sub", ErrNotRegular},
		{"fifo", ErrNotRegular},
		{"sock", ErrNotRegular},
		{"main.go/x", ErrNotRegular},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, "/", "|"), func(t *testing.T) {
			data := []byte("written by " + c.name)
			var err error
			withinBound(t, "WriteFile", func() { err = tr.ws.WriteFile(c.name, data) })
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				got, err := tr.ws.ReadFile(c.name)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("read back %q, %v", got, err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			noHostPath(t, tr.tmp, c.name, modelText(t, err))
		})
	}
	// Nothing outside the root and the write root changed.
	for _, p := range []string{"outside/secret.txt", "app2/secret.txt"} {
		b, err := os.ReadFile(filepath.Join(tr.tmp, p))
		if err != nil || string(b) != outsideMarker+"\n" {
			t.Errorf("%s changed: %q, %v", p, b, err)
		}
	}
	for _, p := range []string{"outside/x.txt", "app2/x.txt", "x.txt"} {
		if _, err := os.Lstat(filepath.Join(tr.tmp, p)); err == nil {
			t.Errorf("%s was created outside the workspace", p)
		}
	}
	if fi, err := os.Lstat(filepath.Join(tr.root, "link-file-in")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	tr := plant(t, nil)
	script := filepath.Join(tr.root, "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(script, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := tr.ws.WriteFile("run.sh", []byte("#!/bin/sh\necho hi\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(script)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want 0750 kept", fi.Mode().Perm())
	}
	if err := tr.ws.WriteFile("fresh.txt", nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(tr.root, "fresh.txt")); runtime.GOOS != "windows" && fi.Mode().Perm() != NewFileMode {
		t.Errorf("a new file has mode %v, want %v", fi.Mode().Perm(), NewFileMode)
	}
	ents, _ := os.ReadDir(tr.root)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
	}
}

func TestWriteFileSizeLimit(t *testing.T) {
	tr := plant(t, &Options{MaxWriteBytes: 4})
	if err := tr.ws.WriteFile("a.txt", []byte("12345")); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if _, err := os.Stat(filepath.Join(tr.root, "a.txt")); err == nil {
		t.Fatal("the file was written")
	}
}

func TestCreateFile(t *testing.T) {
	tr := plant(t, nil)
	if err := tr.ws.CreateFile("made.txt", []byte("one")); err != nil {
		t.Fatal(err)
	}
	err := tr.ws.CreateFile("made.txt", []byte("two"))
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("creating an existing file: %v", err)
	}
	if text := modelText(t, err); !strings.Contains(text, `"made.txt" already exists`) {
		t.Fatalf("message: %s", text)
	}
	if b, _ := tr.ws.ReadFile("made.txt"); string(b) != "one" {
		t.Fatalf("the existing file changed: %q", b)
	}
	if err := tr.ws.CreateFile("link-file-in", []byte("x")); !errors.Is(err, ErrSymlink) {
		t.Fatalf("creating over a link: %v", err)
	}
}

// TestWriteIsAtomic reads a file while it is rewritten: every read sees one
// whole version, never a mix or an empty file.
func TestWriteIsAtomic(t *testing.T) {
	tr := plant(t, nil)
	a, b := bytes.Repeat([]byte("a"), 64<<10), bytes.Repeat([]byte("b"), 64<<10)
	if err := tr.ws.WriteFile("f.txt", a); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer wg.Wait()
	defer close(stop)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			data := a
			if i%2 == 1 {
				data = b
			}
			if err := tr.ws.WriteFile("f.txt", data); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 200 {
		got, err := tr.ws.ReadFile("f.txt")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("a read saw a partial write: %d bytes", len(got))
		}
	}
}

func TestCheck(t *testing.T) {
	tr := plant(t, nil)
	for _, c := range []struct {
		name  string
		a     Access
		shown string
		err   error
	}{
		{"./x/../y.go", Read, "y.go", nil},
		{"does/not/exist", Write, "does/not/exist", nil},
		{filepath.Join(tr.root, "a", "b"), Read, "a/b", nil},
		{filepath.Join(tr.scratch, "n.txt"), Write, filepath.Join(tr.scratch, "n.txt"), nil},
		{"sub/ro/x", Read, "sub/ro/x", nil},
		{"sub/ro/x", Write, "", ErrReadOnly},
		{".env", Read, "", ErrDenied},
		{"../x", Read, "", ErrOutside},
	} {
		shown, err := tr.ws.Check(c.name, c.a)
		if shown != c.shown || !errors.Is(err, c.err) {
			t.Errorf("Check(%q, %v) = %q, %v; want %q, %v", c.name, c.a, shown, err, c.shown, c.err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing"), nil); err == nil {
		t.Error("opened a missing directory")
	}
	_, err := Open(dir, &Options{Deny: []string{"[bad"}, ReadOnly: []string{"[worse"}, WriteRoots: []string{"relative"}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"Deny", `"[bad"`, "ReadOnly", "relative"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not mention %s: %v", want, err)
		}
	}
	ws, err := Open(dir, &Options{Deny: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ReadFile(".env"); err != nil {
		t.Errorf("an empty deny list still denies: %v", err)
	}
	if ws.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", ws.Dir(), dir)
	}
	ws.Close()
	if _, err := ws.ReadFile(".env"); err == nil {
		t.Error("read after Close")
	}
}

// nest makes a chain of n directories named a under dir, each opened from
// the one above (a path too long for the system is no obstacle), and
// plants a file in the last.
func nest(t testing.TB, dir, name string, n int) {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := r.Mkdir(name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := r.OpenRoot(name)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		r = next
	}
	if err := r.WriteFile("f.txt", []byte("deep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Close()
}

// A deep tree costs time in proportion to its depth, not its cube: the
// workspace looked at each name of a path from the root again (a read at
// depth n cost n²/2 lookups, and a walk that reads a file in each
// directory, as find and grep read .gitignore files, n³/6: 500 levels took
// 19 s, 1,000 more than 2 minutes). A walk does not list a directory whose
// entries' paths would be longer than a path the tools take.
func TestDeepTree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a tree 2,100 directories deep")
	}
	long := strings.Repeat("n", 200)
	for _, c := range []struct {
		name    string // of each directory
		depth   int
		listed  int    // directories walked into
		refused string // why the deepest listed is not listed, if it is not
	}{
		{name: "a", depth: 200, listed: 201},
		{name: "a", depth: 2100, listed: 257, refused: "256 levels down"},
		{name: long, depth: 30, listed: 22, refused: "longer than 4096 bytes"},
	} {
		dir := t.TempDir()
		nest(t, dir, c.name, c.depth)
		ws, err := Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		start := time.Now()
		dirs, refused := 0, 0
		err = ws.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if !errors.Is(err, ErrInvalidPath) || c.refused == "" || !strings.Contains(err.Error(), c.refused) {
					t.Errorf("depth %d: %.300v", c.depth, err)
				}
				refused++
				return nil
			}
			if d.IsDir() {
				dirs++
				// At the bottom, the name is too long to read: also quick.
				if _, err := ws.ReadFile(path.Join(p, ".gitignore")); !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrInvalidPath) {
					t.Errorf("depth %d: .gitignore in %d: %.200v", c.depth, dirs, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 60*time.Second {
			t.Errorf("depth %d: the walk took %v", c.depth, took)
		}
		if dirs != c.listed || (refused > 0) != (c.refused != "") {
			t.Errorf("depth %d: %d directories, %d refused; want %d, refused %q", c.depth, dirs, refused, c.listed, c.refused)
		}
		if c.depth == 200 {
			deep := strings.Repeat("a/", 200) + "f.txt"
			if b, err := ws.ReadFile(deep); err != nil || string(b) != "deep\n" {
				t.Errorf("read at depth 200: %q, %v", b, err)
			}
			// ".." and links are resolved with the directory reached.
			if err := os.Symlink(strings.Repeat("../", 199), filepath.Join(dir, strings.Repeat("a/", 200), "up")); err != nil {
				t.Fatal(err)
			}
			if b, err := ws.ReadFile(strings.Repeat("a/", 200) + "up/" + strings.Repeat("a/../a/", 199) + "f.txt"); err != nil || string(b) != "deep\n" {
				t.Errorf("read through a link and ..: %q, %v", b, err)
			}
		}
	}
}
