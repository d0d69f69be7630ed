// Mcpserver serves Toolbelt tools to any MCP client: the quickstart's
// search and read_file, count_slowly (progress, cancellation) and
// write_file, which asks the client's user before it runs. It speaks
// stdio by default (what desktop clients start), or streamable HTTP with
// -http, on every protocol version: clients of 2026-07-28 are served
// without sessions (approval comes back in a retried call), older ones in
// sessions (approval by elicitation), through toolmcp.NewHTTPHandler's
// safe defaults (other origins refused, idle sessions reclaimed, sessions
// and bodies bounded).
//
//	go run ./examples/mcpserver                        # stdio
//	go run ./examples/mcpserver -http localhost:8080   # http://localhost:8080/
//
// Every client shares one project here. ExampleSessionID in toolmcp shows
// state kept per session instead.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

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
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler: toolmcp.NewHTTPHandler(server, nil),
		// Bounds of the server's own: a client that never finishes its
		// headers does not hold a connection for ever. No ReadTimeout or
		// WriteTimeout: they would cut the streams of calls that take
		// longer (the handler bounds bodies by size instead).
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	log.Printf("mcpserver: streamable HTTP on http://%s/", l.Addr())
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
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
	// Requests of 2026-07-28 have no session: a server that authenticates
	// its users names the user in toolmcp.Options.Session.
	toolmcp.AddTools(server, reg, nil)
	return server, nil
}
