// Mcpserver serves Toolbelt tools to any MCP client: the quickstart's
// search and read_file, count_slowly (progress, cancellation) and
// write_file, which asks the client's user before it runs. It speaks
// stdio by default (what desktop clients start), or streamable HTTP with
// -http.
//
//	go run ./examples/mcpserver              # stdio
//	go run ./examples/mcpserver -http :8080  # http://localhost:8080/
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	toolmcp "github.com/toolbelt-go/tool/toolmcp"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address (\":8080\") instead of stdio")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}

func run(ctx context.Context, addr string) error {
	server, err := newServer()
	if err != nil {
		return err
	}
	if addr == "" {
		return server.Run(ctx, &mcp.StdioTransport{})
	}
	srv := &http.Server{Addr: addr, Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	log.Printf("mcpserver: streamable HTTP on %s", addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newServer builds the MCP server: a Toolbelt registry with an approval
// step that asks the client's user, served with toolmcp.AddTools.
func newServer() (*mcp.Server, error) {
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(newTools(newProject())...); err != nil {
		return nil, fmt.Errorf("registering tools: %w", err)
	}
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: toolmcp.Approver(nil)}))

	server := mcp.NewServer(&mcp.Implementation{Name: "toolbelt-mcpserver", Version: "v0.1.0"}, nil)
	// Calls are bound to the MCP session over HTTP, and to the connection
	// over stdio: "allow always" and cursors hold there and nowhere else.
	toolmcp.AddTools(server, reg, nil)
	return server, nil
}
