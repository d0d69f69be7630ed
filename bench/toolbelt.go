package bench

import (
	"context"

	"github.com/toolbelt-go/tool"
)

// openToolbelt calls Registry.Call, the entry point of Toolbelt's pipeline:
// lookup, preflight (strict scan, schema validation), the middlewares,
// the deadline, the tool on its own goroutine, the output cap.
func openToolbelt(mws ...tool.Middleware[struct{}]) func() (func([]byte) call, func(), error) {
	return func() (func([]byte) call, func(), error) {
		reg := tool.NewRegistry[struct{}](nil)
		if err := reg.Add(tool.New(tool.Definition{Name: toolName, Description: toolDesc}, search)); err != nil {
			return nil, nil, err
		}
		reg.Use(mws...)
		prepare := func(args []byte) call {
			req := tool.Request{ID: "1", Name: toolName, Args: args}
			return func(ctx context.Context, text *string) (bool, error) {
				res := reg.Call(ctx, struct{}{}, req)
				if text != nil {
					*text = res.Text()
				}
				return res.IsError, nil
			}
		}
		return prepare, func() {}, nil
	}
}

// approveAll is the approval stage with a policy that allows every call:
// the cost of classifying, asking the policy and sealing the arguments,
// without a person in the loop.
func approveAll() tool.Middleware[struct{}] {
	return tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AllowAllPolicy()})
}
