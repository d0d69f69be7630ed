package docs

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the Go blocks of the Markdown files from their sources")

// root is the repository root, from this package's directory.
const root = "../.."

// marker is the comment that names a block's source.
var marker = regexp.MustCompile(`^<!-- go: ([^#\s]+)(?:#([A-Za-z_][A-Za-z0-9_]*)(\{\})?)? -->$`)

func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md")}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

func TestGoBlocksAreCopiesOfCompiledCode(t *testing.T) {
	for _, path := range markdownFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, problems := rewrite(string(src), root)
			for _, p := range problems {
				t.Errorf("%s:%s", path, p)
			}
			if got == string(src) {
				return
			}
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			t.Errorf("%s: a Go block differs from its source; run go test ./internal/docs -update to copy the sources in", path)
		})
	}
}

// rewrite returns the Markdown with every Go block replaced by its
// source, and what is wrong with blocks that have none.
func rewrite(md, base string) (string, []string) {
	lines := strings.SplitAfter(md, "\n")
	var out strings.Builder
	var problems []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		out.WriteString(line)
		if strings.TrimSpace(line) != "```go" {
			continue
		}
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		var m []string
		if i > 0 {
			m = marker.FindStringSubmatch(strings.TrimSpace(lines[i-1]))
		}
		if m == nil {
			problems = append(problems, fmt.Sprintf("%d: a Go block without a source: put <!-- go: path#Name --> on the line before it, naming compiled code", i+1))
			continue
		}
		code, err := extract(base, m[1], m[2], m[3] != "")
		if err != nil {
			problems = append(problems, fmt.Sprintf("%d: %v", i+1, err))
			for _, l := range lines[i+1 : end] {
				out.WriteString(l)
			}
		} else {
			out.WriteString(code)
		}
		i = end - 1
	}
	return out.String(), problems
}

// extract returns the source text a marker names, ending in a newline.
func extract(base, file, name string, body bool) (string, error) {
	src, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(file)))
	if err != nil {
		return "", err
	}
	if name == "" {
		return string(src), nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		if !declares(d, name) {
			continue
		}
		start, end := d.Pos(), d.End()
		if body {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				return "", fmt.Errorf("%s#%s{}: not a function with a body", file, name)
			}
			start, end = fn.Body.Lbrace+1, fn.Body.Rbrace
		}
		text := string(src[fset.Position(start).Offset:fset.Position(end).Offset])
		if body {
			text = dedent(strings.Trim(text, "\n"))
		}
		return text + "\n", nil
	}
	return "", fmt.Errorf("%s has no declaration %s", file, name)
}

func declares(d ast.Decl, name string) bool {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Recv == nil && d.Name.Name == name
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.Name == name {
					return true
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.Name == name {
						return true
					}
				}
			}
		}
	}
	return false
}

// dedent removes one tab from the start of every line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}

func TestRewrite(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\n// Doc.\nfunc F() {\n\tx := 1\n\t_ = x\n}\n\ntype T struct{ A int }\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rel := "p.go"
	tests := []struct {
		name, md, want string
		problems       int
	}{
		{"a declaration", "<!-- go: " + rel + "#T -->\n```go\nold\n```\n", "<!-- go: " + rel + "#T -->\n```go\ntype T struct{ A int }\n```\n", 0},
		{"a body", "<!-- go: " + rel + "#F{} -->\n```go\n```\n", "<!-- go: " + rel + "#F{} -->\n```go\nx := 1\n_ = x\n```\n", 0},
		{"a whole file", "<!-- go: " + rel + " -->\n```go\n```\n", "<!-- go: " + rel + " -->\n```go\n" + src + "```\n", 0},
		{"no source", "text\n```go\nfmt.Println()\n```\n", "text\n```go\nfmt.Println()\n```\n", 1},
		{"a name that is not there", "<!-- go: " + rel + "#Nope -->\n```go\nkept\n```\n", "<!-- go: " + rel + "#Nope -->\n```go\nkept\n```\n", 1},
		{"other blocks are left alone", "```sh\ngo test\n```\n", "```sh\ngo test\n```\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := rewrite(tt.md, dir)
			if got != tt.want || len(problems) != tt.problems {
				t.Errorf("rewrite:\n%s\nwant:\n%s\nproblems %q", got, tt.want, problems)
			}
		})
	}
}

// TestDocCommentsSayWhatNotWhere checks that no doc comment go doc shows
// (a package's, an exported name's, an exported field's or method's) names
// a source file: a reader of the documentation has the API, not the tree,
// and a file's name goes stale when its code moves. Example programs
// (package main) and internal packages, read as source, may. A quoted
// value ("Edit main.go") is an example, and a path (pkg/config/config.go)
// names a file of another project, not a reference to this one's.
func TestDocCommentsSayWhatNotWhere(t *testing.T) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "node_modules" || name == "testdata" || name == "internal" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fileName := regexp.MustCompile(`(?:^|[^/\w.])([A-Za-z0-9_]+\.go)(?:$|[^\w.]|\.$|\.[^\w])`)
	quoted := regexp.MustCompile(`"[^"\n]*"`)
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name == "main" {
			continue
		}
		check := func(doc *ast.CommentGroup, what string) {
			if doc == nil {
				return
			}
			for _, m := range fileName.FindAllStringSubmatch(quoted.ReplaceAllString(doc.Text(), `""`), -1) {
				t.Errorf("%s: the doc of %s names the file %s: say what, not where", fset.Position(doc.Pos()), what, m[1])
			}
		}
		exported := func(names []*ast.Ident) bool {
			for _, n := range names {
				if n.IsExported() {
					return true
				}
			}
			return len(names) == 0 // embedded
		}
		check(f.Doc, "package "+f.Name.Name)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() {
					check(d.Doc, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						check(d.Doc, s.Name.Name)
						check(s.Doc, s.Name.Name)
						var fields *ast.FieldList
						switch x := s.Type.(type) {
						case *ast.StructType:
							fields = x.Fields
						case *ast.InterfaceType:
							fields = x.Methods
						}
						if fields != nil {
							for _, fl := range fields.List {
								if exported(fl.Names) {
									check(fl.Doc, s.Name.Name+"'s fields and methods")
									check(fl.Comment, s.Name.Name+"'s fields and methods")
								}
							}
						}
					case *ast.ValueSpec:
						if exported(s.Names) {
							check(d.Doc, s.Names[0].Name)
							check(s.Doc, s.Names[0].Name)
							check(s.Comment, s.Names[0].Name)
						}
					}
				}
			}
		}
	}
}
