//go:build linux

package process_test

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/tooltest"
)

// blockingReader blocks in Read until released, as a network stream with
// nothing to say does; it cannot be closed.
type blockingReader struct {
	release chan struct{}
	reading atomic.Int32 // Reads in progress
}

func (r *blockingReader) Read([]byte) (int, error) {
	r.reading.Add(1)
	defer r.reading.Add(-1)
	<-r.release
	return 0, io.EOF
}

// within runs f and fails the test if it does not return within d, rather
// than hanging the test binary.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not return within %v", d)
	}
}

// A Stdin whose Read blocks does not keep Run from returning, whether the
// program exits without reading it, reads it until a timeout, or ignores
// it until cancelled. A reader that is an io.Closer is closed, which ends
// the copying; one that is not keeps one goroutine in Read until it
// returns.
func TestCommandStdinThatBlocks(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		timeout time.Duration
		wantErr error
	}{
		{"the program exits without reading", `echo done`, 0, nil},
		{"the program reads until its timeout", `cat; echo never`, 300 * time.Millisecond, context.DeadlineExceeded},
		{"the program ignores it until its timeout", `sleep 30`, 300 * time.Millisecond, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/closer", func(t *testing.T) {
			pr, pw := io.Pipe()
			c := sh(t, tt.script)
			c.Stdin, c.Timeout = pr, tt.timeout
			within(t, 5*time.Second, func() {
				_, err := process.Run(context.Background(), c)
				assert.ErrorIs(t, err, tt.wantErr)
			})
			// The reader was closed: a writer learns that nobody reads.
			_, err := pw.Write([]byte("late"))
			assert.ErrorIs(t, err, io.ErrClosedPipe)
		})
		t.Run(tt.name+"/not a closer", func(t *testing.T) {
			r := &blockingReader{release: make(chan struct{})}
			c := sh(t, tt.script)
			c.Stdin, c.Timeout = r, tt.timeout
			within(t, 5*time.Second, func() {
				_, err := process.Run(context.Background(), c)
				assert.ErrorIs(t, err, tt.wantErr)
			})
			// The one goroutine left is in Read; released, it ends.
			assert.Eventually(t, func() bool { return r.reading.Load() == 1 }, 2*time.Second, 5*time.Millisecond)
			close(r.release)
			assert.Eventually(t, func() bool { return r.reading.Load() == 0 }, 2*time.Second, 5*time.Millisecond)
		})
	}
	t.Run("a program that reads slowly gets all of it", func(t *testing.T) {
		c := sh(t, `sleep 0.2; wc -c | tr -d ' '`)
		c.Stdin = strings.NewReader(strings.Repeat("x", 1<<20)) // more than a pipe holds
		res, err := process.Run(context.Background(), c)
		require.NoError(t, err)
		assert.Equal(t, "1048576\n", res.Stdout)
	})
}

// Through a registry, a tool whose program waits on a blocked Stdin ends
// with its timeout and is not abandoned.
func TestCommandStdinThatBlocksInARegistry(t *testing.T) {
	env := marked(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	feed := tool.New(tool.Definition{Name: "feed", Description: "Feeds a program.", Timeout: 300 * time.Millisecond},
		func(ctx context.Context, _ struct{}) (string, error) {
			res, err := process.Run(ctx, process.Command{Path: "cat", Stdin: pr, Env: env, KillGrace: 100 * time.Millisecond})
			if err != nil {
				return "", err
			}
			return res.Stdout, nil
		})
	r := registryWith(t, nil, feed)
	var res *tool.Result
	within(t, 5*time.Second, func() { res = tooltest.NewConversation(t, r, struct{}{}, nil).Call("feed", `{}`) })
	assert.Equal(t, tool.StatusTimedOut, res.Status, res.Text())
	assert.Zero(t, r.Stats().Abandoned)
}
