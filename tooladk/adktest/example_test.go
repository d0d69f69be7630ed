package adktest_test

import (
	"context"
	"fmt"

	adktool "google.golang.org/adk/tool"
	"google.golang.org/adk/tool/toolconfirmation"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooladk"
	"github.com/toolbelt-go/tool/tooladk/adktest"
)

type PathArgs struct {
	Path string `json:"path" jsonschema:"minLength=1"`
}

// Drive makes one call through ADK's runner and answers what ADK asks
// about it, as a user of ADK's web UI would.
func ExampleRunner_Drive() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "delete_file", Description: "Delete a file.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in PathArgs) (string, error) { return "deleted " + in.Path, nil }))
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooladk.Approver()}))

	r := adktest.NewRunner(adktest.Config{Toolsets: []adktool.Toolset{tooladk.New(reg, nil)}})
	resp, turns, err := r.Drive(context.Background(), adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`),
		func(q *toolconfirmation.ToolConfirmation) (bool, any) {
			confirmed, payload, _ := adktest.Answer(tool.Decision{Kind: tool.DecisionAllowOnce})
			return confirmed, payload
		})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(turns), "turns:", resp["output"])
	// Output:
	// 2 turns: deleted notes.txt
}
