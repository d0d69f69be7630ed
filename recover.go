package tool

import "context"

// recoverStage turns a panic in any stage below it, the host's middlewares
// included, into a Panicked result. The tool itself runs on a goroutine of
// its own, where the run stage catches its panics (run.go).
func recoverStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) (res *Result) {
		defer func() {
			if p := recover(); p != nil {
				res = panicResult(call.Name, p, false)
			}
		}()
		return next(ctx, call)
	}
}
