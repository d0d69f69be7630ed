package tooltest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func ExampleGenerateArgs() {
	type args struct {
		Query string `json:"query" jsonschema:"minLength=1"`
		Limit int    `json:"limit" jsonschema:"minimum=1,maximum=10"`
	}
	schema, _ := tool.SchemaOf[args]()
	a, _ := tooltest.GenerateArgs(schema, 1)
	fmt.Println(a)
	// Output: {"limit":6,"query":"0"}
}

func ExampleMutations() {
	type args struct {
		Limit int `json:"limit" jsonschema:"minimum=1,maximum=10"`
	}
	schema, _ := tool.SchemaOf[args]()
	muts, _ := tooltest.Mutations(schema, `{"limit":5}`)
	for _, m := range muts {
		fmt.Printf("%-28s %s\n", m.Name, m.Args)
	}
	// Output:
	// unknown key                  {"limit":5,"tooltest_unknown_key":1}
	// /limit: wrong type           {"limit":"5"}
	// /limit: wrong type           {"limit":false}
	// /limit: null                 {"limit":null}
	// /limit: below minimum        {"limit":0}
	// /limit: above maximum        {"limit":11}
	// /limit: fraction             {"limit":1.5}
	// /limit: required key missing {}
}

// A scripted approver answers in order and records what it was shown.
func ExampleApprover() {
	type args struct {
		Path string `json:"path"`
	}
	del := tool.New(tool.Definition{Name: "delete_file", Description: "Deletes a file.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in args) (string, error) { return "deleted " + in.Path, nil })
	approver := tooltest.NewApprover(tooltest.AllowOnce(), tooltest.Deny("keep the README"))

	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(del)
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver}))
	for _, p := range []string{"tmp.txt", "README.md"} {
		res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "delete_file", Args: []byte(`{"path":"` + p + `"}`)})
		fmt.Println(res.Status, "|", res.Text())
	}
	for _, req := range approver.Requests() {
		fmt.Println("asked:", req.Tool, req.Safety, string(req.Args))
	}
	// Output:
	// ok | deleted tmp.txt
	// denied | The call to delete_file was not allowed to run: the user said: keep the README. It did not run. Do not repeat it unchanged; change the approach or ask the user.
	// asked: delete_file destructive {"path":"tmp.txt"}
	// asked: delete_file destructive {"path":"README.md"}
}

// A Recorder observes a registry's events in order.
func ExampleRecorder() {
	rec := &tooltest.Recorder{}
	work := tool.New(tool.Definition{Name: "work", Description: "Works in two steps."},
		func(ctx context.Context, _ struct{}) (string, error) {
			tool.ReportProgress(ctx, tool.Progress{Message: "half way", Done: 1, Total: 2})
			return "done", nil
		})
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: rec})
	r.MustAdd(work)
	r.Call(context.Background(), struct{}{}, tool.Request{ID: "call-1", Name: "work"})
	fmt.Println(rec.Kinds("call-1"))
	fmt.Println(rec.EventsOf("call-1")[1].Progress.Message)
	// Output:
	// started progress finished
	// half way
}

func ExampleClock() {
	clock := tooltest.NewClock()
	issued := clock.Now()
	clock.Advance(90 * time.Second)
	fmt.Println(clock.Now().Sub(issued))
	// Output: 1m30s
}
