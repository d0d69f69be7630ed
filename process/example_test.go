//go:build unix

package process_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
)

func ExampleRun() {
	res, err := process.Run(context.Background(), process.Command{Path: "sh", Args: []string{"-c", "echo hello; exit 3"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q, exit status %d\n", res.Stdout, res.ExitCode)
	// Output: "hello\n", exit status 3
}

// A time limit stops the program and everything it started; the error
// names the limit and is a timeout for the pipeline.
func ExampleRun_timeout() {
	res, err := process.Run(context.Background(), process.Command{Path: "sh", Args: []string{"-c", "sleep 60 & sleep 60"},
		Timeout: 100 * time.Millisecond, KillGrace: 100 * time.Millisecond})
	var te *tool.Error
	if errors.As(err, &te) {
		fmt.Println(te.Message)
		fmt.Println(te.Status, res.TimedOut, errors.Is(err, context.DeadlineExceeded))
	}
	// Output:
	// sh ran longer than its 100ms time limit and was stopped
	// timed_out true true
}

func ExampleNewCLI() {
	echo := process.NewCLI(process.CLI{
		Definition: tool.Definition{Name: "echo_flags", Description: "Prints its command line.", Safety: tool.SafetyReadOnly,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"lines":{"type":"boolean"}},"additionalProperties":false}`)},
		Path:  "sh",
		Args:  []string{"-c", `echo "$@"`, "sh"},
		Mode:  process.ArgsAsFlags,
		Flags: map[string]string{"lines": "-l"},
	})
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(echo)
	res := r.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "echo_flags", Args: json.RawMessage(`{"lines":true}`)})
	fmt.Print(res.Status, ": ", res.Text())

	// A schema that lets the model send keys it does not declare is
	// refused: each would become a flag.
	err := r.Add(process.NewCLI(process.CLI{Path: "wc", Mode: process.ArgsAsFlags,
		Definition: tool.Definition{Name: "open", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}))
	fmt.Println(err != nil)
	// Output:
	// ok: -l
	// true
}

// A command confined to a workspace: it may read and write there (and in
// a private temporary directory), read the system's programs, and nothing
// else; .env reads as empty; no network. Where no sandbox can be had,
// Run refuses rather than run it unconfined.
func ExampleSandbox() {
	if sup := process.DetectSandbox(); sup.Mode == process.SandboxNone {
		fmt.Println("no sandbox here:", sup.Err())
		return
	}
	res, err := process.Run(context.Background(), process.Command{
		Path: "go", Args: []string{"test", "./..."}, Dir: "/srv/checkout",
		Sandbox: &process.Sandbox{
			Write: []string{"/srv/checkout"},
			Deny:  []string{"/srv/checkout/.env"},
			Read:  []string{"/usr/local/go", "/home/me/go/pkg/mod"},
			Temp:  true,
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Sandbox, res.ExitCode)
}
