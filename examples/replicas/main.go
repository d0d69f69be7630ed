// Replicas runs one conversation across two replicas of an agent backend,
// as a load balancer would send its calls, with the state a conversation
// needs kept in one Redis the replicas share.
//
// Both replicas have the same keyring (from one secret), so each verifies
// the cursors and approval states the other signs, and the same Redis, so
// output cut on one is read on the other, "allow always" given on one
// holds on the other, and an approval deferred on one is resumed, once, on
// the other. Then Redis goes away, and the replicas fall back: output is
// cut without a way to read on, and approval is asked again. Each call is
// logged with log/slog, naming the replica that served it.
//
//	go run .                          # starts a redis-server of its own (Debian: apt-get install redis-server)
//	go run . -redis redis://host:6379/0  # uses yours (a URL or host:port), and leaves it running
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/toolslog"
)

func main() {
	addr := flag.String("redis", "", "URL (redis://…) or host:port of a Redis to use (default: start a redis-server for the example)")
	flag.Parse()
	var stop func() // makes Redis go away; nil when it is not ours to stop
	if *addr == "" {
		srv, err := redistest.Start()
		if err != nil {
			fmt.Fprintln(os.Stderr, "replicas:", err, "(install redis-server, or pass -redis host:port)")
			os.Exit(1)
		}
		defer srv.Close()
		*addr, stop = srv.Addr, srv.Kill
	}
	if err := run(context.Background(), os.Stdout, *addr, stop); err != nil {
		fmt.Fprintln(os.Stderr, "replicas:", err)
		os.Exit(1)
	}
}

// secret is what every replica of the deployment is given (from a secret
// store, in a real one): it signs cursors and approval states.
var secret = []byte("replicas example: share 32+ random bytes like these")

// person answers approval requests: on replica a, whoever is at the
// screen; on b, nobody is, so the request waits for an answer given later.
type person struct {
	name    string
	answers []tool.DecisionKind
	w       io.Writer
}

func (p *person) Approve(_ context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
	d := tool.DecisionDefer
	if len(p.answers) > 0 {
		d, p.answers = p.answers[0], p.answers[1:]
	}
	fmt.Fprintf(p.w, "    (%s asks about %s %s: %s)\n", p.name, req.Tool, req.ArgsText, d)
	return tool.Decision{Kind: d}, nil
}

// replica is one process of the backend.
type replica struct {
	name string
	reg  *tool.Registry[struct{}]
}

func newReplica(name string, rdb redis.UniversalClient, approver tool.Approver, log *slog.Logger) (*replica, error) {
	keys, err := keyring.FromSecret(secret)
	if err != nil {
		return nil, err
	}
	opts := &toolredis.Options{Namespace: "replicas-example", Timeout: 500 * time.Millisecond}
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{
		Keyring:  keys,
		Spill:    toolredis.NewSpillStore(rdb, opts),
		Observer: toolslog.Observer(log.With("replica", name), nil),
	})
	if err := reg.Add(buildLog(), writeFile(), deleteFile()); err != nil {
		return nil, err
	}
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver, Store: toolredis.NewApprovalStore(rdb, opts)}))
	return &replica{name: name, reg: reg}, nil
}

type buildArgs struct {
	Target string `json:"target" jsonschema:"description=What to build"`
}

// buildLog prints a long log whose error is near the end: the cap keeps
// the head and the tail, and the middle is what read_output reads.
func buildLog() tool.AnyTool {
	return tool.New(tool.Definition{Name: "build_log", Description: "Builds a target and returns its whole log.", Safety: tool.SafetyReadOnly, MaxOutputBytes: 4096},
		func(_ context.Context, in buildArgs) (string, error) {
			var b strings.Builder
			for i := range 3000 {
				fmt.Fprintf(&b, "[%04d] compiling %s/pkg%04d.go ... ok\n", i, in.Target, i)
			}
			b.WriteString("error: undefined: frobnicate (pkg2999.go:42)\n")
			return b.String(), nil
		})
}

type fileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content,omitempty"`
}

func writeFile() tool.AnyTool {
	return tool.New(tool.Definition{Name: "write_file", Description: "Writes a file.", Safety: tool.SafetyMutating},
		func(_ context.Context, in fileArgs) (string, error) { return "wrote " + in.Path, nil })
}

