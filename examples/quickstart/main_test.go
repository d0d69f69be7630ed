package main

import (
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestToolsConform(t *testing.T) {
	tooltest.Conformance(t, tooltest.Suite{ValidArgs: map[string]string{
		"search":    `{"query":"hello"}`,
		"read_file": `{"path":"main.go"}`,
	}}, newTools()...)
}

func TestDefinitionsGolden(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(newTools()...)
	tooltest.GoldenDefinitions(t, reg.Definitions(), "testdata/definitions.golden.json")
}

func TestSearch(t *testing.T) {
	for _, tool := range newTools() {
		if tool.Definition().Name != "search" {
			continue
		}
		res := tooltest.Run(t, tool, `{"query":"println","lang":"go"}`, nil)
		tooltest.WantOK(t, res)
		hits := tooltest.Decode[[]Hit](t, res)
		if len(hits) != 1 || hits[0].File != "main.go" || hits[0].Line != 4 {
			t.Fatalf("hits = %+v", hits)
		}
	}
}

func TestReadFileMissingGivesHint(t *testing.T) {
	res := tooltest.Run(t, newTools()[1], `{"path":"nope.go"}`, nil)
	tooltest.WantStatus(t, res, tool.StatusFailed)
	tooltest.WantTextContains(t, res, "no file named nope.go", "Hint: call search")
}

// FuzzSearch sends the search tool arguments derived from a valid call:
// whatever the fuzzer writes, the call ends with one result and no panic.
func FuzzSearch(f *testing.F) {
	tooltest.Fuzz(f, tool.New(tool.Definition{Name: "search", Description: "Search the project's files for a text."}, search), `{"query":"x"}`)
}
