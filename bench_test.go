package tool_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/toolbelt-go/tool"
)

// benchArgs is a realistic search tool's input: six fields with pattern,
// enum and minimum/maximum constraints.
type benchArgs struct {
	Query         string `json:"query" jsonschema:"minLength=1,maxLength=200,description=Text to search for"`
	Path          string `json:"path,omitempty" jsonschema:"pattern=^[a-zA-Z0-9_./-]*$,description=Directory to search"`
	Lang          string `json:"lang,omitempty" jsonschema:"enum=go,enum=rust,enum=python,enum=typescript"`
	Limit         int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=500"`
	Offset        int    `json:"offset,omitempty" jsonschema:"minimum=0"`
	CaseSensitive bool   `json:"case_sensitive,omitempty"`
}

type benchHit struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

type benchOut struct {
	Hits  []benchHit `json:"hits"`
	Total int        `json:"total"`
}

func benchSearch(_ context.Context, in benchArgs) (benchOut, error) {
	return benchOut{Hits: []benchHit{{File: in.Path + "/main.go", Line: in.Limit}}, Total: 1}, nil
}

var (
	benchValid   = []byte(`{"query":"func NewRegistry","path":"internal/registry","lang":"go","limit":50,"offset":0,"case_sensitive":true}`)
	benchInvalid = []byte(`{"query":"func NewRegistry","path":"internal/registry","lang":"golang","limit":5000,"offset":0,"case_sensitive":true}`)
)

func benchRegistry(b *testing.B) *tool.Registry[struct{}] {
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(tool.New(tool.Definition{Name: "search", Description: "Search the code base."}, benchSearch))
	return r
}

// BenchmarkFloor is what any Go tool call costs at least: decode the
// arguments into the struct, run the function, encode the result.
func BenchmarkFloor(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var in benchArgs
		if err := json.Unmarshal(benchValid, &in); err != nil {
			b.Fatal(err)
		}
		out, _ := benchSearch(context.Background(), in)
		if _, err := json.Marshal(out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallValid(b *testing.B) {
	r := benchRegistry(b)
	ctx := context.Background()
	req := tool.Request{ID: "1", Name: "search", Args: benchValid}
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Call(ctx, struct{}{}, req); res.IsError {
			b.Fatal(res.Text())
		}
	}
}

func BenchmarkCallInvalid(b *testing.B) {
	r := benchRegistry(b)
	ctx := context.Background()
	req := tool.Request{ID: "1", Name: "search", Args: benchInvalid}
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Call(ctx, struct{}{}, req); res.Status != tool.StatusInvalid {
			b.Fatal(res.Text())
		}
	}
}

