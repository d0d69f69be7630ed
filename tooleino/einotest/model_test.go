package einotest

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestModel: the model answers with its script, records each request with
// the tool results it carries, and refuses what a provider refuses.
func TestModel(t *testing.T) {
	call := Call{ID: "c1", Name: "t", Arguments: `{}`}
	asked := []*schema.Message{schema.UserMessage("go")}
	called := append(asked, schema.AssistantMessage("", []schema.ToolCall{{ID: "c1", Function: schema.FunctionCall{Name: "t", Arguments: `{}`}}}))
	for _, tc := range []struct {
		name    string
		turns   []Turn
		input   []*schema.Message
		refused string
		calls   int
		text    string
		outputs int
	}{
		{name: "calls", turns: []Turn{Calls(call)}, input: asked, calls: 1},
		{name: "text after a result", turns: []Turn{Text("done")}, input: append(called, schema.ToolMessage("ok", "c1")), text: "done", outputs: 1},
		{name: "a reply made from the request", turns: []Turn{Func(func(r Request) Turn { return Text(r.Outputs[0].Text) })},
			input: append(called, schema.ToolMessage("from the tool", "c1")), text: "from the tool", outputs: 1},
		{name: "a call left unanswered", turns: []Turn{Text("done")}, input: called, refused: `"c1" was not answered`},
		{name: "an answer to no call", turns: []Turn{Text("done")}, input: append(asked, schema.ToolMessage("ok", "c9")), refused: `answers "c9"`, outputs: 1},
		{name: "an answer twice", turns: []Turn{Text("done")},
			input: append(called, schema.ToolMessage("ok", "c1"), schema.ToolMessage("ok", "c1")), refused: `answers "c1"`, outputs: 2},
		{name: "the script done", input: asked, refused: "no more turns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewModel(tc.turns...)
			bound, _ := m.WithTools([]*schema.ToolInfo{{Name: "t"}})
			msg, err := bound.Generate(context.Background(), tc.input)
			reqs := m.Requests()
			if len(reqs) != 1 || len(reqs[0].Tools) != 1 || len(reqs[0].Outputs) != tc.outputs {
				t.Fatalf("requests %+v", reqs)
			}
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) || reqs[0].Refused != err.Error() {
					t.Errorf("err %v, recorded %q; want %q", err, reqs[0].Refused, tc.refused)
				}
				return
			}
			if err != nil || len(msg.ToolCalls) != tc.calls || msg.Content != tc.text {
				t.Errorf("answered %+v, %v", msg, err)
			}
		})
	}
}
