package einotest_test

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	"github.com/toolbelt-go/tool/tooleino"
	"github.com/toolbelt-go/tool/tooleino/einotest"
)

type ShellArgs struct {
	Command string `json:"command" jsonschema:"minLength=1"`
}

// A call arriving through Eino's Runner and approved through its
// interrupt, resumed on another replica: the shape of a test that drives a
// host's registries through an Eino agent.
func ExampleRun() {
	keys, _ := keyring.FromSecret([]byte("a secret the replicas of the example share"))
	approvals, records := tool.NewMemoryApprovalStore(0), tool.NewMemoryRecordStore(0)
	replica := func(name string) *tool.Registry[struct{}] {
		reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: keys, Records: records})
		reg.MustAdd(tool.New(tool.Definition{Name: "shell", Description: "Runs a command.", Safety: tool.SafetyMutating},
			func(_ context.Context, in ShellArgs) (string, error) { return "ran " + in.Command + " on " + name, nil }))
		reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooleino.Approver(), Store: approvals}))
		return reg
	}
	a, _ := tooleino.New(replica("a"), nil).Tools()
	b, _ := tooleino.New(replica("b"), nil).Tools()

	res, err := einotest.Run(context.Background(), einotest.RunConfig{
		Tools: a, ResumeTools: b, Session: "conv-1",
		Call: einotest.Call{ID: "call-1", Name: "shell", Arguments: `{"command":"touch a.txt"}`},
		Answer: func(q *tooleino.Question) tool.Decision {
			fmt.Println("asked:", q)
			return tool.Decision{Kind: tool.DecisionAllowOnce}
		},
	})
	if err != nil {
		panic(err)
	}
	for _, o := range res.Outputs {
		fmt.Println(o.CallID+":", o.Text)
	}
	fmt.Println(res.Final)
	// Output:
	// asked: approve shell {"command":"touch a.txt"} (mutating)?
	// call-1: ran touch a.txt on b
	// done
}
