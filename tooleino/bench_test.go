package tooleino_test

import (
	"context"
	"encoding/json"
	"testing"

	einotool "github.com/cloudwego/eino/components/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooleino"
)

// BenchmarkInvokableRun: a call through tooleino's InvokableRun, against
// the same call through Registry.Call in the same run (the floor of what
// the adapter adds).
func BenchmarkInvokableRun(b *testing.B) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "search", Description: "Searches.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in searchArgs) (string, error) { return "found " + in.Query, nil }))
	ts, err := tooleino.New(reg, nil).Tools()
	if err != nil {
		b.Fatal(err)
	}
	t := ts[0].(einotool.InvokableTool)
	const args = `{"query":"NewRegistry","lang":"go","limit":50}`
	ctx := context.Background()
	b.Run("Registry.Call", func(b *testing.B) {
		req := tool.Request{ID: "1", Name: "search", Args: json.RawMessage(args)}
		b.ReportAllocs()
		for b.Loop() {
			if res := reg.Call(ctx, struct{}{}, req); res.IsError {
				b.Fatal(res.Text())
			}
		}
	})
	b.Run("tooleino", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := t.InvokableRun(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
