//lint:file-ignore SA1019 partial content maps to logging, which protocol 2026-07-28 deprecates (SEP-2577).

package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

func TestProgressNotifications(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "slow", Description: "Reports progress.", Safety: tool.SafetyReadOnly},
		func(ctx context.Context, _ struct{}) (string, error) {
			for _, p := range []tool.Progress{
				{Message: "start", Done: 0, Total: 100},
				{Message: "half", Done: 50, Total: 100},
				{Message: "back", Done: 40, Total: 100}, // does not advance: dropped
				{Message: "done", Done: 100, Total: 100},
				{Message: "tidying up"}, // no total: one more step
			} {
				tool.ReportProgress(ctx, p)
			}
			return "ok", nil
		}))
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			cs := connect(t, serve(t, reg, nil), &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
					mu.Lock()
					defer mu.Unlock()
					p := req.Params
					got = append(got, fmt.Sprintf("%v %g/%g %s", p.ProgressToken, p.Progress, p.Total, p.Message))
				},
			}, protocol)
			params := &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{}}
			params.SetProgressToken("tok-1")
			if _, err := cs.CallTool(context.Background(), params); err != nil {
				t.Fatal(err)
			}
			// Notifications are sent before the response; the client may
			// still be handing the last ones to its handler.
			want := []string{"tok-1 0/100 start", "tok-1 50/100 half", "tok-1 100/100 done", "tok-1 101/0 tidying up"}
			deadline := time.Now().Add(10 * time.Second)
			for {
				mu.Lock()
				n := len(got)
				mu.Unlock()
				if n >= len(want) || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("progress:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestNoProgressTokenNoNotifications(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "slow", Description: "Reports progress.", Safety: tool.SafetyReadOnly},
		func(ctx context.Context, _ struct{}) (string, error) {
			tool.ReportProgress(ctx, tool.Progress{Done: 1, Total: 2})
			return "ok", nil
		}))
	got := make(chan struct{}, 1)
	cs := connect(t, serve(t, reg, nil), &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { got <- struct{}{} },
	}, legacyProtocol)
	call(t, cs, "slow", `{}`)
	_ = cs.Ping(context.Background(), nil) // anything sent before the ping has been handled
	select {
	case <-got:
		t.Fatal("progress sent to a client that gave no token")
	default:
	}
}

func TestPartialContentAsLog(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "stream", Description: "Streams.", Safety: tool.SafetyReadOnly},
		func(ctx context.Context, _ struct{}) (string, error) {
			tool.ReportPartial(ctx, tool.TextContent("line 1"))
			return "line 1\nline 2", nil
		}))
	logs := make(chan *sdk.LoggingMessageParams, 4)
	cs := connect(t, serve(t, reg, nil), &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) { logs <- req.Params },
	}, legacyProtocol)
	if err := cs.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "stream", `{}`)
	select {
	case p := <-logs:
		b, _ := json.Marshal(p.Data)
		if p.Logger != "stream" || string(b) != `{"partial":"line 1"}` {
			t.Errorf("log message: %s %s", p.Logger, b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no log message for the partial content")
	}
}

func TestClientCancelCancelsTheCall(t *testing.T) {
	w := newWaiter()
	rec := &finished{}
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: rec})
	reg.MustAdd(w.tool())
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			cs := connect(t, serve(t, reg, nil), nil, protocol)
			w.cancel(t, cs) // the SDK client sends notifications/cancelled
			deadline := time.Now().Add(10 * time.Second)
			for rec.result("wait") == nil && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if res := rec.result("wait"); res == nil || res.Status != tool.StatusCanceled || !errors.Is(res.Err, ErrCancelledByClient) {
				t.Errorf("host view: %+v", res)
			}
		})
	}
}

type listArgs struct {
	tool.PageArgs
}

func TestPagesAndReadOutputOverMCP(t *testing.T) {
	reg := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	reg.MustAdd(
		tool.NewPaginated(tool.Definition{Name: "numbers", Description: "Numbers, a page at a time.", Safety: tool.SafetyReadOnly},
			func(_ context.Context, in listArgs, page tool.Page) ([]int, []byte, error) {
				start := 0
				if page.State != nil {
					fmt.Sscan(string(page.State), &start)
				}
				out := []int{start, start + 1}
				if start >= 4 {
					return out, nil, nil
				}
				return out, []byte(fmt.Sprint(start + 2)), nil
			}),
		tool.New(tool.Definition{Name: "log", Description: "A long log.", Safety: tool.SafetyReadOnly, MaxOutputBytes: 2048},
			func(context.Context, struct{}) (string, error) {
				var b strings.Builder
				for i := range 500 {
					fmt.Fprintf(&b, "line %03d\n", i)
				}
				return b.String(), nil
			}),
	)
	// No Options: the in-memory connection, like stdio, has no MCP session
	// ID, and is a conversation of its own.
	server := serve(t, reg, nil)
	cs := connect(t, server, nil, legacyProtocol)
	other := connect(t, server, nil, legacyProtocol)

	var pages [][]int
	args := `{"page_size":2}`
	var second string // the cursor to the second page
	for range 5 {
		res := call(t, cs, "numbers", args)
		var p tool.Paged[[]int]
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &p); err != nil || res.IsError {
			t.Fatalf("page: %s %q", b, text(res))
		}
		pages = append(pages, p.Results)
		if p.NextCursor == "" {
			break
		}
		if second == "" {
			second = p.NextCursor
		}
		args = `{"page_size":2,"cursor":"` + p.NextCursor + `"}`
	}
	if fmt.Sprint(pages) != "[[0 1] [2 3] [4 5]]" {
		t.Errorf("pages = %v", pages)
	}
	if res := call(t, other, "numbers", `{"page_size":2,"cursor":"`+second+`"}`); !res.IsError {
		t.Errorf("another connection used the cursor: %q", text(res))
	}

	res := call(t, cs, "log", `{}`)
	m := regexp.MustCompile(`call read_output with (\{"cursor":"[^"]+"\})`).FindStringSubmatch(text(res))
	if m == nil {
		t.Fatalf("no read_output cursor in %q", text(res))
	}
	more := call(t, cs, "read_output", m[1])
	if more.IsError || !strings.Contains(text(more), "line ") {
		t.Fatalf("read_output: %q", text(more))
	}
	if res := call(t, other, "read_output", m[1]); !res.IsError {
		t.Errorf("another connection read the output: %q", text(res))
	}
}
