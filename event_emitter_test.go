package tool_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// A slow observer delays neither the tool nor the order of events, and
// keeps memory bounded: progress merges while it lags.
func TestSlowObserverDoesNotStallTheTool(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got []tool.Event
	obs := tool.ObserverFunc(func(e tool.Event) {
		if e.Kind == tool.EventProgress {
			<-release
		}
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	})
	toolDone := make(chan struct{})
	tl := tool.New(tool.Definition{Name: "work", Description: "Reports a lot."},
		func(ctx context.Context, _ noArgs) (string, error) {
			for i := range 100_000 {
				tool.ReportProgress(ctx, tool.Progress{Done: float64(i + 1), Total: 100_000})
				if i%1000 == 0 {
					tool.ReportPartial(ctx, tool.TextContent("x"))
				}
			}
			close(toolDone)
			return "done", nil
		})
	r := registryWith(t, &tool.RegistryOptions{Observer: obs}, tl)
	resc := make(chan *tool.Result)
	go func() { resc <- r.Call(context.Background(), struct{}{}, tool.Request{ID: "s", Name: "work"}) }()

	select {
	case <-toolDone: // the tool finished while the observer was stuck
	case <-time.After(10 * time.Second):
		require.Fail(t, "the tool was stalled by the observer")
	}
	select {
	case <-resc:
		require.Fail(t, "Call returned before its finished event was observed")
	default:
	}
	close(release)
	res := <-resc
	tooltest.WantOK(t, res)

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, got)
	assert.Equal(t, tool.EventStarted, got[0].Kind)
	last := got[len(got)-1]
	assert.Equal(t, tool.EventFinished, last.Kind)
	assert.Less(t, len(got), 400, "pending events are bounded")
	dropped, progress := 0, 0.0
	for _, e := range got {
		dropped += e.Dropped
		if e.Kind == tool.EventProgress {
			assert.Greater(t, e.Progress.Done, progress, "progress goes forward")
			progress = e.Progress.Done
		}
	}
	assert.Equal(t, 100_000.0, progress, "the observer sees the latest progress")
	assert.Equal(t, 100_000+100-len(got)+2, dropped, "every event is either delivered or counted as dropped")
}
