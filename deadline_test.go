package tool_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// sleeper waits for d or for its context, as a well-behaved tool does.
func sleeper(name string, timeout, d time.Duration) tool.AnyTool {
	return tool.New(tool.Definition{Name: name, Description: "Sleeps.", Timeout: timeout},
		func(ctx context.Context, _ noArgs) (string, error) {
			select {
			case <-time.After(d):
				return "slept", nil
			case <-ctx.Done():
				return "", context.Cause(ctx)
			}
		})
}

// stubborn ignores its context and sleeps for d.
func stubborn(name string, timeout, d time.Duration) tool.AnyTool {
	return tool.New(tool.Definition{Name: name, Description: "Ignores its context.", Timeout: timeout},
		func(ctx context.Context, _ noArgs) (string, error) {
			time.Sleep(d)
			return "done at last", nil
		})
}

func TestDeadlines(t *testing.T) {
	tests := []struct {
		name       string
		tool       tool.AnyTool
		opts       tool.RegistryOptions
		ctx        func() (context.Context, context.CancelFunc)
		want       tool.Status
		wantText   []string
		wantTook   time.Duration
		abandoned  bool
		timeoutErr bool
	}{
		{name: "finishes within its limit", tool: sleeper("t", time.Second, 500*time.Millisecond),
			want: tool.StatusOK, wantText: []string{"slept"}, wantTook: 500 * time.Millisecond},
		{name: "own timeout", tool: sleeper("t", time.Second, time.Hour),
			want: tool.StatusTimedOut, wantText: []string{"timed out", "longer than its 1s time limit", "ask for less"}, wantTook: time.Second, timeoutErr: true},
		{name: "registry default", tool: sleeper("t", 0, time.Hour), opts: tool.RegistryOptions{DefaultTimeout: 3 * time.Second},
			want: tool.StatusTimedOut, wantText: []string{"3s time limit"}, wantTook: 3 * time.Second, timeoutErr: true},
		{name: "package default", tool: sleeper("t", 0, time.Hour),
			want: tool.StatusTimedOut, wantText: []string{"2m0s time limit"}, wantTook: tool.DefaultTimeout, timeoutErr: true},
		{name: "no default limit", tool: sleeper("t", 0, time.Hour), opts: tool.RegistryOptions{DefaultTimeout: -1},
			want: tool.StatusOK, wantTook: time.Hour},
		{name: "caller deadline", tool: sleeper("t", time.Hour, time.Hour),
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), time.Second)
			},
			want: tool.StatusTimedOut, wantText: []string{"caller's deadline"}, wantTook: time.Second},
		{name: "caller cancels", tool: sleeper("t", time.Hour, time.Hour),
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(2*time.Second, cancel)
				return ctx, cancel
			},
			want: tool.StatusCanceled, wantText: []string{"was cancelled", "may have done part"}, wantTook: 2 * time.Second},
		{name: "caller cancels with a cause", tool: sleeper("t", time.Hour, time.Hour),
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancelCause(context.Background())
				time.AfterFunc(time.Second, func() { cancel(errors.New("user pressed stop")) })
				return ctx, func() { cancel(nil) }
			},
			want: tool.StatusCanceled, wantText: []string{"was cancelled"}, wantTook: time.Second},
		{name: "ignores its context: abandoned after the grace", tool: stubborn("t", time.Second, time.Hour),
			opts: tool.RegistryOptions{Grace: 500 * time.Millisecond},
			want: tool.StatusTimedOut, wantText: []string{"did not stop when asked", "may still be running"},
			wantTook: 1500 * time.Millisecond, abandoned: true, timeoutErr: true},
		{name: "ignores its context: default grace", tool: stubborn("t", time.Second, time.Hour),
			want: tool.StatusTimedOut, wantTook: time.Second + tool.DefaultGrace, abandoned: true, timeoutErr: true},
		{name: "ignores its context but returns within the grace", tool: stubborn("t", time.Second, 1500*time.Millisecond),
			want: tool.StatusTimedOut, wantText: []string{"may have done part"}, wantTook: 1500 * time.Millisecond, timeoutErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := registryWith(t, &tt.opts, tt.tool)
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				if tt.ctx != nil {
					ctx, cancel = tt.ctx()
				}
				defer cancel()
				start := time.Now()
				res := r.Call(ctx, struct{}{}, tool.Request{Name: "t"})
				took := time.Since(start)

				tooltest.WantStatus(t, res, tt.want)
				tooltest.WantTextContains(t, res, tt.wantText...)
				assert.Equal(t, tt.wantTook, took, "the call returned after %v", took)
				assert.Equal(t, tt.abandoned, errors.Is(res.Err, tool.ErrAbandoned), "abandoned: %v", res.Err)
				var te *tool.TimeoutError
				assert.Equal(t, tt.timeoutErr, errors.As(res.Err, &te), "cause: %v", res.Err)
				if tt.timeoutErr {
					assert.ErrorIs(t, res.Err, context.DeadlineExceeded)
				}
				if tt.abandoned {
					assert.Equal(t, tool.Stats{Abandoned: 1, AbandonedRunning: 1}, r.Stats())
					time.Sleep(2 * time.Hour) // the stubborn tool ends
					synctest.Wait()
					assert.Equal(t, tool.Stats{Abandoned: 1, AbandonedRunning: 0}, r.Stats())
				} else {
					assert.Equal(t, tool.Stats{}, r.Stats())
				}
			})
		})
	}
}

