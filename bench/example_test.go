package bench_test

import (
	"context"
	"fmt"

	"github.com/toolbelt-go/tool/bench"
)

// Every case answers the valid call alike; only some refuse the invalid
// one.
func ExampleSetup_Call() {
	ctx := context.Background()
	for _, c := range bench.Cases() {
		if c.ID != "toolbelt" && c.ID != "eino" {
			continue
		}
		s, err := c.Open()
		if err != nil {
			panic(err)
		}
		text, _, _ := s.Call(ctx, bench.ValidArgs)
		_, refused, _ := s.Call(ctx, bench.InvalidArgs)
		s.Close()
		fmt.Printf("%s: %s; refuses the invalid call: %v\n", c.Framework, text, refused)
	}
	// Output:
	// Toolbelt: {"hits":[{"file":"internal/registry/main.go","line":50}],"total":1}; refuses the invalid call: true
	// Eino: {"hits":[{"file":"internal/registry/main.go","line":50}],"total":1}; refuses the invalid call: false
}
