package main

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	toolmcp "github.com/toolbelt-go/tool/toolmcp"
)

// serve is the built-in server: a few tools of a Toolbelt registry over
// stdio. Like many real servers (language servers, browsers) it starts a
// helper process of its own, which the client must not leave behind.
func serve(ctx context.Context) error {
	if sleep, err := exec.LookPath("sleep"); err == nil {
		helper := exec.Command(sleep, "600")
		if err := helper.Start(); err == nil {
			defer func() { _ = helper.Process.Kill(); _ = helper.Wait() }()
		}
	}
	reg := tool.NewRegistry[struct{}](nil)
	err := reg.Add(builtinTools()...)
	if err != nil {
		return err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpclient-builtin", Version: "v0.1.0"}, nil)
	toolmcp.AddTools(server, reg, nil)
	return server.Run(ctx, &mcp.StdioTransport{})
}

// builtinTools are the built-in server's tools.
func builtinTools() []tool.Definer {
	type addArgs struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type countArgs struct {
		To int `json:"to" jsonschema:"minimum=1,maximum=100"`
	}
	type rememberArgs struct {
		Note string `json:"note"`
	}
	return []tool.Definer{
		tool.New(tool.Definition{Name: "add", Description: "Add two integers.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in addArgs) (string, error) { return fmt.Sprint(in.A + in.B), nil }),
		tool.New(tool.Definition{Name: "count", Description: "Count slowly, reporting progress.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, in countArgs) (string, error) {
				for i := 1; i <= in.To; i++ {
					select {
					case <-ctx.Done():
						return "", ctx.Err()
					case <-time.After(100 * time.Millisecond):
					}
					tool.ReportProgress(ctx, tool.Progress{Done: float64(i), Total: float64(in.To), Message: fmt.Sprint("counted ", i)})
				}
				return fmt.Sprint("counted to ", in.To), nil
			}),
		tool.New(tool.Definition{Name: "remember", Description: "Keep a note.", Safety: tool.SafetyMutating},
			func(_ context.Context, in rememberArgs) (string, error) { return "noted", nil }),
	}
}
