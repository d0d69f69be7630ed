package workspace

import (
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
