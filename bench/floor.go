package bench

import (
	"context"
	"encoding/json"
)

// openFloor is the least any Go tool call costs: decode the arguments into
// the struct, run the function, encode the result. It checks types only: a
// value of the wrong type fails the decode.
func openFloor() (prepare func([]byte) call, closeFn func(), err error) {
	prepare = func(args []byte) call {
		return func(ctx context.Context, text *string) (bool, error) {
			var in searchArgs
			if err := json.Unmarshal(args, &in); err != nil {
				if text != nil {
					*text = err.Error()
				}
				return true, nil
			}
			out, _ := search(ctx, in)
			b, err := json.Marshal(out)
			if err != nil {
				return false, err
			}
			if text != nil {
				*text = string(b)
			}
			return false, nil
		}
	}
	return prepare, func() {}, nil
}
