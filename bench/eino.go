package bench

import (
	"context"

	"github.com/cloudwego/eino/components/tool/utils"
)

// openEino calls InvokableRun of a tool made by utils.InferTool: the
// arguments string decoded into the struct with sonic, the function, the
// result encoded with sonic. InferTool reads the same struct tags as
// Toolbelt for the schema it shows the model, but never validates arguments
// against it: a wrong type fails the decode, nothing else is checked.
func openEino() (func([]byte) call, func(), error) {
	t, err := utils.InferTool(toolName, toolDesc, search)
	if err != nil {
		return nil, nil, err
	}
	prepare := func(args []byte) call {
		s := string(args) // eino takes the model's arguments as a string
		return func(ctx context.Context, text *string) (bool, error) {
			out, err := t.InvokableRun(ctx, s)
			if text != nil {
				*text = out
				if err != nil {
					*text = err.Error()
				}
			}
			return err != nil, nil
		}
	}
	return prepare, func() {}, nil
}
