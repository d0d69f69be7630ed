package tool_test

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/tool"
)

// A dry run says what a call would do — the arguments it would run with,
// its class, whether a person would be asked and why — and runs nothing:
// for a UI's "what will this do?", or to score a model's calls offline.
func ExampleRequest_dryRun() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "delete_branch", Description: "Deletes a git branch.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in struct {
			Branch string `json:"branch"`
			Force  bool   `json:"force,omitempty" jsonschema:"default=false"`
		}) (string, error) {
			return "deleted " + in.Branch, nil
		}))
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tool.ApproverFunc(askInTheUI)}))

	res := reg.Call(context.Background(), struct{}{}, tool.Request{
		Name: "delete_branch", Args: []byte(`{"branch":"old-ui"}`), Session: "conv-1", DryRun: true,
	})
	d := res.DryRun
	fmt.Println(res.Status, string(d.Args), d.Safety)
	fmt.Println(d.Verdict, "-", d.Why)
	// Output:
	// dry_run {"branch":"old-ui","force":false} destructive
	// ask - the session's policy asks about destructive calls to this tool
}

// askInTheUI would show the request to a person; a dry run never calls it.
func askInTheUI(context.Context, tool.ApprovalRequest) (tool.Decision, error) {
	panic("not asked in a dry run")
}