// BenchmarkRegister is one tool's schema generation, compilation and
// registration.
func BenchmarkRegister(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		r := tool.NewRegistry[struct{}](nil)
		if err := r.Add(tool.New(tool.Definition{Name: "search", Description: "Search the code base."}, benchSearch)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegisterCold registers a raw tool whose schema was never seen
// before (it varies per iteration): the full cost of compiling a schema,
// which registration otherwise reuses (see BenchmarkRegister).
func BenchmarkRegisterCold(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		schema := `{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":200,"description":"Text ` + strconv.Itoa(i) + `"},` +
			`"path":{"type":"string","pattern":"^[a-zA-Z0-9_./-]*$"},"lang":{"enum":["go","rust","python","typescript"]},` +
			`"limit":{"type":"integer","minimum":1,"maximum":500},"offset":{"type":"integer","minimum":0},"case_sensitive":{"type":"boolean"}},` +
			`"required":["query"],"additionalProperties":false}`
		r := tool.NewRegistry[struct{}](nil)
		if err := r.Add(tool.NewRaw(tool.Definition{Name: "search", Description: "Search.", InputSchema: json.RawMessage(schema)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return nil, nil })); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegister1000OneByOne adds the 1,000 tools of BenchmarkRegister1000
// one Add at a time: it must cost about the same (registration is linear).
func BenchmarkRegister1000OneByOne(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		r := tool.NewRegistry[struct{}](nil)
		for i := range 1000 {
			if err := r.Add(tool.New(tool.Definition{Name: "search_" + strconv.Itoa(i), Description: "Search the code base."}, benchSearch)); err != nil {
				b.Fatal(err)
			}
		}
		if len(r.Definitions()) != 1000 {
			b.Fatal("missing definitions")
		}
	}
}

// BenchmarkRegister1000 registers 1,000 tools in one Add and lists them.
func BenchmarkRegister1000(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		tools := make([]tool.Definer, 1000)
		for i := range tools {
			tools[i] = tool.New(tool.Definition{Name: "search_" + strconv.Itoa(i), Description: "Search the code base."}, benchSearch)
		}
		r := tool.NewRegistry[struct{}](nil)
		if err := r.Add(tools...); err != nil {
			b.Fatal(err)
		}
		if len(r.Definitions()) != 1000 {
			b.Fatal("missing definitions")
		}
	}
}

// BenchmarkBatch64 compares CallBatch with calling the same 64 no-op
// read-only calls in a plain loop (Loop is the floor for Batch): the cost
// of scheduling, in ns per batch.
func BenchmarkBatch64(b *testing.B) {
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(tool.New(tool.Definition{Name: "noop", Description: "Does nothing.", Safety: tool.SafetyReadOnly},
		func(context.Context, struct{}) (string, error) { return "ok", nil }))
	calls := make([]tool.Request, 64)
	for i := range calls {
		calls[i] = tool.Request{ID: strconv.Itoa(i), Name: "noop"}
	}
	ctx := context.Background()
	b.Run("Loop", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range calls {
				r.Call(ctx, struct{}{}, c)
			}
		}
	})
	b.Run("Batch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.CallBatch(ctx, struct{}{}, calls, nil)
		}
	})
}

// BenchmarkBatchSleep runs 64 calls that each sleep 10 ms at parallelism
// 8: ideally 8 rounds, 80 ms. It reports the ratio to that ideal.
func BenchmarkBatchSleep(b *testing.B) {
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(tool.New(tool.Definition{Name: "sleep", Description: "Sleeps 10 ms.", Safety: tool.SafetyReadOnly},
		func(context.Context, struct{}) (string, error) { time.Sleep(10 * time.Millisecond); return "ok", nil }))
	calls := make([]tool.Request, 64)
	for i := range calls {
		calls[i] = tool.Request{ID: strconv.Itoa(i), Name: "sleep"}
	}
	opts := &tool.BatchOptions{Parallelism: 8}
	start := time.Now()
	n := 0
	for b.Loop() {
		r.CallBatch(context.Background(), struct{}{}, calls, opts)
		n++
	}
	b.ReportMetric(float64(time.Since(start))/float64(n)/float64(80*time.Millisecond), "x-ideal")
}

// BenchmarkRatio measures a valid Registry.Call against its floor in
// alternating blocks of the same run, so that a busy machine slows both
// alike, and reports the ratio (x-floor). Run it several times:
//
//	go test -run '^$' -bench Ratio -count 6
func BenchmarkRatio(b *testing.B) {
	plain := benchRegistry(b)
	withApproval := benchRegistry(b)
	withApproval.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.AllowAllPolicy()}))
	for _, bc := range []struct {
		name string
		r    *tool.Registry[struct{}]
		args []byte
	}{{"Valid", plain, benchValid}, {"Invalid", plain, benchInvalid}, {"ValidWithApproval", withApproval, benchValid}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			req := tool.Request{ID: "1", Name: "search", Args: bc.args}
			floor := func() {
				var in benchArgs
				if err := json.Unmarshal(benchValid, &in); err != nil {
					b.Fatal(err)
				}
				out, _ := benchSearch(ctx, in)
				if _, err := json.Marshal(out); err != nil {
					b.Fatal(err)
				}
			}
			const block = 64
			var tFloor, tCall time.Duration
			n := 0
			for b.Loop() {
				t0 := time.Now()
				for range block {
					floor()
				}
				t1 := time.Now()
				for range block {
					bc.r.Call(ctx, struct{}{}, req)
				}
				tFloor += t1.Sub(t0)
				tCall += time.Since(t1)
				n += block
			}
			b.ReportMetric(float64(tCall)/float64(tFloor), "x-floor")
			b.ReportMetric(float64(tCall.Nanoseconds())/float64(n), "call-ns")
			b.ReportMetric(float64(tFloor.Nanoseconds())/float64(n), "floor-ns")
		})
	}
}

