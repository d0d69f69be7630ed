//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadFileHardLinks: a regular file with other names is refused,
// whatever its name here: a hard link to a file outside the workspace, or
// to a protected one, reads as a file the rules allow.
func TestReadFileHardLinks(t *testing.T) {
	tr := plant(t, nil)
	for name, target := range map[string]string{
		"notes.txt":  filepath.Join(tr.tmp, "outside/secret.txt"), // to a file outside
		"config.txt": filepath.Join(tr.root, ".env"),              // to a protected file
		"copy.go":    filepath.Join(tr.root, "main.go"),           // to an ordinary one: refused too
	} {
		if err := os.Link(target, filepath.Join(tr.root, name)); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	for _, name := range []string{"notes.txt", "config.txt", "copy.go", "main.go"} {
		_, err := tr.ws.ReadFile(name)
		if !errors.Is(err, ErrHardLink) {
			t.Errorf("ReadFile(%q) = %v, want ErrHardLink", name, err)
			continue
		}
		text := modelText(t, err)
		noHostPath(t, tr.tmp, name, text)
		if fi, err := tr.ws.Lookup(name); err != nil || HardLinks(fi) != 2 {
			t.Errorf("Lookup(%q) = %v, %v: want the file, with 2 links", name, fi, err)
		}
	}
	if b, err := tr.ws.ReadFile("sub/deep.txt"); err != nil || string(b) != "deep\n" {
		t.Errorf("a file with one name: %q, %v", b, err)
	}
}
