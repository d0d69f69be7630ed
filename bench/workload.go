package bench

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/toolbelt-go/tool"
)

// The workload is the search tool of the root module's bench_test.go, copied
// field for field (a test compares the two), since a _test.go file cannot be
// imported.

// searchArgs is a realistic search tool's input: six fields with pattern,
// enum and minimum/maximum constraints.
type searchArgs struct {
	Query         string `json:"query" jsonschema:"minLength=1,maxLength=200,description=Text to search for"`
	Path          string `json:"path,omitempty" jsonschema:"pattern=^[a-zA-Z0-9_./-]*$,description=Directory to search"`
	Lang          string `json:"lang,omitempty" jsonschema:"enum=go,enum=rust,enum=python,enum=typescript"`
	Limit         int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=500"`
	Offset        int    `json:"offset,omitempty" jsonschema:"minimum=0"`
	CaseSensitive bool   `json:"case_sensitive,omitempty"`
}

type searchHit struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

type searchOut struct {
	Hits  []searchHit `json:"hits"`
	Total int         `json:"total"`
}

func search(_ context.Context, in searchArgs) (searchOut, error) {
	return searchOut{Hits: []searchHit{{File: in.Path + "/main.go", Line: in.Limit}}, Total: 1}, nil
}

const (
	toolName = "search"
	toolDesc = "Search the code base."
)

var (
	// ValidArgs are the arguments of the valid call.
	ValidArgs = []byte(`{"query":"func NewRegistry","path":"internal/registry","lang":"go","limit":50,"offset":0,"case_sensitive":true}`)
	// InvalidArgs break two constraints (lang is not in the enum, limit is
	// above its maximum) but are well-typed, so a decoder alone accepts them.
	InvalidArgs = []byte(`{"query":"func NewRegistry","path":"internal/registry","lang":"golang","limit":5000,"offset":0,"case_sensitive":true}`)
	// wantText is what every framework must send back for ValidArgs.
	wantText = `{"hits":[{"file":"internal/registry/main.go","line":50}],"total":1}`
)

// inputSchema is the input schema Toolbelt generates for searchArgs. Every
// peer that takes a schema is given these bytes, so all of them check the
// same constraints: most peers read fewer of the struct tags (see the
// package documentation).
var inputSchema = sync.OnceValue(func() json.RawMessage {
	return tool.New(tool.Definition{Name: toolName, Description: toolDesc}, search).Definition().InputSchema
})