// A call cancelled as the tool succeeds never reports success.
func TestCancelledCallNeverSucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		r := registryWith(t, nil, tool.New(tool.Definition{Name: "t", Description: "Succeeds as it is cancelled."},
			func(ctx context.Context, _ noArgs) (string, error) {
				cancel()
				<-ctx.Done()
				return "all done", nil
			}))
		res := r.Call(ctx, struct{}{}, tool.Request{Name: "t"})
		tooltest.WantStatus(t, res, tool.StatusCanceled)
		assert.NotContains(t, res.Text(), "all done")
	})
}

func TestIdleTimeout(t *testing.T) {
	working := tool.New(tool.Definition{Name: "working", Description: "Reports progress.", IdleTimeout: time.Second, Timeout: time.Minute},
		func(ctx context.Context, _ noArgs) (string, error) {
			for i := range 20 {
				time.Sleep(500 * time.Millisecond)
				tool.ReportProgress(ctx, tool.Progress{Done: float64(i + 1), Total: 20})
			}
			return "done", ctx.Err()
		})
	silent := tool.New(tool.Definition{Name: "silent", Description: "Reports nothing.", IdleTimeout: time.Second, Timeout: time.Minute},
		func(ctx context.Context, _ noArgs) (string, error) {
			time.Sleep(500 * time.Millisecond)
			tool.ReportProgress(ctx, tool.Progress{Message: "one step"})
			<-ctx.Done()
			return "", ctx.Err()
		})
	forever := tool.New(tool.Definition{Name: "forever", Description: "Reports progress forever.", IdleTimeout: time.Second, Timeout: 5 * time.Second},
		func(ctx context.Context, _ noArgs) (string, error) {
			for {
				select {
				case <-time.After(100 * time.Millisecond):
					tool.ReportProgress(ctx, tool.Progress{})
				case <-ctx.Done():
					return "", ctx.Err()
				}
			}
		})
	synctest.Test(t, func(t *testing.T) {
		r := registryWith(t, nil, working, silent, forever)

		start := time.Now()
		tooltest.WantOK(t, call(r, "working", ""))
		assert.Equal(t, 10*time.Second, time.Since(start), "progress extends the idle limit")

		start = time.Now()
		res := call(r, "silent", "")
		tooltest.WantStatus(t, res, tool.StatusTimedOut)
		tooltest.WantTextContains(t, res, "no progress for 1s")
		assert.Equal(t, 1500*time.Millisecond, time.Since(start))

		start = time.Now()
		res = call(r, "forever", "")
		tooltest.WantTextContains(t, res, "5s time limit")
		assert.Equal(t, 5*time.Second, time.Since(start), "Timeout caps the call however much progress it reports")
	})
}

// Wrap on its own applies the deadline stage too.
func TestWrapAppliesTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := tool.Wrap(tool.Adapt[struct{}](sleeper("t", time.Second, time.Hour)))
		start := time.Now()
		res, err := w.Run(context.Background(), &tool.Call[struct{}]{Name: "t"})
		require.NoError(t, err)
		tooltest.WantStatus(t, res, tool.StatusTimedOut)
		assert.Equal(t, time.Second, time.Since(start))
	})
}

func TestNegativeTimeoutIsRejected(t *testing.T) {
	r := tool.NewRegistry[struct{}](nil)
	err := r.Add(sleeper("t", -time.Second, 0))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must not be negative")
}

func TestCancellation(t *testing.T) {
	started := make(chan struct{})
	slow := tool.New(tool.Definition{Name: "slow", Description: "waits"}, func(ctx context.Context, _ noArgs) (string, error) {
		close(started)
		<-ctx.Done()
		return "finished anyway", nil // a tool that ignores the cancellation in its result
	})
	r := newRegistry(t, slow)

	t.Run("before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res := r.Call(ctx, struct{}{}, tool.Request{Name: "slow", Args: []byte(`{}`)})
		assert.Equal(t, tool.StatusCanceled, res.Status)
		assert.Contains(t, res.Text(), "before it started")
	})
	t.Run("during the call never reports success", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() { <-started; cancel(errors.New("user pressed stop")) }()
		res := r.Call(ctx, struct{}{}, tool.Request{Name: "slow", Args: []byte(`{}`)})
		assert.Equal(t, tool.StatusCanceled, res.Status)
		assert.True(t, res.IsError)
		assert.NotContains(t, res.Text(), "user pressed stop", "the host's cause is host data")
		assert.EqualError(t, res.Err, "user pressed stop", "the host view has it")
		assert.NotContains(t, res.Text(), "finished anyway")
	})
	t.Run("deadline is a timeout", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
		defer cancel()
		<-ctx.Done()
		res := r.Call(ctx, struct{}{}, tool.Request{Name: "slow", Args: []byte(`{}`)})
		assert.Equal(t, tool.StatusTimedOut, res.Status)
	})
}
