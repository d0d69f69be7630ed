// Mcpapproval serves a notes tool over MCP (streamable HTTP, every
// protocol version) to clients that authenticate with a bearer token, and
// answers its approvals on the approval page, where each person sees and
// answers the approvals of their own calls only: the path authentication
// → session → page, with nothing kept per user by hand.
//
//	go run ./examples/mcpapproval -http localhost:8080
//
// An MCP client connects to http://localhost:8080/mcp with
// "Authorization: Bearer ada-token" (or grace-token); a call of
// delete_note waits until ada allows it on http://localhost:8080/approvals/
// (open http://localhost:8080/login?token=ada-token in a browser first;
// a program sends the same bearer token instead).
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
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
	toolmcp "github.com/toolbelt-go/tool/toolmcp"
)

func main() {
	addr := flag.String("http", "localhost:8080", "serve on this address")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}

func run(ctx context.Context, addr string) error {
	app, err := newApp()
	if err != nil {
		return err
	}
	defer app.page.Close()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: app.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	srv.RegisterOnShutdown(func() { app.page.Close() }) // ends the page's live updates
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	log.Printf("mcpapproval: MCP on http://%s/mcp, approvals on http://%s/login?token=ada-token", l.Addr(), l.Addr())
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// users are who the bearer tokens belong to: your identity provider's
// answer, in a real server.
var users = map[string]string{"ada-token": "ada", "grace-token": "grace"}

// verify is the TokenVerifier the MCP handler and the page share: the
// token's user becomes TokenInfo.UserID.
func verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	user, ok := users[token]
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
}

// app is the server: the registry, its approval page, and the HTTP
// handler that serves both.
type app struct {
	reg     *tool.Registry[struct{}]
	page    *approvalweb.Handler
	handler http.Handler
}

func newApp() (*app, error) {
	// 1. The page: a person may answer the approvals of the session named
	// after them, which is how step 3 names the sessions.
	page, err := approvalweb.New(&approvalweb.Options{
		MayAnswer: func(r *http.Request, session string) bool {
			info := auth.TokenInfoFromContext(r.Context())
			return info != nil && info.UserID != "" && session == info.UserID
		},
	})
	if err != nil {
		return nil, err
	}

	// 2. The registry, whose approvals the page answers, on every path a
	// call arrives by: the MCP client is never asked.
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(newNotes().tools()...); err != nil {
		return nil, err
	}
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: page.Approver()}))

	// 3. MCP: each call's session is the user of its bearer token.
	server := mcp.NewServer(&mcp.Implementation{Name: "mcpapproval", Version: "v0.1.0"}, nil)
	toolmcp.AddTools(server, reg, &toolmcp.Options[struct{}]{Session: toolmcp.UserSession})

	// 4. One authentication for both: the MCP endpoint takes the bearer
	// token; the page takes it too, or from a cookie for a browser.
	bearer := auth.RequireBearerToken(verify, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", bearer(toolmcp.NewHTTPHandler(server, nil)))
	mux.Handle("/approvals/", cookieToken(bearer(http.StripPrefix("/approvals", page))))
	mux.HandleFunc("GET /login", login)
	return &app{reg: reg, page: page, handler: mux}, nil
}

// login keeps the token of ?token= in a cookie, for a browser, and goes to
// the page. (Your own login goes here in a real server.)
func login(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	if _, ok := users[token]; !ok {
		http.Error(w, "unknown token", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: "token", Value: token, Path: "/approvals/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/approvals/", http.StatusSeeOther)
}

// cookieToken lets a browser, which sends no Authorization header, use the
// token of its cookie.
func cookieToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("token"); err == nil && r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+c.Value)
		}
		next.ServeHTTP(w, r)
	})
}

// notes are the tools: add_note writes, delete_note loses data; both are
// asked about.
type notes struct {
	mu sync.Mutex
	m  map[string]string
}

func newNotes() *notes { return &notes{m: map[string]string{"todo": "milk", "shopping": "eggs"}} }

type noteArgs struct {
	Name string `json:"name" jsonschema:"maxLength=64"`
	Text string `json:"text,omitempty"`
}

func (n *notes) tools() []tool.Definer {
	add := tool.New(tool.Definition{Name: "add_note", Description: "Adds a note.", Safety: tool.SafetyMutating},
		func(_ context.Context, in noteArgs) (string, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.m[in.Name] = in.Text
			return "added " + in.Name, nil
		})
	del := tool.New(tool.Definition{Name: "delete_note", Description: "Deletes a note.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in noteArgs) (string, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			if _, ok := n.m[in.Name]; !ok {
				return "", fmt.Errorf("no note named %q", in.Name)
			}
			delete(n.m, in.Name)
			return "deleted " + in.Name, nil
		})
	return []tool.Definer{add, del}
}
