package toolredis_test

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/toolbelt-go/tool"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
)

// Two replicas share a tool's rate of three calls a minute through
// Redis: together they allow three, not six.
func ExampleNewLimiter() {
	srv, err := redistest.Start() // your Redis; here, one started for the example
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	defer rdb.Close()

	replica := func() *tool.Registry[struct{}] {
		r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Limiter: toolredis.NewLimiter(rdb, &toolredis.Options{Namespace: "example-agent"})})
		r.MustAdd(tool.New(tool.Definition{Name: "translate", Description: "Translates with a paid API.", Safety: tool.SafetyNetwork,
			CallLimits: []tool.CallLimit{{Rate: 3}}},
			func(context.Context, struct{}) (string, error) { return "bonjour", nil }))
		return r
	}
	a, b := replica(), replica()
	for i, r := range []*tool.Registry[struct{}]{a, b, a, b} {
		res := r.Call(context.Background(), struct{}{}, tool.Request{ID: fmt.Sprint(i), Name: "translate", Session: "conv-1"})
		fmt.Println(res.Status)
	}
	// Output:
	// ok
	// ok
	// ok
	// limited
}
