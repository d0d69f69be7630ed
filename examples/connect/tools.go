package main

import (
	"context"
	"sort"
	"strings"

	"github.com/toolbelt-go/tool"
)

// SearchArgs are the arguments of search; lang and limit are optional, so
// a strict model sends null for them when it does not use them.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"description=Text to look for,minLength=1"`
	Lang  string `json:"lang,omitempty" jsonschema:"description=Only files of this language,enum=go,enum=md"`
	Limit int    `json:"limit,omitempty" jsonschema:"description=Most hits to return,minimum=1,maximum=50,default=5"`
}

// Hit is one search result.
type Hit struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// ReadArgs are the arguments of read_file.
type ReadArgs struct {
	Path string `json:"path" jsonschema:"description=File path inside the project"`
}

// files is the tiny project the tools look at.
var files = map[string]string{
	"main.go":   "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
	"README.md": "# demo\n\nRun it with go run .\n",
}

func search(_ context.Context, in SearchArgs) ([]Hit, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	hits := []Hit{}
	for _, name := range names {
		if in.Lang != "" && !strings.HasSuffix(name, "."+in.Lang) {
			continue
		}
		for i, line := range strings.Split(files[name], "\n") {
			if strings.Contains(line, in.Query) && len(hits) < in.Limit {
				hits = append(hits, Hit{File: name, Line: i + 1, Text: strings.TrimSpace(line)})
			}
		}
	}
	return hits, nil
}

func readFile(_ context.Context, in ReadArgs) (string, error) {
	body, ok := files[in.Path]
	if !ok {
		return "", &tool.Error{Message: "no file named " + in.Path, Hint: "call search to find files"}
	}
	return body, nil
}

// newTools returns the tools the model is offered.
func newTools() []tool.Definer {
	return []tool.Definer{
		tool.New(tool.Definition{Name: "search", Description: "Search the project's files for a text.", Safety: tool.SafetyReadOnly}, search),
		tool.New(tool.Definition{Name: "read_file", Description: "Read one file of the project.", Safety: tool.SafetyReadOnly}, readFile),
	}
}
