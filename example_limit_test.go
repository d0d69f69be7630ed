package tool_test

import (
	"context"
	"fmt"
	"time"

	"github.com/toolbelt-go/tool"
)

// A tool in front of a paid API allows two calls a minute per
// conversation: the third is refused, and the model is told when to retry.
func ExampleCallLimit() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{
		Name: "geocode", Description: "Finds a place's coordinates.", Safety: tool.SafetyNetwork,
		CallLimits: []tool.CallLimit{{Rate: 2, Per: time.Minute, PerSession: true}, {Concurrent: 8}},
	}, func(_ context.Context, in struct {
		Place string `json:"place"`
	}) (string, error) {
		return in.Place + ": 48.86, 2.35", nil
	}))
	for i := range 3 {
		res := reg.Call(context.Background(), struct{}{}, tool.Request{ID: fmt.Sprint(i), Name: "geocode", Args: []byte(`{"place":"Paris"}`), Session: "conv-1"})
		fmt.Println(res.Status, "-", res.Text())
	}
	// Output:
	// ok - Paris: 48.86, 2.35
	// ok - Paris: 48.86, 2.35
	// limited - The call to geocode did not run: the tool is rate limited (at most 2 calls per minute). Retry after about 30 seconds, or do something else in the meantime.
}
