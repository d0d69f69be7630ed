package toolredis

import (
	"context"
	"fmt"
)

// run runs op against Redis and returns when it does, when ctx is done, or
// when the configured timeout passes, whichever comes first.
//
// op runs on a goroutine of its own: go-redis honours a context's deadline
// on the socket only when the client was built with ContextTimeoutEnabled,
// and otherwise waits up to its ReadTimeout (3 s by default, or for ever
// if set so) for a Redis that stopped answering. The stores promise to
// return when ctx is done whatever client they were given; an operation
// given up on finishes, or fails, on its own by the client's timeouts.
func run[T any](ctx context.Context, c *config, what string, op func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	if ctx.Err() != nil {
		return zero, fmt.Errorf("toolredis: %s: %w", what, ctxErr(ctx))
	}
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1) // buffered: an operation given up on never blocks
	go func() {
		v, err := op(ctx)
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			return zero, fmt.Errorf("toolredis: %s: %w", what, a.err)
		}
		return a.v, nil
	case <-ctx.Done():
		return zero, fmt.Errorf("toolredis: %s: %w", what, ctxErr(ctx))
	}
}

// ctxErr is why ctx is done: its error, and its cause when that says more,
// so that errors.Is finds context.Canceled or DeadlineExceeded either way.
func ctxErr(ctx context.Context) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause == nil || cause == err {
		return err
	}
	return fmt.Errorf("%w: %w", err, cause)
}
