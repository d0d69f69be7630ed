package codetools_test

import (
	"fmt"

	"github.com/toolbelt-go/tool/codetools"
	"github.com/toolbelt-go/tool/workspace"
)

// What confines run_shell here, for the host to show once at start. The
// answer depends on the machine, so this example has no output to check.
func ExampleToolset_Sandbox() {
	ws, err := workspace.Open(".", nil)
	if err != nil {
		panic(err)
	}
	defer ws.Close()
	ts := codetools.New(ws, nil) // the strongest sandbox this machine offers
	mode, why := ts.Sandbox()    // process.SandboxBubblewrap, SandboxLandlock, or SandboxNone and why
	fmt.Println("run_shell:", mode, why)
}
