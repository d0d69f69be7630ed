// Progress shows a long-running tool reporting progress to the host, a
// per-tool timeout ending a tool that runs too long, and a batch of calls
// from one model turn: the reads run in parallel, the write alone and in
// order. Time is compressed: a "minute" here is a few milliseconds.
//
//	go run ./examples/progress
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/toolbelt-go/tool"
)

// BuildArgs are the arguments of build.
type BuildArgs struct {
	Packages int `json:"packages" jsonschema:"description=How many packages to build,minimum=1,maximum=100"`
}

// FetchArgs are the arguments of fetch.
type FetchArgs struct {
	URL string `json:"url" jsonschema:"description=Page to fetch"`
}

// WriteArgs are the arguments of write_note.
type WriteArgs struct {
	Text string `json:"text"`
}

const step = 5 * time.Millisecond

func tools() []tool.Definer {
	build := tool.New(tool.Definition{Name: "build", Description: "Builds packages, reporting each one.", Safety: tool.SafetyReadOnly, Timeout: 40 * step},
		func(ctx context.Context, in BuildArgs) (string, error) {
			for i := range in.Packages {
				select {
				case <-time.After(step):
				case <-ctx.Done():
					return "", ctx.Err()
				}
				tool.ReportProgress(ctx, tool.Progress{Message: fmt.Sprintf("built pkg%02d", i+1), Done: float64(i + 1), Total: float64(in.Packages)})
			}
			return fmt.Sprintf("built %d packages", in.Packages), nil
		})
	fetch := tool.New(tool.Definition{Name: "fetch", Description: "Fetches a page (simulated).", Safety: tool.SafetyReadOnly},
		func(ctx context.Context, in FetchArgs) (string, error) {
			time.Sleep(4 * step)
			return "fetched " + in.URL, nil
		})
	write := tool.New(tool.Definition{Name: "write_note", Description: "Appends a note.", Safety: tool.SafetyMutating},
		func(ctx context.Context, in WriteArgs) (string, error) {
			time.Sleep(2 * step)
			return "noted: " + in.Text, nil
		})
	return []tool.Definer{build, fetch, write}
}

// console prints events as a host UI would: a progress bar that is
// redrawn when it grows.
type console struct {
	mu   sync.Mutex
	out  io.Writer
	bars map[string]int
}

func (c *console) Observe(e tool.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Kind {
	case tool.EventProgress:
		bar := int(10 * e.Progress.Done / e.Progress.Total)
		if bar == c.bars[e.CallID] {
			return
		}
		c.bars[e.CallID] = bar
		fmt.Fprintf(c.out, "  %-6s [%-10s] %s\n", e.CallID, strings.Repeat("#", bar), e.Progress.Message)
	case tool.EventFinished:
		fmt.Fprintf(c.out, "  %-6s finished: %s\n", e.CallID, e.Result.Status)
	}
}

func run(ctx context.Context, out io.Writer) error {
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: &console{out: out, bars: map[string]int{}}})
	if err := r.Add(tools()...); err != nil {
		return err
	}

	fmt.Fprintln(out, "one call with progress:")
	res := r.Call(ctx, struct{}{}, tool.Request{ID: "b1", Name: "build", Args: []byte(`{"packages":5}`)})
	fmt.Fprintf(out, "model sees: %s\n\n", res.Text())

	fmt.Fprintln(out, "a call past its timeout:")
	res = r.Call(ctx, struct{}{}, tool.Request{ID: "b2", Name: "build", Args: []byte(`{"packages":100}`)})
	fmt.Fprintf(out, "model sees: %s\n\n", res.Text())

	fmt.Fprintln(out, "a batch: two fetches together, then the note, then two more fetches together:")
	quiet := tool.NewRegistry[struct{}](nil)
	if err := quiet.Add(tools()...); err != nil {
		return err
	}
	batch := []tool.Request{
		{ID: "f1", Name: "fetch", Args: []byte(`{"url":"https://go.dev"}`)},
		{ID: "f2", Name: "fetch", Args: []byte(`{"url":"https://pkg.go.dev"}`)},
		{ID: "w1", Name: "write_note", Args: []byte(`{"text":"both fetched"}`)},
		{ID: "f3", Name: "fetch", Args: []byte(`{"url":"https://go.dev/doc"}`)},
		{ID: "f4", Name: "fetch", Args: []byte(`{"url":"https://go.dev/blog"}`)},
	}
	start := time.Now()
	results := quiet.CallBatch(ctx, struct{}{}, batch, nil)
	for _, res := range results {
		fmt.Fprintf(out, "  %s [%s] %s\n", res.CallID, res.Status, res.Text())
	}
	rounds := time.Since(start) / step
	fmt.Fprintf(out, "took about %d steps (one at a time would take 18)\n", rounds)
	return nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