// BenchmarkBatchFanOut compares CallBatch's fan-out (at most Parallelism
// workers, each taking the next call, on pooled goroutines whose stacks
// have grown) with errgroup.SetLimit (a new goroutine per call), on the
// same 64 read-only calls at parallelism 8: no-op calls measure what the
// scheduling costs, calls that wait 50 µs (as for I/O) how they overlap.
// The two run in the same loop, each first every other round, so that a
// busy machine slows both alike; x-errgroup is CallBatch's time over
// errgroup's (below 1: CallBatch is faster).
//
//	go test -run '^$' -bench BatchFanOut -count 6
func BenchmarkBatchFanOut(b *testing.B) {
	for _, wait := range []time.Duration{0, 50 * time.Microsecond, time.Millisecond} {
		r := tool.NewRegistry[struct{}](nil)
		r.MustAdd(tool.New(tool.Definition{Name: "read", Description: "Reads.", Safety: tool.SafetyReadOnly},
			func(context.Context, struct{}) (string, error) {
				if wait > 0 {
					time.Sleep(wait)
				}
				return "ok", nil
			}))
		calls := make([]tool.Request, 64)
		for i := range calls {
			calls[i] = tool.Request{ID: strconv.Itoa(i), Name: "read"}
		}
		ctx, opts := context.Background(), &tool.BatchOptions{Parallelism: 8}
		errgroupBatch := func() {
			results := make([]*tool.Result, len(calls))
			var g errgroup.Group
			g.SetLimit(opts.Parallelism)
			for i, c := range calls {
				g.Go(func() error { results[i] = r.Call(ctx, struct{}{}, c); return nil })
			}
			g.Wait()
		}
		b.Run("wait="+wait.String(), func(b *testing.B) {
			var tBatch, tGroup time.Duration
			n := 0
			timed := func(f func()) time.Duration {
				t0 := time.Now()
				f()
				return time.Since(t0)
			}
			callBatch := func() { r.CallBatch(ctx, struct{}{}, calls, opts) }
			for b.Loop() {
				// Each goes first every other round: the one that follows
				// finds the pool of tool goroutines the other left warm.
				if n%2 == 0 {
					tBatch += timed(callBatch)
					tGroup += timed(errgroupBatch)
				} else {
					tGroup += timed(errgroupBatch)
					tBatch += timed(callBatch)
				}
				n++
			}
			b.ReportMetric(float64(tBatch)/float64(tGroup), "x-errgroup")
			b.ReportMetric(float64(tBatch.Nanoseconds())/float64(n), "callbatch-ns")
			b.ReportMetric(float64(tGroup.Nanoseconds())/float64(n), "errgroup-ns")
		})
	}
}

// BenchmarkCallRecorded is a call whose record is kept in memory (a claim,
// made long as the tool starts, then the record), each with a new ID,
// against the same call without records, in the same run.
func BenchmarkCallRecorded(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		records tool.RecordStore
	}{{"floor=no records", nil}, {"records in memory", tool.NewMemoryRecordStore(0)}} {
		b.Run(c.name, func(b *testing.B) {
			r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Records: c.records})
			r.MustAdd(tool.New(tool.Definition{Name: "search", Description: "Search the code base."}, benchSearch))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if res := r.Call(ctx, struct{}{}, tool.Request{ID: strconv.Itoa(i), Name: "search", Args: benchValid, Session: "conv"}); res.IsError {
					b.Fatal(res.Text())
				}
			}
		})
	}
}
