package main

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
	toolanthropic "github.com/toolbelt-go/tool/toolanthropic"
	toolgemini "github.com/toolbelt-go/tool/toolgemini"
	toolopenai "github.com/toolbelt-go/tool/toolopenai"
	"github.com/toolbelt-go/tool/tooltest"
)

func offline(string) string { return "" }

// Each provider's loop runs to the end against its fake API, and the
// answer quotes the tools' results: the calls went out, the results came
// back.
func TestRunOffline(t *testing.T) {
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(context.Background(), &out, p, "Where is println called?", offline); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			for _, want := range []string{"== " + p + " (offline", `"file":"main.go","line":4`, `package main\n\nfunc main()`} {
				if !strings.Contains(got, want) {
					t.Errorf("output lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

func TestUnknownProvider(t *testing.T) {
	err := run(context.Background(), &bytes.Buffer{}, "mistral", "q", offline)
	if err == nil || !strings.Contains(err.Error(), "use openai, anthropic, gemini or all") {
		t.Fatalf("err = %v", err)
	}
}

func TestDefinitionsGolden(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(newTools()...)
	tooltest.GoldenDefinitions(t, reg.Definitions(), "testdata/definitions.golden.json")
}

func TestToolsConform(t *testing.T) {
	tooltest.Conformance(t, tooltest.Suite{ValidArgs: map[string]string{
		"search":    `{"query":"hello"}`,
		"read_file": `{"path":"main.go"}`,
	}}, newTools()...)
}

// What each adapter sends passes the rule checker of its target, and
// nothing falls back: these tools are strict-clean.
func TestExportedSchemasFollowTheRules(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(newTools()...)
	check := func(target dialect.Target, name string, v any) {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, violation := range dialect.Check(b, target) {
			t.Errorf("%s, %v: %v", name, target, violation)
		}
	}
	oa := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	for _, tl := range oa.ChatTools() {
		fn := tl.OfFunction.Function
		if !fn.Strict.Value {
			t.Errorf("%s is not strict", fn.Name)
		}
		check(dialect.OpenAIStrict, fn.Name, fn.Parameters)
	}
	for _, tl := range toolanthropic.New(reg, nil).Tools() {
		check(dialect.Anthropic, tl.OfTool.Name, tl.OfTool.InputSchema)
	}
	for _, d := range toolgemini.New(reg, nil).Tools()[0].FunctionDeclarations {
		if d.Parameters == nil {
			t.Errorf("%s: sent as parametersJsonSchema", d.Name)
			continue
		}
		check(dialect.Gemini, d.Name, d.Parameters)
	}
	for _, w := range oa.Warnings() {
		if w.Action == dialect.Fallback {
			t.Errorf("unexpected fallback: %v", w)
		}
	}
}

// The agent loop a program writes stays under 30 lines per provider.
func TestLoopsAreShort(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "loops.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || !strings.HasPrefix(fn.Name.Name, "ask") {
			continue
		}
		found++
		lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		t.Logf("%s: %d lines", fn.Name.Name, lines)
		if lines >= 30 {
			t.Errorf("%s is %d lines long; the loop must stay under 30", fn.Name.Name, lines)
		}
	}
	if found != 3 {
		t.Fatalf("found %d ask functions, want 3", found)
	}
}
