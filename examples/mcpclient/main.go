// Mcpclient puts an MCP server's tools behind a Toolbelt registry: it
// starts the server as a subprocess through the SDK's command transport,
// adds the server's tools to a registry (its preflight, approval,
// deadlines, output caps and events now apply to them), calls them, and
// stops the server and everything it started when it exits.
//
//	go run ./examples/mcpclient                   # a small built-in server (this program, run again)
//	go run ./examples/mcpclient -server "npx -y @modelcontextprotocol/server-everything"
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	toolmcp "github.com/toolbelt-go/tool/toolmcp"
)

// serveEnv makes this program the built-in server instead of the client.
const serveEnv = "TOOLBELT_MCPCLIENT_SERVE"

func main() {
	if os.Getenv(serveEnv) == "1" {
		if err := serve(context.Background()); err != nil {
			log.Fatal(err)
		}
		return
	}
	server := flag.String("server", "", "the MCP server to start, as a command line (default: the built-in server)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := run(ctx, os.Stdout, strings.Fields(*server), os.Environ()); err != nil {
		log.Fatal(err)
	}
}

// run starts the server (argv, or this program as the built-in server),
// calls its tools through a registry, and stops it. It returns the
// server's process ID, for tests to check that it is gone.
func run(ctx context.Context, out io.Writer, argv []string, env []string) (pid int, err error) {
	builtin := len(argv) == 0
	if builtin {
		self, err := os.Executable()
		if err != nil {
			return 0, err
		}
		argv, env = []string{self}, append(env, serveEnv+"=1")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	ownGroup(cmd)

	client := toolmcp.NewClient(&mcp.Implementation{Name: "toolbelt-mcpclient", Version: "v0.1.0"}, nil)
	// Guard reads what the server sends before the SDK does, within bounds:
	// RemoteTools needs it (a server may be hostile).
	cs, err := client.Connect(ctx, toolmcp.Guard(&mcp.CommandTransport{Command: cmd}, nil), nil)
	if err != nil {
		return 0, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	pid = cmd.Process.Pid
	defer func() {
		// Close ends the session: it closes the server's input, then
		// signals it if it does not exit. Then nothing it started survives.
		if cerr := cs.Close(); cerr != nil && !isSignalExit(cerr) {
			err = errors.Join(err, cerr)
		}
		killGroup(pid)
	}()

	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: tool.ObserverFunc(func(e tool.Event) {
		if e.Kind == tool.EventProgress {
			fmt.Fprintf(out, "  progress: %g/%g %s\n", e.Progress.Done, e.Progress.Total, e.Progress.Message)
		}
	})})
	// A remote tool goes through the same approval as a local one. This
	// program runs unattended, so what is not read-only is denied. Only the
	// built-in server is trusted to say which of its tools are read-only.
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.NonInteractive(nil)}))
	added, err := toolmcp.AddRemoteTools(ctx, reg, cs, &toolmcp.RemoteOptions{TrustAnnotations: builtin})
	if err != nil {
		fmt.Fprintf(out, "some tools were left out: %v\n", err)
	}
	fmt.Fprintf(out, "tools of %s: %s\n", cs.InitializeResult().ServerInfo.Name, strings.Join(added, ", "))

	for _, c := range calls(added) {
		fmt.Fprintf(out, "\ncall %s(%s)\n", c.Name, c.Args)
		res := reg.Call(ctx, struct{}{}, c)
		fmt.Fprintf(out, "  status=%s is_error=%v\n", res.Status, res.IsError)
		for _, line := range strings.Split(res.Text(), "\n") {
			fmt.Fprintln(out, "  "+line)
		}
	}
	return pid, nil
}

// calls are the calls to make: for the built-in server a good call, a bad
// one the registry refuses before the server sees it, one with progress
// and one the approval step denies; for another server, its first tool
// with no arguments.
func calls(added []string) []tool.Request {
	has := func(name string) bool {
		for _, a := range added {
			if a == name {
				return true
			}
		}
		return false
	}
	if has("add") && has("count") {
		return []tool.Request{
			{ID: "1", Name: "add", Args: json.RawMessage(`{"a":20,"b":22}`)},
			{ID: "2", Name: "add", Args: json.RawMessage(`{"a":"20","b":22}`)},
			{ID: "3", Name: "count", Args: json.RawMessage(`{"to":3}`)},
			{ID: "4", Name: "remember", Args: json.RawMessage(`{"note":"buy milk"}`)},
		}
	}
	if len(added) == 0 {
		return nil
	}
	return []tool.Request{{ID: "1", Name: added[0], Args: json.RawMessage(`{}`)}}
}

// isSignalExit reports whether err says the server exited on a signal, as
// one that does not stop when its input closes does when the SDK
// terminates it.
func isSignalExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && !ee.Exited()
}
