//go:build linux

package process_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

// A program stopped by a time limit is a timeout, whose message names the
// limit when Run knows it; a cancellation is a cancellation, whose cause
// (host data) the model is not shown.
func TestCommandStopErrors(t *testing.T) {
	const limit = 300 * time.Millisecond
	tests := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		timeout time.Duration
		status  tool.Status
		is      error
		message string
	}{
		{name: "the command's own timeout", ctx: background, timeout: limit, status: tool.StatusTimedOut, is: context.DeadlineExceeded,
			message: "sh ran longer than its 300ms time limit and was stopped"},
		{name: "a tool's time limit", status: tool.StatusTimedOut, is: context.DeadlineExceeded,
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeoutCause(context.Background(), limit, &tool.TimeoutError{Tool: "build", Limit: limit})
			}, message: "sh ran longer than its 300ms time limit and was stopped"},
		{name: "a deadline", status: tool.StatusTimedOut, is: context.DeadlineExceeded,
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), limit)
			}, message: "sh was stopped when its deadline passed, after running "},
		{name: "a cancellation with a cause", status: tool.StatusCanceled, is: context.Canceled,
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancelCause(context.Background())
				time.AfterFunc(limit, func() { cancel(errors.New("operator password hunter2")) })
				return ctx, func() { cancel(nil) }
			}, message: "sh was stopped because the call was cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			c := sh(t, `sleep 30`)
			c.Timeout = tt.timeout
			res, err := process.Run(ctx, c)
			require.ErrorIs(t, err, process.ErrStopped)
			assert.ErrorIs(t, err, tt.is)
			var te *tool.Error
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tt.status, te.Status)
			assert.Contains(t, te.Message, tt.message)
			assert.NotContains(t, te.Message, "hunter2")
			assert.Equal(t, tt.status == tool.StatusTimedOut, res.TimedOut)
			assert.Equal(t, tt.status == tool.StatusCanceled, res.Canceled)
		})
	}
}

func background() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// ShellArgs are the arguments of a shell tool that takes its time limit
// from the model.
type ShellArgs struct {
	Command        string  `json:"command"`
	TimeoutSeconds float64 `json:"timeout_seconds" jsonschema:"minimum=0.1,maximum=60"`
}

// A tool that stops its program on a limit taken from its arguments ends
// TimedOut, not Failed, and the model is told the limit.
func TestCommandTimeoutFromArguments(t *testing.T) {
	env := marked(t)
	shell := tool.New(tool.Definition{Name: "shell", Description: "Runs a command.", Timeout: time.Minute},
		func(ctx context.Context, in ShellArgs) (string, error) {
			res, err := process.Run(ctx, process.Command{Path: "sh", Args: []string{"-c", in.Command}, Env: env,
				Timeout: time.Duration(in.TimeoutSeconds * float64(time.Second)), KillGrace: 100 * time.Millisecond})
			if err != nil {
				return "", err
			}
			return res.Stdout, nil
		})
	r := registryWith(t, nil, shell)
	res := tooltest.NewConversation(t, r, struct{}{}, nil).Call("shell", `{"command":"sleep 30","timeout_seconds":0.3}`)
	assert.Equal(t, tool.StatusTimedOut, res.Status)
	assert.Contains(t, res.Text(), "sh ran longer than its 300ms time limit and was stopped")
	assert.ErrorIs(t, res.Err, context.DeadlineExceeded)

	res = tooltest.NewConversation(t, r, struct{}{}, nil).Call("shell", `{"command":"echo quick","timeout_seconds":5}`)
	assert.Equal(t, tool.StatusOK, res.Status)
	assert.Equal(t, "quick\n", res.Text())
}
