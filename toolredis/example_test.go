package toolredis_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

// Two replicas of an agent share one Redis and one keyring: output cut on
// one is read back through the other.
func ExampleNewSpillStore() {
	srv, err := redistest.Start() // your Redis; here, one started for the example
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	defer rdb.Close()

	keys, _ := keyring.FromSecret([]byte("the same secret, on every replica, 32+ bytes"))
	replica := func() *tool.Registry[struct{}] {
		r := tool.NewRegistry[struct{}](&tool.RegistryOptions{
			Keyring:        keys,
			Spill:          toolredis.NewSpillStore(rdb, &toolredis.Options{Namespace: "example-agent"}),
			MaxOutputBytes: 2048,
		})
		r.MustAdd(tool.New(tool.Definition{Name: "count", Description: "Counts to 2000.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (string, error) {
				var b strings.Builder
				for i := range 2000 {
					fmt.Fprintln(&b, i)
				}
				return b.String(), nil
			}))
		return r
	}
	a, b := replica(), replica()

	res := a.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "count", Session: "conv-42"})
	fmt.Println("cut on a:", res.Truncated, "bytes")
	cursor := regexp.MustCompile(`\{"cursor":"[^"]+"\}`).FindString(res.Text())
	part := b.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: tool.ReadOutputTool, Args: []byte(cursor), Session: "conv-42"})
	fmt.Println("read on b:", part.Status, strings.SplitN(part.Text(), "\n", 2)[0])
	// Output:
	// cut on a: 7148 bytes
	// read on b: ok 318
}

// "Allow always" given on one replica holds on the other, for the same
// conversation.
func ExampleNewApprovalStore() {
	srv, err := redistest.Start()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	defer rdb.Close()

	memory := toolredis.NewApprovalStore(rdb, &toolredis.Options{Namespace: "example-agent"})
	replica := func(approver tool.Approver) *tool.Registry[struct{}] {
		r := tool.NewRegistry[struct{}](nil)
		r.MustAdd(tool.New(tool.Definition{Name: "write_file", Description: "Writes a file.", Safety: tool.SafetyMutating},
			func(context.Context, struct{}) (string, error) { return "written", nil }))
		r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver, Store: memory}))
		return r
	}
	askA, askB := tooltest.NewApprover(tooltest.AllowAlways()), tooltest.NewApprover()
	a, b := replica(askA), replica(askB)

	call := func(r *tool.Registry[struct{}], id string) tool.Status {
		return r.Call(context.Background(), struct{}{}, tool.Request{ID: id, Name: "write_file", Session: "conv-42"}).Status
	}
	fmt.Println("on a:", call(a, "1"), "- asked", askA.Asked())
	fmt.Println("on b:", call(b, "2"), "- asked", askB.Asked())
	// Output:
	// on a: ok - asked 1
	// on b: ok - asked 0
}
