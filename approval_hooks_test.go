package tool_test

import (
	"context"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// agent is host state: the session's working directory.
type agent struct{ dir string }

// A tool with host state gets typed hooks too: Require and Describe see
// the call and its state, Classify the arguments; hooks layered on it keep
// those it already has; the batch scheduler reads Classify before any call
// is made.
func TestApprovalHooksFor(t *testing.T) {
	remove := tool.NewFor(tool.Definition{Name: "rm", Description: "Removes a file.", Safety: tool.SafetyMutating},
		func(_ context.Context, call *tool.Call[*agent], in writeArgs) (string, error) {
			return "removed " + path.Join(call.State.dir, in.Path), nil
		})
	hooked := tool.WithApprovalHooksFor(remove, tool.ApprovalHooksFor[*agent, writeArgs]{
		Classify: func(in writeArgs) tool.Safety {
			if strings.HasSuffix(in.Path, ".tmp") {
				return tool.SafetyReadOnly // cannot lose anything (for the test's sake)
			}
			return tool.SafetyDestructive
		},
		Require: func(call *tool.Call[*agent], in writeArgs) tool.Requirement {
			if strings.HasPrefix(in.Path, "/") {
				return tool.Requirement{Mode: tool.RequireScoped, Reason: "outside " + call.State.dir, Scope: in.Path}
			}
			return tool.Requirement{}
		},
	})
	layered := tool.WithApprovalHooksFor(hooked, tool.ApprovalHooksFor[*agent, writeArgs]{
		Describe: func(_ context.Context, call *tool.Call[*agent], in writeArgs) (tool.Preview, error) {
			return tool.Preview{Title: "rm " + path.Join(call.State.dir, in.Path), Summary: "in session " + call.Session}, nil
		},
	})
	approver := tooltest.NewApprover(tooltest.AllowOnce(), tooltest.AllowOnce())
	reg := tool.NewRegistry[*agent](nil)
	require.NoError(t, reg.Add(layered))
	reg.Use(tool.Approval(&tool.ApprovalOptions[*agent]{Approver: approver}))
	home := &agent{dir: "/home/ann/project"}
	rm := func(args string) *tool.Result {
		return reg.Call(context.Background(), home, tool.Request{Name: "rm", Args: []byte(args), Session: "s1"})
	}

	tooltest.WantOK(t, rm(`{"path":"build/out.bin","content":""}`))
	tooltest.WantOK(t, rm(`{"path":"/etc/hosts","content":""}`))
	reqs := approver.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, tool.SafetyDestructive, reqs[0].Safety, "the inner Classify still applies")
	assert.Equal(t, "rm /home/ann/project/build/out.bin", reqs[0].Preview.Title, "Describe sees the state")
	assert.Equal(t, "in session s1", reqs[0].Preview.Summary, "Describe sees the call")
	assert.Equal(t, tool.RequireDefault, reqs[0].Requirement.Mode)
	assert.Equal(t, tool.Requirement{Mode: tool.RequireScoped, Reason: "outside /home/ann/project", Scope: "/etc/hosts"}, reqs[1].Requirement,
		"the inner Require sees the state")

	dry := reg.Call(context.Background(), home, tool.Request{Name: "rm", Args: []byte(`{"path":"a.tmp","content":""}`), DryRun: true})
	require.NotNil(t, dry.DryRun, dry.Text())
	assert.Equal(t, tool.SafetyReadOnly, dry.DryRun.Safety)
	assert.Equal(t, "rm /home/ann/project/a.tmp", dry.DryRun.Preview.Title)

	results := reg.CallBatch(context.Background(), home, []tool.Request{
		{ID: "1", Name: "rm", Args: []byte(`{"path":"a.tmp","content":""}`)},
	}, nil)
	tooltest.WantOK(t, results[0])
	assert.Len(t, approver.Requests(), 2, "a read-only call is not asked about")
}
