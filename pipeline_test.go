package tool_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestMiddlewareOrder(t *testing.T) {
	var order []string
	mw := func(name string) tool.Middleware[struct{}] {
		return func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
			return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
				_, validated := c.Value()
				order = append(order, name+":in:"+map[bool]string{true: "validated", false: "raw"}[validated])
				res := next(ctx, c)
				order = append(order, name+":out")
				return res
			}
		}
	}
	r := newRegistry(t, newSearch())
	r.Use(mw("a"), mw("b"))
	r.Use(mw("c"))
	require.Equal(t, tool.StatusOK, call(r, "search", `{"query":"x"}`).Status)
	assert.Equal(t, []string{"a:in:validated", "b:in:validated", "c:in:validated", "c:out", "b:out", "a:out"}, order)

	order = nil
	assert.Equal(t, tool.StatusInvalid, call(r, "search", `{}`).Status)
	assert.Empty(t, order, "middlewares never see invalid arguments")
}

type stateArgs struct {
	Name string `json:"name"`
}

// goFileName is a root file named in a comment or a page.
var goFileName = regexp.MustCompile(`\b[a-z][a-z0-9_]*\.go\b`)

// TestTheStageListNamesFilesThatExist checks that the files pipeline.go
// and docs/design.md name for the stages are there: a stage's code that
// moves takes its name in the list with it.
func TestTheStageListNamesFilesThatExist(t *testing.T) {
	for _, page := range []string{"pipeline.go", "docs/design.md", "docs/pipeline.md", "docs/seed-concepts.md"} {
		src, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, name := range goFileName.FindAllString(string(src), -1) {
			if name == "audit.go" {
				continue // design.md's example of adding a stage
			}
			if _, err := os.Stat(name); err != nil {
				// A file of a nested module or a folder is named with its path.
				if matches, _ := filepath.Glob(filepath.Join("*", name)); len(matches) > 0 {
					continue
				}
				t.Errorf("%s names %s, which is not a file of the root package", page, name)
			}
		}
	}
}

// TestTheDesignCardsFiles checks that the two files the design card names
// beside the stages hold what it puts in them: context.go what a tool reads
// from its context (its call, its progress, its page) and the context
// itself; pagination.go the paginated tools and their cursors.
func TestTheDesignCardsFiles(t *testing.T) {
	declaredIn := map[string]string{}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		if file.Name.Name != "tool" {
			continue
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declaredIn[d.Name.Name] = f
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						declaredIn[ts.Name.Name] = f
					}
				}
			}
		}
	}
	for file, names := range map[string][]string{
		"context.go":    {"CallInfo", "CallInfoFrom", "ReportProgress", "ReportPartial", "callScope", "callCtx"},
		"pagination.go": {"PageArgs", "Page", "Paged", "NewPaginated", "NewPaginatedFor", "pageScope", "checkCursor"},
	} {
		for _, name := range names {
			assert.Equal(t, file, declaredIn[name], "where %s is declared", name)
		}
	}
	stages, err := os.ReadFile("pipeline.go")
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(stages), "(preflight.go, pagination.go)"), "the preflight stage's line in pipeline.go names pagination.go")
	assert.True(t, strings.Contains(string(stages), "(deadline.go, context.go)"), "the deadline stage's line in pipeline.go names context.go")
}
