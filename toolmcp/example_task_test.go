package toolmcp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	toolmcp "github.com/toolbelt-go/tool/toolmcp"
)

// A long tool served as an MCP task (the tasks extension, protocol
// 2026-07-28): a client that declares the extension gets a task handle at
// once and follows it with tasks/get; one that does not gets a plain call.
// Here the client is toolmcp's own, through RemoteTools, which follows the
// task for its caller.
func ExampleOptions_tasks() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "build", Description: "Builds the project.", Safety: tool.SafetyReadOnly,
		Task: tool.TaskMust, TaskTimeout: time.Hour},
		func(ctx context.Context, _ struct{}) (string, error) {
			tool.ReportProgress(ctx, tool.Progress{Message: "compiling"})
			time.Sleep(100 * time.Millisecond) // minutes, in real life
			return "build ok", nil
		}))
	tasks := tool.NewTasks(reg, &tool.TaskOptions{Answerer: toolmcp.Answerer}) // toolredis.NewTaskStore for replicas
	defer tasks.Close()
	server := mcp.NewServer(&mcp.Implementation{Name: "builder", Version: "v1.0.0"}, nil)
	toolmcp.AddTools(server, reg, &toolmcp.Options[struct{}]{Tasks: tasks})
	hs := httptest.NewServer(toolmcp.NewHTTPHandler(server, nil))
	defer hs.Close()

	// A host that uses the builder's tools: the call waits for the task.
	ctx := context.Background()
	cs, _ := toolmcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1.0.0"}, nil).Connect(ctx,
		toolmcp.Guard(&mcp.StreamableClientTransport{Endpoint: hs.URL}, nil), &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	defer cs.Close()
	host := tool.NewRegistry[struct{}](nil)
	_, _ = toolmcp.AddRemoteTools(ctx, host, cs, nil)
	res := host.Call(ctx, struct{}{}, tool.Request{Name: "build"})
	fmt.Println(res.Status, res.Text())
	// Output:
	// ok build ok
}
