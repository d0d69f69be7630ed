package promises

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolbelt-go/tool"
)

// frontend is one way a call arrives at the registry and its result goes
// back to the model.
type frontend struct {
	name string
	// callIDs says the model's own call IDs reach the registry, so that a
	// repeated ID is answered from its record.
	callIDs bool
	// resumes says the host's own code gets a pending approval back and
	// resumes the call with the answer.
	resumes bool
	// clientCanAsk says an MCP client is on the other end and can be asked
	// by toolmcp.Approver.
	clientCanAsk bool
	// einoCanAsk says the call runs in an Eino agent, whose interrupt
	// tooleino.Approver asks through.
	einoCanAsk bool
	// adkCanAsk says the call runs in an ADK agent, whose tool
	// confirmation tooladk.Approver asks through.
	adkCanAsk bool
	// mechanism names the frontend's own way of asking a person, "" if it
	// has none.
	mechanism string
	// call makes one call through the frontend, in w's session, and
	// returns what the model reads of it.
	call func(t *testing.T, w *world, id, name, args string) outcome
}

func frontends() []frontend {
	fs := []frontend{
		{name: "Registry.Call", callIDs: true, resumes: true, call: direct},
		{name: "CallBatch", callIDs: true, resumes: true, call: batch},
		taskFrontend(),
	}
	fs = append(fs, mcpFrontends()...)
	fs = append(fs, einoFrontends()...)
	fs = append(fs, adkFrontends()...)
	return append(fs, providerFrontends()...)
}

func direct(t *testing.T, w *world, id, name, args string) outcome {
	req := tool.Request{ID: id, Name: name, Args: json.RawMessage(args), Session: w.session}
	return one(w.resume(req, w.a.Call(context.Background(), struct{}{}, req)))
}

func batch(t *testing.T, w *world, id, name, args string) outcome {
	req := tool.Request{ID: id, Name: name, Args: json.RawMessage(args), Session: w.session}
	results := w.a.CallBatch(context.Background(), struct{}{}, []tool.Request{req}, nil)
	if len(results) != 1 {
		return outcome{results: len(results)}
	}
	return one(w.resume(req, results[0]))
}

func one(res *tool.Result) outcome {
	return outcome{results: 1, isError: res.IsError, text: res.Text()}
}

// resume is the host's own code after a call: a call its approver
// deferred to it is answered by the person and resumed, on the other
// replica, with the arguments the person was shown (an edit of another
// kind is deferred again, for the edited arguments).
func (w *world) resume(req tool.Request, res *tool.Result) *tool.Result {
	var sent *tool.Request
	for range 4 {
		if res.Status != tool.StatusAwaitingApproval || res.Pending == nil || res.Pending.Answerer != hostAnswerer {
			return res
		}
		if w.resend && sent != nil {
			w.a.Call(context.Background(), struct{}{}, *sent) // the last answer, sent again late
		}
		p := res.Pending
		a := w.person.answer(string(p.Request.Args))
		req.Args = p.Request.Args
		req.Approval = &tool.ApprovalAnswer{State: p.State, Decision: a.decision(), Answerer: hostAnswerer}
		sent = &req
		res = w.b.Call(context.Background(), struct{}{}, req)
	}
	return res
}
