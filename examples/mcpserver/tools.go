package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolbelt-go/tool"
)

// The quickstart's tools (examples/quickstart is in the root module and
// cannot be imported), over a project that write_file can change.

// SearchArgs are the arguments of the search tool.
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

// Hits is search's result: a struct, so that clients get an outputSchema
// and structuredContent.
type Hits struct {
	Hits []Hit `json:"hits"`
}

// ReadArgs are the arguments of read_file.
type ReadArgs struct {
	Path string `json:"path" jsonschema:"description=File path inside the project"`
}

// WriteArgs are the arguments of write_file.
type WriteArgs struct {
	Path    string `json:"path" jsonschema:"description=File path inside the project,minLength=1,pattern=^[A-Za-z0-9_./-]+$"`
	Content string `json:"content" jsonschema:"description=The whole new content of the file"`
}

// CountArgs are the arguments of count_slowly.
type CountArgs struct {
	To      int `json:"to" jsonschema:"description=Count from 1 to this,minimum=1,maximum=600"`
	DelayMS int `json:"delay_ms,omitempty" jsonschema:"description=Milliseconds between steps,minimum=0,maximum=10000,default=200"`
}

// project is the tiny project the tools look at. write_file changes it,
// in memory only.
type project struct {
	mu    sync.Mutex
	files map[string]string
}

func newProject() *project {
	return &project{files: map[string]string{
		"main.go":   "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
		"README.md": "# demo\n\nRun it with go run .\n",
	}}
}

func (p *project) search(_ context.Context, in SearchArgs) (Hits, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var hits []Hit // nil when nothing matches: the outputSchema allows the null
	names := make([]string, 0, len(p.files))
	for n := range p.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if in.Lang != "" && !strings.HasSuffix(name, "."+in.Lang) {
			continue
		}
		for i, line := range strings.Split(p.files[name], "\n") {
			if strings.Contains(line, in.Query) && len(hits) < in.Limit {
				hits = append(hits, Hit{File: name, Line: i + 1, Text: strings.TrimSpace(line)})
			}
		}
	}
	return Hits{Hits: hits}, nil
}

func (p *project) readFile(_ context.Context, in ReadArgs) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	body, ok := p.files[in.Path]
	if !ok {
		return "", &tool.Error{Message: "no file named " + in.Path, Hint: "call search to find files; paths are relative to the project root"}
	}
	return body, nil
}

func (p *project) writeFile(_ context.Context, in WriteArgs) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[in.Path] = in.Content
	return fmt.Sprintf("wrote %d bytes to %s", len(in.Content), in.Path), nil
}

// describeWrite shows the approver the edit as a diff.
func (p *project) describeWrite(_ context.Context, in WriteArgs) (tool.Preview, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.files[in.Path]
	return tool.Preview{
		Title:     "Write " + in.Path,
		Summary:   fmt.Sprintf("replace %d bytes with %d", len(old), len(in.Content)),
		Edits:     []tool.Edit{{Path: in.Path, Old: old, New: in.Content}},
		Locations: []string{in.Path},
	}, nil
}

// countSlowly counts, reporting each step as progress, until it is done
// or its context ends; it logs to stderr (which MCP leaves to the server)
// when it is stopped, so that a client can see that cancelling reached it.
func countSlowly(ctx context.Context, in CountArgs) (string, error) {
	delay := time.Duration(in.DelayMS) * time.Millisecond
	for i := 1; i <= in.To; i++ {
		select {
		case <-ctx.Done():
			fmt.Fprintf(os.Stderr, "count_slowly: stopped at %d: %v\n", i-1, context.Cause(ctx))
			return "", ctx.Err()
		case <-time.After(delay):
		}
		tool.ReportProgress(ctx, tool.Progress{Message: fmt.Sprintf("counted to %d", i), Done: float64(i), Total: float64(in.To)})
	}
	return fmt.Sprintf("counted to %d", in.To), nil
}

// newTools returns the tools the server offers.
func newTools(p *project) []tool.Definer {
	return []tool.Definer{
		tool.New(tool.Definition{Name: "search", Description: "Search the project's files for a text.", Safety: tool.SafetyReadOnly}, p.search),
		tool.New(tool.Definition{Name: "read_file", Description: "Read one file of the project.", Safety: tool.SafetyReadOnly}, p.readFile),
		tool.WithApprovalHooks(
			tool.New(tool.Definition{Name: "write_file", Title: "Write a file", Description: "Replace a file of the project (the user is asked first).",
				Safety: tool.SafetyMutating, Idempotent: true}, p.writeFile),
			tool.ApprovalHooks[WriteArgs]{Describe: p.describeWrite}),
		tool.New(tool.Definition{Name: "count_slowly", Description: "Count slowly, reporting progress; for trying progress and cancellation.",
			Safety: tool.SafetyReadOnly, Timeout: 15 * time.Minute}, countSlowly),
	}
}
