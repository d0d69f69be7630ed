package toolredis_test

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
)

// A call finished on one replica is answered from its record on the
// other, when the turn is sent again there: the order is placed once.
func ExampleNewRecordStore() {
	srv, err := redistest.Start()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	defer rdb.Close()

	orders := 0
	replica := func() *tool.Registry[struct{}] {
		r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Records: toolredis.NewRecordStore(rdb, &toolredis.Options{Namespace: "example-agent"})})
		r.MustAdd(tool.New(tool.Definition{Name: "place_order", Description: "Places an order.", Safety: tool.SafetyMutating},
			func(context.Context, struct{}) (string, error) {
				orders++
				return fmt.Sprint("order #", orders, " placed"), nil
			}))
		return r
	}
	a, b := replica(), replica()
	req := tool.Request{ID: "call_7", Name: "place_order", Session: "conv-1"}
	first := a.Call(context.Background(), struct{}{}, req)
	again := b.Call(context.Background(), struct{}{}, req)
	fmt.Println("on a:", first.Text())
	fmt.Println("on b:", again.Text(), "- from its record:", again.FromRecord)
	// Output:
	// on a: order #1 placed
	// on b: order #1 placed - from its record: true
}
