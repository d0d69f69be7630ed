package promises

import (
	"context"
	"testing"

	einotool "github.com/cloudwego/eino/components/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooleino"
	"github.com/toolbelt-go/tool/tooleino/einotest"
)

// einoFrontends are the agent frameworks' runners: an Eino ChatModelAgent
// under Eino's Runner, its model scripted to make the call, the registry's
// tools given to it by tooleino. A question the run is interrupted with is
// answered by the person, when the host chose Eino's interrupt, and the
// run is resumed from its checkpoint on the other replica.
func einoFrontends() []frontend {
	return []frontend{{name: "Eino Runner", callIDs: true, einoCanAsk: true, mechanism: "Eino's interrupt", call: einoRunner}}
}

func einoRunner(t *testing.T, w *world, id, name, args string) outcome {
	tools := func(reg *tool.Registry[struct{}]) []einotool.BaseTool {
		ts, err := tooleino.New(reg, nil).Tools()
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	res, err := einotest.Run(context.Background(), einotest.RunConfig{
		Tools: tools(w.a), ResumeTools: tools(w.b), Session: w.session,
		Call: einotest.Call{ID: id, Name: name, Arguments: args},
		Answer: func(q *tooleino.Question) tool.Decision {
			if !w.einoChosen {
				w.elsewhere.Add(1)
				return tool.Decision{Kind: tool.DecisionAllowOnce}
			}
			return w.person.answer(string(q.Request.Args)).decision()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var outs []einotest.Output
	for _, o := range res.Outputs {
		if o.CallID == id {
			outs = append(outs, o)
		}
	}
	if len(outs) != 1 {
		return outcome{results: len(outs)}
	}
	return outcome{results: 1, text: outs[0].Text}
}
