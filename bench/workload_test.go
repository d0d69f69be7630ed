package bench

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"testing"
)

// TestWorkloadMatchesRoot checks that the workload here is the one of the
// root module's bench_test.go, which the ratios were measured on:
// the same argument bytes and the same struct fields and tags.
func TestWorkloadMatchesRoot(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../bench_test.go", nil, 0)
	if err != nil {
		t.Fatalf("read the root workload: %v", err)
	}
	vars := map[string]string{}
	types := map[string]*ast.StructType{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if i < len(n.Values) {
					if s, ok := byteLiteral(n.Values[i]); ok {
						vars[name.Name] = s
					}
				}
			}
		case *ast.TypeSpec:
			if st, ok := n.Type.(*ast.StructType); ok {
				types[n.Name.Name] = st
			}
		}
		return true
	})
	for _, tc := range []struct {
		root string
		here []byte
	}{
		{"benchValid", ValidArgs},
		{"benchInvalid", InvalidArgs},
	} {
		got, ok := vars[tc.root]
		if !ok {
			t.Errorf("bench_test.go has no []byte literal %s: update the workload here to match", tc.root)
			continue
		}
		if got != string(tc.here) {
			t.Errorf("%s in bench_test.go is %s, here %s", tc.root, got, tc.here)
		}
	}
	for _, tc := range []struct {
		root string
		here reflect.Type
	}{
		{"benchArgs", reflect.TypeFor[searchArgs]()},
		{"benchHit", reflect.TypeFor[searchHit]()},
		{"benchOut", reflect.TypeFor[searchOut]()},
	} {
		st, ok := types[tc.root]
		if !ok {
			t.Errorf("bench_test.go has no struct %s: update the workload here to match", tc.root)
			continue
		}
		if got, want := structFields(st), reflectFields(tc.here); !reflect.DeepEqual(got, want) {
			t.Errorf("%s fields differ:\nbench_test.go: %q\nhere:          %q", tc.root, got, want)
		}
	}
}

// byteLiteral returns the string inside []byte(`…`).
func byteLiteral(e ast.Expr) (string, bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return "", false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// structFields lists a struct's fields as "name tag", with the types of
// the workload's own structs renamed to their names here.
func structFields(st *ast.StructType) []string {
	var out []string
	for _, f := range st.Fields.List {
		tag := ""
		if f.Tag != nil {
			tag, _ = strconv.Unquote(f.Tag.Value)
		}
		for _, n := range f.Names {
			out = append(out, n.Name+" "+tag)
		}
	}
	return out
}

func reflectFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		out = append(out, f.Name+" "+string(f.Tag))
	}
	return out
}
