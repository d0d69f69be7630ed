package tool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// Hooks layered on a tool keep the hooks it already has.
func TestApprovalHooksStack(t *testing.T) {
	base := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "sh", Description: "Runs a command.", Safety: tool.SafetyMutating},
		func(_ context.Context, in shellArgs) (string, error) { return "ran", nil }),
		tool.ApprovalHooks[shellArgs]{Classify: func(shellArgs) tool.Safety { return tool.SafetyDestructive }})
	both := tool.WithApprovalHooks(base, tool.ApprovalHooks[shellArgs]{
		Describe: func(_ context.Context, in shellArgs) (tool.Preview, error) {
			return tool.Preview{Title: "$ " + in.Command}, nil
		},
	})
	approver := tooltest.NewApprover(tooltest.AllowOnce())
	r := registryWith(t, nil, both)
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver}))
	tooltest.WantOK(t, call(r, "sh", `{"command":"make"}`))
	req := approver.Requests()[0]
	assert.Equal(t, tool.SafetyDestructive, req.Safety, "the inner Classify still applies")
	assert.Equal(t, "$ make", req.Preview.Title)
}
