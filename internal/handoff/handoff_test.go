package handoff_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/internal/handoff"
)

// run is a Runner that records the goroutine it ran on.
type run struct {
	job    handoff.Job
	ran    atomic.Bool
	goexit bool
}

func (r *run) Run() {
	if r.goexit {
		defer r.job.Finish() // what a runner that may Goexit must do
		r.ran.Store(true)
		runtime.Goexit()
	}
	r.ran.Store(true)
}

func TestJobEnds(t *testing.T) {
	for _, tt := range []struct {
		name   string
		goexit bool
	}{{"returns", false}, {"exits its goroutine", true}} {
		t.Run(tt.name, func(t *testing.T) {
			for range 100 { // hot worker, pooled workers, new goroutines
				r := &run{goexit: tt.goexit}
				if !r.job.Start(r) || !r.job.SpinWait() {
					select {
					case <-r.job.Done():
					case <-time.After(10 * time.Second):
						require.Fail(t, "the job never ended")
					}
				}
				assert.True(t, r.ran.Load())
			}
		})
	}
}

func TestGo(t *testing.T) {
	done := make(chan struct{})
	handoff.Go(func() { close(done) })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		require.Fail(t, "Go never ran f")
	}
	assert.False(t, handoff.InBubble(), "the real clock is not a bubble's")
}
