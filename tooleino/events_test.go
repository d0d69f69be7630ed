package tooleino_test

import (
	"context"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooleino"
	"github.com/toolbelt-go/tool/tooleino/einotest"
)

// TestEvents: with Options.Events, a call's progress and partial output
// reach the adk agent's event stream, for the host's UI, bounded per call;
// the model reads the result alone.
func TestEvents(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(
		tool.New(tool.Definition{Name: "build", Description: "Builds.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, _ struct{}) (string, error) {
				for i := range 3 {
					tool.ReportProgress(ctx, tool.Progress{Message: "step", Done: float64(i + 1), Total: 3})
				}
				tool.ReportPartial(ctx, tool.TextContent("partial"))
				return "built", nil
			}),
		tool.New(tool.Definition{Name: "chatty", Description: "Reports a lot.", Safety: tool.SafetyReadOnly},
			func(ctx context.Context, _ struct{}) (string, error) {
				for range 5000 {
					tool.ReportPartial(ctx, tool.TextContent("x"))
				}
				return "said", nil
			}),
	)
	for _, on := range []bool{false, true} {
		ts, err := tooleino.New(reg, &tooleino.Options[struct{}]{Events: on}).Tools()
		if err != nil {
			t.Fatal(err)
		}
		res, err := einotest.Run(context.Background(), einotest.RunConfig{Tools: ts,
			Model: einotest.NewModel(einotest.Calls(call("c1", "build", `{}`)), einotest.Calls(call("c2", "chatty", `{}`)), einotest.Text("done"))})
		if err != nil {
			t.Fatal(err)
		}
		var progress, partial, chatty, dropped int
		for _, e := range res.Events {
			if e.Output == nil {
				continue
			}
			p, ok := e.Output.CustomizedOutput.(*tooleino.Progress)
			if !ok {
				continue
			}
			switch {
			case p.CallID == "c2":
				chatty++
				dropped += p.Dropped
			case p.Tool != "build":
				t.Errorf("an event of %q", p.Tool)
			case p.Progress != nil:
				progress++
			case len(p.Content) == 1 && p.Content[0].Text == "partial":
				partial++
			}
		}
		if len(res.Outputs) != 2 || res.Outputs[0].Text != "built" || res.Outputs[1].Text != "said" {
			t.Errorf("the model read %+v", res.Outputs)
		}
		switch {
		case !on && progress+partial+chatty > 0:
			t.Errorf("events off: %d progress, %d partial, %d of chatty", progress, partial, chatty)
		case on && (progress == 0 || progress > 3 || partial != 1):
			t.Errorf("events on: %d progress, %d partial", progress, partial)
		case on && (chatty == 0 || chatty > 1024):
			t.Errorf("events on: %d events of 5000 reports, %d counted as dropped", chatty, dropped)
		}
		t.Logf("events %v: %d progress, %d partial, %d of 5000 reports (%d counted as dropped)", on, progress, partial, chatty, dropped)
	}
}
