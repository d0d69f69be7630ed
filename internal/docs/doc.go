// Package docs holds the test that keeps the repository's Markdown honest:
// every Go block in README.md and docs/*.md is a copy of code that the
// build compiles (a whole file, a declaration, or a function's body), so a
// snippet cannot rot while the code moves on.
//
// A block names its source on the line before it:
//
//	<!-- go: examples/quickstart/main.go -->            the whole file
//	<!-- go: toolmcp/example_test.go#ExampleAddTools -->  one declaration
//	<!-- go: toolmcp/example_test.go#ExampleAddTools{} --> a function's body
//
// Paths are relative to the repository root. Run
//
//	go test ./internal/docs -update
//
// to rewrite the blocks from their sources.
package docs
