package promises

import (
	"context"
	"testing"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/session"
	adktool "google.golang.org/adk/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooladk"
	"github.com/toolbelt-go/tool/tooladk/adktest"
)

// adkFrontends are Google ADK's runner: an llmagent whose model is
// scripted to make the call, the registry's tools given to it by tooladk.
// A question ADK's tool confirmation puts is answered by the person, when
// the host chose ADK's confirmation, and the answer reaches the other
// replica, which shares the ADK session service, and resumes the call
// there.
func adkFrontends() []frontend {
	return []frontend{{name: "ADK runner", callIDs: true, adkCanAsk: true, mechanism: "ADK's tool confirmation", call: adkRunner}}
}

func adkRunner(t *testing.T, w *world, id, name, args string) outcome {
	ctx := context.Background()
	sessions := session.InMemoryService() // the session store both replicas share
	toolset := func(reg *tool.Registry[struct{}]) []adktool.Toolset {
		return []adktool.Toolset{tooladk.New(reg, &tooladk.Options[struct{}]{Session: func(agent.ToolContext) string { return w.session }})}
	}
	first := adktest.NewRunner(adktest.Config{Toolsets: toolset(w.a), Sessions: sessions})
	other := adktest.NewRunner(adktest.Config{Toolsets: toolset(w.b), Sessions: sessions, SessionID: first.SessionID})
	turn, err := first.Run(ctx, adktest.Call(id, name, args))
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		c := turn.Confirmation()
		if c == nil {
			break
		}
		q, _, err := adktest.Question(c)
		if err != nil {
			t.Fatal(err)
		}
		d := tool.Decision{Kind: tool.DecisionAllowOnce}
		if w.adkChosen {
			d = w.person.answer(q.Hint).decision()
		} else {
			w.elsewhere.Add(1)
		}
		confirmed, payload, ok := adktest.Answer(d)
		if !ok {
			t.Fatalf("ADK's confirmation cannot carry %v", d.Kind)
		}
		if turn, err = other.Confirm(ctx, c, confirmed, payload); err != nil {
			t.Fatal(err)
		}
	}
	results := 0
	for _, ev := range turn.Events {
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			if p.FunctionResponse != nil && p.FunctionResponse.ID == id {
				results++
			}
		}
	}
	resp := turn.Response(id)
	if msg, ok := resp["error"].(string); ok {
		return outcome{results: results, isError: true, text: msg}
	}
	text, _ := resp["output"].(string)
	return outcome{results: results, text: text}
}
