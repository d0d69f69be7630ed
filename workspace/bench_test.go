package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile compares a read through the workspace (lexical checks,
// the deny list, one Lstat per name to follow links, open without
// blocking, fstat) with os.ReadFile of the same file, the floor.
func BenchmarkReadFile(b *testing.B) {
	tr := plant(b, nil)
	b.Run("workspace", func(b *testing.B) {
		for b.Loop() {
			if _, err := tr.ws.ReadFile("sub/deep.txt"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		p := filepath.Join(tr.root, "sub", "deep.txt")
		for b.Loop() {
			if _, err := os.ReadFile(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWriteFile compares an atomic write through the workspace with
// the same steps done by hand (temporary file, fsync, rename), the floor.
func BenchmarkWriteFile(b *testing.B) {
	tr := plant(b, nil)
	data := []byte("package main\n")
	b.Run("workspace", func(b *testing.B) {
		for b.Loop() {
			if err := tr.ws.WriteFile("sub/out.go", data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("temp+fsync+rename", func(b *testing.B) {
		dst := filepath.Join(tr.root, "sub", "out2.go")
		for b.Loop() {
			f, err := os.CreateTemp(filepath.Dir(dst), ".out")
			if err != nil {
				b.Fatal(err)
			}
			f.Write(data)
			f.Sync()
			f.Close()
			if err := os.Rename(f.Name(), dst); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPrepare measures preparing a command's sandbox in trees of 100,
// 10,000 and 100,000 files (a hundred to a directory, a few protected):
// from the kernel's notifications, with nothing changed and with a file
// made and removed since the last command; and by walking the whole tree,
// as before (the floor it replaces):
//
//	go test -run '^$' -bench Prepare -benchtime 20x ./workspace
func BenchmarkPrepare(b *testing.B) {
	for _, files := range []int{100, 10_000, 100_000} {
		dir := b.TempDir()
		for i := range files {
			d := filepath.Join(dir, fmt.Sprintf("d%03d", i/100/10), fmt.Sprintf("e%02d", i/100%10))
			if i%100 == 0 {
				if err := os.MkdirAll(d, 0o755); err != nil {
					b.Fatal(err)
				}
			}
			name := fmt.Sprintf("f%02d.js", i%100)
			if i%20_000 == 1 {
				name = ".env"
			}
			if err := os.WriteFile(filepath.Join(d, name), []byte("x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		for _, c := range []struct {
			name          string
			walk, changed bool
		}{{"unchanged", false, false}, {"one change", false, true}, {"whole walk", true, false}} {
			b.Run(fmt.Sprintf("%d/%s", files, c.name), func(b *testing.B) {
				ws, err := Open(dir, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ws.Close()
				ws.noWatch = c.walk
				if _, err := sandboxOf(ws, Read, false); err != nil {
					b.Fatal(err)
				}
				i := 0
				for b.Loop() {
					if c.changed {
						f := filepath.Join(dir, "d000", "e00", fmt.Sprintf("new%d", i%2))
						if i++; i%2 == 1 {
							os.WriteFile(f, nil, 0o644)
						} else {
							os.Remove(f)
						}
					}
					if _, err := sandboxOf(ws, Read, false); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
