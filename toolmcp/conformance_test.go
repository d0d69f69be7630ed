package toolmcp

import (
	"bytes"
	"context"
	"net/http"
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

// conformanceRequired are the scenarios the issue requires to pass: every
// tools-* scenario, and these.
var conformanceRequired = []string{
	"server-initialize", "ping", "json-schema-2020-12",
	"tools-call-elicitation", "elicitation-sep1034-defaults", "elicitation-sep1330-enums",
}

// TestConformance runs the official MCP conformance suite (npm
// @modelcontextprotocol/conformance, server mode, every active scenario)
// against a streamable HTTP server whose tools are a Toolbelt Registry
// served by AddTools. Scenarios listed in
// testdata/conformance-expected-failures.yml may fail (each line says why);
// the suite fails the run if any other fails, or if a listed one passes.
func TestConformance(t *testing.T) {
	nodeBin := node(t)
	server, _, err := newConformanceServer()
	if err != nil {
		t.Fatal(err)
	}
	// An event store makes streams resumable (SEP-1699), which
	// server-sse-polling checks.
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
		&sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)}))
	defer func() {
		hs.Close()
		// The suite leaves its HTTP sessions open; end them.
		for ss := range server.Sessions() {
			_ = ss.Close()
		}
	}()

	results := t.TempDir()
	if d := os.Getenv("CONFORMANCE_RESULTS"); d != "" {
		results = d
	}
	expected, err := filepath.Abs("testdata/conformance-expected-failures.yml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, nodeModule(t, "@modelcontextprotocol/conformance/dist/index.js"),
		"server", "--url", hs.URL+"/mcp", "--suite", "all", "--expected-failures", expected, "-o", results)
	cmd.Dir = results
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()

	t.Logf("suite output:\n%s", out.String())
	passed, failed := conformanceResults(out.String())
	total := len(passed) + len(failed)
	t.Logf("conformance: %d/%d scenarios passed; failed: %v", len(passed), total, failed)
	if runErr != nil {
		t.Fatalf("the conformance suite failed: %v", runErr)
	}
	if total == 0 {
		t.Fatal("the suite ran no scenario")
	}
	for _, s := range conformanceRequired {
		if !slices.Contains(passed, s) {
			t.Errorf("required scenario %s did not pass", s)
		}
	}
	for _, f := range failed {
		if strings.HasPrefix(f, "tools-") {
			t.Errorf("required scenario %s failed", f)
		}
	}
}

// summaryLine is one scenario in the suite's summary:
// "✓ tools-list: 1 passed, 0 failed" (✗ when a check failed).
var summaryLine = regexp.MustCompile(`(?m)^\s*([✓✗]) (\S+): (\d+) passed, (\d+) failed`)

// conformanceResults reads the suite's summary. A scenario passed when
// one of its checks succeeded and none failed (one with only warnings, the
// suite counts as failed too).
func conformanceResults(output string) (passed []string, failed []string) {
	for _, m := range summaryLine.FindAllStringSubmatch(output, -1) {
		if m[4] == "0" && m[3] != "0" {
			passed = append(passed, m[2])
		} else {
			failed = append(failed, m[2])
		}
	}
	sort.Strings(failed)
	return passed, failed
}
