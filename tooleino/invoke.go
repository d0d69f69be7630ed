package tooleino

import (
	"context"
	"fmt"

	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/toolbelt-go/tool"
)

// einoTool is one tool of the registry as Eino runs it.
type einoTool[C any] struct {
	a    *Adapter[C]
	name string // the registry's name
	sent string // the name the model was shown
}

// Info is the tool as the model is shown it: its name, description and
// input schema (in the dialect of Options.Target, if set).
func (t *einoTool[C]) Info(context.Context) (*schema.ToolInfo, error) {
	d, err := t.a.definition(t.name)
	if err != nil {
		return nil, err
	}
	return toolInfo(d)
}

// InvokableRun makes one call through the registry's pipeline and returns
// what the model reads: the result's text, a failure included (an invalid
// call's retry hint, a denial), so that the run goes on and the model can
// act on it. It returns an error only for an approval question, as
// Eino's interrupt (see Approver), and for a host state that could not be
// made (Options.State).
func (t *einoTool[C]) InvokableRun(ctx context.Context, args string, _ ...einotool.Option) (string, error) {
	a := t.a
	state, err := a.state(ctx)
	if err != nil {
		return "", fmt.Errorf("tooleino: the host state for a call of %s: %w", t.name, err)
	}
	req := a.request(compose.GetToolCallID(ctx), t.sent, args)
	req.Session = a.session(ctx)
	if was, ok, st := einotool.GetInterruptState[*interrupted](ctx); was && ok && st != nil {
		target, has, data := einotool.GetResumeContext[any](ctx)
		if !target || !has {
			// Another question of the run was answered, or the run was
			// resumed without answering this one: it is asked again.
			return "", einotool.StatefulInterrupt(ctx, st.Question, st)
		}
		d, err := decisionOf(data)
		if err != nil {
			return "", err
		}
		if args == st.Sent {
			// The call as it was asked about: with the arguments shown,
			// which an edit asked about again changed.
			req.Name, req.Args, req.NullMeansAbsent = st.Tool, st.Args, false
		}
		req.Approval = &tool.ApprovalAnswer{State: st.State, Decision: d, Answerer: Answerer}
	}
	if a.opts.Events {
		var stop func()
		req.Observer, stop = forward(ctx)
		defer stop()
	}
	res := a.reg.Call(viaEino(ctx), state, req)
	if res.Status == tool.StatusAwaitingApproval && res.Pending != nil {
		p := res.Pending
		if p.Answerer != Answerer {
			// Deferred to someone this run can neither ask nor wait for.
			return notRelayed(res.Tool), nil
		}
		q := &Question{Request: p.Request, Expires: p.Expires}
		return "", einotool.StatefulInterrupt(ctx, q, &interrupted{State: p.State, Tool: res.Tool, Args: p.Request.Args, Sent: args, Question: q})
	}
	return res.Text(), nil
}