func deleteFile() tool.AnyTool {
	return tool.New(tool.Definition{Name: "delete_file", Description: "Deletes a file.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in fileArgs) (string, error) { return "deleted " + in.Path, nil })
}

var cursorRE = regexp.MustCompile(`\{"cursor":"[^"]+"\}`)

// run plays the conversation on the Redis at addr (a URL or host:port).
// stop, if not nil, makes Redis go away for the last part.
func run(ctx context.Context, w io.Writer, addr string, stop func()) error {
	opts := &redis.Options{Addr: addr}
	if strings.Contains(addr, "://") {
		var err error
		if opts, err = redis.ParseURL(addr); err != nil {
			return err
		}
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.MaxRetries = time.Second, time.Second, time.Second, 1
	// go-redis logs each failed dial to stderr; once Redis is gone the
	// example shows the fallbacks itself, through the calls' results.
	redis.SetLogger(&logging.VoidLogger{})
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("no Redis at %s: %w", addr, err)
	}
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "duration" || a.Key == "call_id" {
			return slog.Attr{}
		}
		return a
	}}))
	a, err := newReplica("a", rdb, &person{name: "a", answers: []tool.DecisionKind{tool.DecisionAllowAlways, tool.DecisionAllowOnce}, w: w}, log)
	if err != nil {
		return err
	}
	b, err := newReplica("b", rdb, &person{name: "b", w: w}, log)
	if err != nil {
		return err
	}
	// One conversation; a new one each run, so that a Redis kept from an
	// earlier run remembers nothing for it.
	session := fmt.Sprint("conv-", time.Now().UnixNano())
	n := 0
	call := func(r *replica, name, args string, answer *tool.ApprovalAnswer) *tool.Result {
		n++
		return r.reg.Call(ctx, struct{}{}, tool.Request{ID: fmt.Sprint("call_", n), Name: name, Args: []byte(args), Session: session, Approval: answer})
	}

	fmt.Fprintln(w, "== output cut on a, read on b and a in turn")
	res := call(a, "build_log", `{"target":"server"}`, nil)
	fmt.Fprintf(w, "a: build_log answered %d bytes; %d were cut and kept in Redis\n", len(res.Text()), res.Truncated)
	reads, read, replicas := 0, 0, []*replica{b, a}
	for cursor := cursorRE.FindString(res.Text()); cursor != ""; cursor = cursorRE.FindString(res.Text()) {
		r := replicas[reads%2]
		reads++
		if res = call(r, tool.ReadOutputTool, cursor, nil); res.IsError {
			return fmt.Errorf("read_output on %s: %s", r.name, res.Text())
		}
		read += len(res.Text()[:strings.LastIndex(res.Text(), "\n[bytes ")])
	}
	fmt.Fprintf(w, "read_output: %d calls, alternating replicas, read %d bytes; the last says %s\n", reads, read, lastLine(res.Text()))

	fmt.Fprintln(w, "\n== allow always, given on a, holds on b")
	fmt.Fprintln(w, "a:", call(a, "write_file", `{"path":"main.go","content":"package main"}`, nil).Text())
	fmt.Fprintln(w, "b:", call(b, "write_file", `{"path":"util.go","content":"package main"}`, nil).Text())

	fmt.Fprintln(w, "\n== an approval deferred on b, answered later through a, once")
	res = call(b, "delete_file", `{"path":"old.go"}`, nil)
	fmt.Fprintf(w, "b: %s: %s\n", res.Status, res.Text())
	if res.Pending == nil {
		return fmt.Errorf("delete_file was not deferred: %s", res.Status)
	}
	answer := &tool.ApprovalAnswer{State: res.Pending.State, Decision: tool.Decision{Kind: tool.DecisionAllowOnce}}
	fmt.Fprintln(w, "a, with the answer:", call(a, "delete_file", `{"path":"old.go"}`, answer).Text())
	fmt.Fprintln(w, "b, the same answer again:", call(b, "delete_file", `{"path":"old.go"}`, answer).Text())

	if stop == nil {
		return nil
	}
	fmt.Fprintln(w, "\n== Redis goes away")
	stop()
	start := time.Now()
	res = call(a, "build_log", `{"target":"server"}`, nil)
	fmt.Fprintf(w, "a: build_log: %s, %d bytes cut, a way to read on: %v\n", res.Status, res.Truncated, strings.Contains(res.Text(), tool.ReadOutputTool))
	fmt.Fprintln(w, "a:", call(a, "write_file", `{"path":"main.go","content":"package main // v2"}`, nil).Text())
	fmt.Fprintf(w, "both calls answered in under 5 s: %v\n", time.Since(start) < 5*time.Second)
	return nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
