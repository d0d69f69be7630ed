// Quickstart is an offline agent loop: a scripted "model" makes the tool
// calls a real model makes — good ones, a truncated one, a wrong type, an
// unknown key, an unknown tool — and the program prints what the model
// would be sent back for each. No network, no keys.
package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/toolbelt-go/tool"
)

// SearchArgs are the arguments of the search tool; the schema the model
// sees is generated from these tags.
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
	var hits []Hit
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
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
		return "", &tool.Error{Message: "no file named " + in.Path, Hint: "call search to find files; paths are relative to the project root"}
	}
	return body, nil
}

// script is what the model "says": one tool call per turn.
var script = []tool.Request{
	{ID: "call_1", Name: "search", Args: []byte(`{"query":"println"}`)},
	{ID: "call_2", Name: "read_file", Args: []byte(`{"path":"main.go"}`)},
	{ID: "call_3", Name: "read_file", Args: []byte(`{"path":"src/ma`)},                      // cut off by the token limit
	{ID: "call_4", Name: "search", Args: []byte(`{"query":"hello","limit":"3"}`)},           // a number in quotes
	{ID: "call_5", Name: "search", Args: []byte(`{"query":"hello","language":"go"}`)},       // a key that does not exist
	{ID: "call_6", Name: "grep", Args: []byte(`{"pattern":"hello"}`)},                       // a tool that does not exist
	{ID: "call_7", Name: "read_file", Args: []byte(`{"path":"docs/guide.md"}`)},             // a tool error with a hint
	{ID: "call_8", Name: "search", Args: []byte(`{"query":"hello","lang":"go","limit":2}`)}, // the corrected call
}

// newTools returns the tools the model is offered.
func newTools() []tool.Definer {
	return []tool.Definer{
		tool.New(tool.Definition{Name: "search", Description: "Search the project's files for a text.", Safety: tool.SafetyReadOnly}, search),
		tool.New(tool.Definition{Name: "read_file", Description: "Read one file of the project.", Safety: tool.SafetyReadOnly}, readFile),
	}
}

func main() {
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(newTools()...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	fmt.Println("Tools offered to the model:")
	for _, d := range reg.Definitions() {
		fmt.Printf("  %s: %s\n    %s\n", d.Name, d.Description, d.InputSchema)
	}

	ctx := context.Background()
	for _, req := range script {
		fmt.Printf("\nmodel calls %s(%s)\n", req.Name, req.Args)
		res := reg.Call(ctx, struct{}{}, req)
		fmt.Printf("  host sees: status=%s in %s\n", res.Status, res.Duration.Round(1000))
		fmt.Printf("  model gets (is_error=%v):\n", res.IsError)
		for _, line := range strings.Split(res.Text(), "\n") {
			fmt.Println("    " + line)
		}
	}
}
