package toolmcp

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// conformanceRequired are the scenarios the pinned suite must pass: every
// tools-* scenario, and these.
var conformanceRequired = []string{
	"server-initialize", "ping", "json-schema-2020-12",
	"tools-call-elicitation", "elicitation-sep1034-defaults", "elicitation-sep1330-enums",
}

// TestConformance runs the official MCP conformance suite at the release
// pinned as @modelcontextprotocol/conformance (server mode, every active
// scenario, all of them on protocol versions up to 2025-11-25, in
// sessions) against the conformance server (conformance_server_test.go)
// served by NewHTTPHandler. Scenarios listed in
// testdata/conformance-expected-failures.yml may fail (each line says
// why); the suite fails the run if any other fails, or if a listed one
// passes.
func TestConformance(t *testing.T) {
	passed, _ := runConformance(t, "@modelcontextprotocol/conformance", "testdata/conformance-expected-failures.yml",
		"--suite", "all")
	for _, s := range conformanceRequired {
		if !slices.Contains(passed, s) {
			t.Errorf("required scenario %s did not pass", s)
		}
	}
}

// TestConformance2026 runs the newest published release of the suite
// (conformance-next in testdata/node) with the requirements of protocol
// 2026-07-28: stateless, every request on its own (SEP-2575), input
// requests answered in retried calls (SEP-2322), against the same server
// and handler. testdata/conformance-2026-expected-failures.yml lists what
// may fail, with the reasons: the tasks extension, which the Go SDK does
// not implement.
func TestConformance2026(t *testing.T) {
	passed, _ := runConformance(t, "@modelcontextprotocol/conformance-next", "testdata/conformance-2026-expected-failures.yml",
		"--requirements", "2026-07-28")
	for _, s := range []string{"server-stateless", "input-required-result-tampered-state", "input-required-result-non-tool-request",
		// The tasks extension (SEP-2663), served by AddTools with Options.Tasks.
		"tasks-lifecycle", "tasks-capability-negotiation", "tasks-wire-fields", "tasks-request-state-removal", "tasks-mrtr-input",
		"tasks-request-headers", "tasks-dispatch-and-envelope", "tasks-required-task-error", "tasks-mrtr-composition"} {
		if !slices.Contains(passed, s) {
			t.Errorf("required scenario %s did not pass", s)
		}
	}
}

// runConformance runs the suite of the npm package pkg in server mode with
// args against the conformance server behind NewHTTPHandler, and returns
// the scenarios that passed and failed. It fails the test when the suite
// does (a failure not in expected, or a listed one that passed), or when
// a tools-* scenario fails.
func runConformance(t *testing.T, pkg, expected string, args ...string) (passed, failed []string) {
	t.Helper()
	nodeBin := node(t)
	server, _, err := newConformanceServer()
	if err != nil {
		t.Fatal(err)
	}
	// An event store makes streams resumable (SEP-1699), which
	// server-sse-polling checks.
	hs := httptest.NewServer(NewHTTPHandler(server, &HTTPOptions{Streamable: &sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)}}))
	defer func() {
		// The suite leaves its HTTP sessions open; end them.
		for ss := range server.Sessions() {
			_ = ss.Close()
		}
		hs.Close()
	}()

	results := t.TempDir()
	if d := os.Getenv("CONFORMANCE_RESULTS"); d != "" {
		results = filepath.Join(d, t.Name())
	}
	expected, err = filepath.Abs(expected)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, append([]string{nodeModule(t, pkg+"/dist/index.js"),
		"server", "--url", hs.URL + "/mcp", "--expected-failures", expected, "-o", results}, args...)...)
	cmd.Dir = t.TempDir()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()

	t.Logf("suite output:\n%s", out.String())
	passed, failed, empty := conformanceResults(out.String())
	total := len(passed) + len(failed) + len(empty)
	t.Logf("conformance (%s %s): %d/%d scenarios passed; failed: %v; ran no check: %v", pkg, strings.Join(args, " "), len(passed), total, failed, empty)
	if runErr != nil {
		t.Fatalf("the conformance suite failed: %v", runErr)
	}
	if total == 0 {
		t.Fatal("the suite ran no scenario")
	}
	for _, f := range failed {
		if strings.HasPrefix(f, "tools-") {
			t.Errorf("required scenario %s failed", f)
		}
	}
	return passed, failed
}

// summaryLine is one scenario in the suite's summary:
// "✓ tools-list: 1 passed, 0 failed" (✗ when a check failed).
var summaryLine = regexp.MustCompile(`(?m)^\s*([✓✗]) (\S+): (\d+) passed, (\d+) failed`)

// conformanceResults reads the suite's summary. A scenario passed when
// one of its checks succeeded and none failed (one with only warnings, the
// suite counts as failed too); empty ones ran no check.
func conformanceResults(output string) (passed, failed, empty []string) {
	for _, m := range summaryLine.FindAllStringSubmatch(output, -1) {
		switch {
		case m[4] != "0":
			failed = append(failed, m[2])
		case m[3] != "0":
			passed = append(passed, m[2])
		default:
			empty = append(empty, m[2])
		}
	}
	sort.Strings(failed)
	return passed, failed, empty
}
