package tool_test

import (
	"context"
	"fmt"
	"time"

	"github.com/toolbelt-go/tool"
)

// A long tool run as a task: started, followed, read when it ends; any
// replica sharing the store (toolredis.NewTaskStore) answers for it.
func ExampleTasks() {
	type BuildArgs struct {
		Target string `json:"target"`
	}
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "build", Description: "Builds a target.", Safety: tool.SafetyReadOnly,
		Task: tool.TaskMay, TaskTimeout: 30 * time.Minute},
		func(ctx context.Context, in BuildArgs) (string, error) {
			tool.ReportProgress(ctx, tool.Progress{Message: "compiling " + in.Target})
			time.Sleep(50 * time.Millisecond) // minutes, in real life
			return "built " + in.Target, nil
		}))
	tasks := tool.NewTasks(reg, nil)
	defer tasks.Close()

	ctx := context.Background()
	task, _ := tasks.Start(ctx, struct{}{}, tool.Request{Name: "build", Args: []byte(`{"target":"./cmd/app"}`), Session: "conv-1"})
	fmt.Println(task.Status)
	task, _ = tasks.Await(ctx, "conv-1", task.ID) // or Get it now and then, from any replica
	fmt.Println(task.Status, task.Result.Text())
	// Output:
	// working
	// completed built ./cmd/app
}

// A provider loop follows a long call without a poll per turn: Follow
// answers at once what ends in time, and a task's result comes with a
// later turn, from Collect.
func ExampleTasks_Follow() {
	reg := tool.NewRegistry[struct{}](nil)
	release := make(chan struct{})
	reg.MustAdd(tool.New(tool.Definition{Name: "deploy", Description: "Deploys.", Safety: tool.SafetyReadOnly, Task: tool.TaskMay},
		func(context.Context, struct{}) (string, error) { <-release; return "deployed", nil }))
	tasks := tool.NewTasks(reg, nil)
	defer tasks.Close()
	ctx := context.Background()

	// Turn 1: the model calls deploy; the loop waits a second at most.
	res, task := tasks.Follow(ctx, struct{}{}, tool.Request{ID: "call-1", Name: "deploy", Session: "conv-1"}, 10*time.Millisecond)
	fmt.Println(res.Text() == "The call to deploy is still running, as task "+task.ID+". Its result will be given to you when it ends, "+
		"in a later turn: do not call it again, and do not wait for it; go on with what does not depend on it.")

	close(release)
	_, _ = tasks.Await(ctx, "conv-1", task.ID)
	// A later turn: the loop gives the model what ended since.
	done, _ := tasks.Collect(ctx, "conv-1")
	for _, t := range done {
		fmt.Println(t.Tool, t.Status, t.Result.Text())
	}
	// Output:
	// true
	// deploy completed deployed
}
