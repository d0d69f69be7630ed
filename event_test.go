package tool_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func progressTool(steps int) tool.AnyTool {
	return tool.New(tool.Definition{Name: "work", Description: "Works in steps."},
		func(ctx context.Context, _ noArgs) (string, error) {
			for i := range steps {
				tool.ReportProgress(ctx, tool.Progress{Message: "step " + strconv.Itoa(i+1), Done: float64(i + 1), Total: float64(steps)})
			}
			return "done", nil
		})
}

func TestEventsInOrder(t *testing.T) {
	rec := &tooltest.Recorder{}
	stream := tool.New(tool.Definition{Name: "stream", Description: "Streams."},
		func(ctx context.Context, _ noArgs) (string, error) {
			tool.ReportPartial(ctx, tool.TextContent("hel"))
			tool.ReportPartial(ctx, tool.TextContent("lo\x1b[31m"))
			return "hello", nil
		})
	r := registryWith(t, &tool.RegistryOptions{Observer: rec}, progressTool(3), stream)

	res := r.Call(context.Background(), struct{}{}, tool.Request{ID: "a", Name: "work"})
	tooltest.WantOK(t, res)
	assert.Equal(t, "started progress progress progress finished", rec.Kinds("a"))
	evs := rec.EventsOf("a")
	assert.Equal(t, tool.Progress{Message: "step 2", Done: 2, Total: 3}, evs[2].Progress)
	assert.Same(t, res, evs[4].Result, "the finished event carries the call's result")
	for _, e := range evs {
		assert.Equal(t, "work", e.Tool)
		assert.False(t, e.Time.IsZero())
	}

	r.Call(context.Background(), struct{}{}, tool.Request{ID: "b", Name: "stream"})
	assert.Equal(t, "started partial partial finished", rec.Kinds("b"))
	assert.Equal(t, `lo\x1b[31m`, rec.EventsOf("b")[2].Content[0].Text, "partial content is escaped like the model view")

	r.Call(context.Background(), struct{}{}, tool.Request{ID: "c", Name: "nope"})
	assert.Equal(t, "started finished", rec.Kinds("c"), "an unknown tool still gets its two events")
	r.Call(context.Background(), struct{}{}, tool.Request{ID: "d", Name: "work", Args: []byte(`{"x":1}`)})
	assert.Equal(t, "started finished", rec.Kinds("d"), "invalid arguments: the tool never ran")
	rec.WantWellFormed(t)
}

// An abandoned tool that reports progress after its call ended emits
// nothing after the finished event.
func TestNoEventAfterFinished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &tooltest.Recorder{}
		tl := tool.New(tool.Definition{Name: "late", Description: "Reports late.", Timeout: time.Second},
			func(ctx context.Context, _ noArgs) (string, error) {
				time.Sleep(time.Hour)
				tool.ReportProgress(ctx, tool.Progress{Message: "still here"})
				tool.ReportPartial(ctx, tool.TextContent("late"))
				return "late", nil
			})
		r := registryWith(t, &tool.RegistryOptions{Observer: rec, Grace: time.Second}, tl)
		res := r.Call(context.Background(), struct{}{}, tool.Request{ID: "l", Name: "late"})
		tooltest.WantStatus(t, res, tool.StatusTimedOut)
		time.Sleep(2 * time.Hour)
		synctest.Wait()
		assert.Equal(t, "started finished", rec.Kinds("l"))
	})
}

func TestObserverPanicIsContained(t *testing.T) {
	obs := tool.ObserverFunc(func(e tool.Event) { panic("observer bug") })
	r := registryWith(t, &tool.RegistryOptions{Observer: obs}, progressTool(5))
	tooltest.WantOK(t, call(r, "work", ""))
}

// Concurrent calls each get exactly one terminal event, last.
func TestConcurrentCallsWellFormed(t *testing.T) {
	rec := &tooltest.Recorder{}
	r := registryWith(t, &tool.RegistryOptions{Observer: rec}, progressTool(50))
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			r.Call(context.Background(), struct{}{}, tool.Request{ID: strconv.Itoa(i), Name: "work"})
		})
	}
	wg.Wait()
	rec.WantWellFormed(t)
	finished := 0
	for _, e := range rec.Events() {
		if e.Kind == tool.EventFinished {
			finished++
		}
	}
	assert.Equal(t, 50, finished)
}

func TestEventKindString(t *testing.T) {
	assert.Equal(t, "approval_requested", tool.EventApprovalRequested.String())
	assert.Equal(t, "EventKind(99)", tool.EventKind(99).String())
}

func TestRequestObserver(t *testing.T) {
	rec, own := &kindRecorder{}, &kindRecorder{}
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: rec})
	r.MustAdd(tool.New(tool.Definition{Name: "work", Description: "Works."}, func(ctx context.Context, _ struct{}) (string, error) {
		tool.ReportProgress(ctx, tool.Progress{Message: "half", Done: 1, Total: 2})
		return "done", nil
	}))
	r.Call(context.Background(), struct{}{}, tool.Request{ID: "1", Name: "work", Observer: own})
	r.Call(context.Background(), struct{}{}, tool.Request{ID: "2", Name: "work"})
	assert.Equal(t, []string{"1 started", "1 progress", "1 finished"}, own.kinds())
	assert.Len(t, rec.kinds(), 6, "the registry's observer sees every call")
}

type kindRecorder struct {
	mu sync.Mutex
	ev []string
}

func (r *kindRecorder) Observe(e tool.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ev = append(r.ev, e.CallID+" "+e.Kind.String())
}

func (r *kindRecorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ev...)
}
