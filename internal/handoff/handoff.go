// Package handoff runs work on a goroutine other than its caller's, cheaply:
// a tool's run, a host hook, a batch worker, an observer's deliveries. The
// pipeline hands every tool over this way (see the design notes): that is
// what contains a panic or a runtime.Goexit and lets a tool that ignores
// its context be abandoned.
package handoff

import (
	"runtime"
	"sync/atomic"
	"time"
)

// workerPool keeps goroutines whose stacks have already grown, to run tools
// on: a fresh goroutine per call spends more in stack growth than the rest
// of the pipeline costs. A job goes to a worker that is waiting, or to a new
// one. A worker waits for its next job for at most idleTimeout and then
// exits, so an idle process holds none of our goroutines for long (leak
// checkers such as goleak retry for longer than that). A worker whose job
// calls runtime.Goexit just dies.
type workerPool struct {
	jobs chan func() // unbuffered: a send succeeds only if a worker waits
}

const idleTimeout = 50 * time.Millisecond

var workers = workerPool{jobs: make(chan func())}

// Go runs f on another goroutine and returns at once: a pooled worker, or a
// new goroutine in a testing/synctest bubble (see InBubble).
func Go(f func()) {
	if InBubble() {
		go f()
		return
	}
	workers.run(f)
}

// run starts f on a worker and returns at once.
func (p *workerPool) run(f func()) {
	select {
	case p.jobs <- f:
	default:
		go p.work(f)
	}
}

func (p *workerPool) work(f func()) {
	timer := time.NewTimer(idleTimeout)
	defer timer.Stop()
	for {
		f()
		timer.Reset(idleTimeout)
		select {
		case f = <-p.jobs:
		case <-timer.C:
			return
		}
	}
}

// bubbleEpoch is where the fake clock of a testing/synctest bubble starts.
var bubbleEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// InBubble reports whether the caller probably runs in a
// testing/synctest bubble. Pooled workers must not serve such a caller: a
// worker started in one bubble cannot send to another bubble's channels,
// and one started outside would run the tool on the real clock. The
// standard library offers no public test, so this reads the clock: a
// bubble's starts at midnight UTC 2000-01-01, where no real clock has been
// for decades. A machine whose clock reads 2000 to 2009 only loses speed; a
// bubble would have to run ten years of fake time to be misjudged.
func InBubble() bool {
	d := time.Since(bubbleEpoch)
	return d >= 0 && d < 10*365*24*time.Hour
}

// A tool runs on a goroutine other than its caller's, so that a panic or a
// runtime.Goexit in it becomes a result and a tool that ignores its context
// can be given up on. Handing it over costs little in itself; what costs is
// waking an idle thread to run it (a futex call, several microseconds on a
// virtual machine), and then waking the caller's thread to take the result:
// more than the rest of a valid call. So a worker that has just finished a
// job stays awake for a short while, yielding to anything else there is to
// run (runtime.Gosched), and takes the next job from a slot without anyone
// being woken; and the caller, having handed a job over, waits the same way
// for a short while before it blocks. A call that comes while the worker
// is awake, and a tool that returns in time, pay no wake at all. The cost
// is CPU time that would otherwise be idle: at most hotSpin of one core
// after each call, and waitSpin of the caller's.

const (
	hotSpin  = 50 * time.Microsecond // how long an idle hot worker stays awake
	waitSpin = 20 * time.Microsecond // how long a caller waits before it blocks
)

// Job is one run handed over: what runs, and how its end is signalled.
// Embed it in what it runs, so that handing work over costs one
// allocation.
type Job struct {
	runner Runner
	done   atomic.Bool
	wake   atomic.Pointer[chan struct{}] // the caller's, once it blocks; closedWake once done
}

// Runner is what a Job runs.
type Runner interface{ Run() }

// Start hands the job over to run r: to the hot worker when it is awake and
// free, else to a pooled worker, or, in a testing/synctest bubble, to a new
// goroutine. It reports whether a worker outside a bubble took it, when
// spinning for the end (SpinWait) is worth it. A Runner that ends its
// goroutine (runtime.Goexit) must call Finish from its deferred code.
func (j *Job) Start(r Runner) (pooled bool) {
	j.runner = r
	if InBubble() {
		// Pooled and hot workers live outside the bubble, and a bubble's
		// clock does not move while a goroutine spins.
		go j.execute()
		return false
	}
	dispatch(j)
	return true
}

// execute runs the job and marks it done. A runner that ends its goroutine
// (runtime.Goexit) marks it done itself.
func (j *Job) execute() {
	j.runner.Run()
	j.Finish()
}

var closedWake = make(chan struct{})

func init() { close(closedWake) }

// Finish marks the job done and wakes its caller if it is blocked.
func (j *Job) Finish() {
	j.done.Store(true)
	if ch := j.wake.Swap(&closedWake); ch != nil && ch != &closedWake {
		close(*ch)
	}
}

// Done returns a channel closed when the job is done, for a caller that
// blocks.
func (j *Job) Done() <-chan struct{} {
	ch := make(chan struct{})
	if !j.wake.CompareAndSwap(nil, &ch) {
		return closedWake // done already
	}
	if j.done.Load() {
		return closedWake
	}
	return ch
}

// hot is the one worker that stays awake between jobs.
var hot hotWorker

type hotWorker struct {
	slot    atomic.Pointer[Job]
	state   atomic.Int32 // hotNone, hotIdle (awake, waiting in the slot), hotBusy
	current atomic.Pointer[Job]
}

const (
	hotNone int32 = iota
	hotIdle
	hotBusy
)

// dispatch starts j: on the hot worker when it is awake and free, else on a
// pooled worker (and, when no hot worker runs, that worker becomes one).
func dispatch(j *Job) {
	if hot.state.Load() == hotIdle && hot.slot.CompareAndSwap(nil, j) {
		switch hot.state.Load() {
		case hotIdle:
			return // it is awake and will take it
		case hotBusy:
			if hot.current.Load() == j {
				return // it took it
			}
		}
		if !hot.slot.CompareAndSwap(j, nil) {
			return // taken just now
		}
	}
	if hot.state.CompareAndSwap(hotNone, hotBusy) {
		go hot.loop(j)
		return
	}
	workers.run(j.execute)
}

// loop runs jobs from the slot until none comes for hotSpin.
func (h *hotWorker) loop(j *Job) {
	// A tool that calls runtime.Goexit ends this goroutine (its job is
	// settled by the job's own deferred code): let another start.
	defer func() {
		h.current.Store(nil)
		h.state.Store(hotNone)
	}()
	for {
		h.current.Store(j)
		j.execute()
		h.current.Store(nil)
		h.state.Store(hotIdle)
		if j = h.await(); j == nil {
			return
		}
	}
}

// await waits for a job in the slot, awake, for up to hotSpin; it returns
// nil, having given the slot up, when none came.
func (h *hotWorker) await() *Job {
	var start time.Time // read at the first look at the clock
	one := singleProc()
	for i := 0; ; i++ {
		if h.slot.Load() != nil {
			if j := h.slot.Swap(nil); j != nil {
				h.current.Store(j)
				h.state.Store(hotBusy)
				return j
			}
		}
		if pause(i, one) && spun(&start, hotSpin) {
			break
		}
	}
	h.state.Store(hotNone)
	// A job put in the slot before the state said so is still ours.
	if j := h.slot.Swap(nil); j != nil {
		if h.state.CompareAndSwap(hotNone, hotBusy) {
			h.current.Store(j)
			return j
		}
		// Another hot worker started meanwhile: run this job anyway.
		workers.run(j.execute)
	}
	return nil
}

// SpinWait waits for the job to finish, awake, for up to 20µs, and
// reports whether it did.
func (j *Job) SpinWait() bool {
	var start time.Time // read at the first look at the clock
	one := singleProc()
	for i := 0; ; i++ {
		if j.done.Load() {
			return true
		}
		if pause(i, one) && spun(&start, waitSpin) {
			return false
		}
	}
}

// spun reports whether a spin-wait that first looked at the clock at
// *start has lasted longer than limit; its first call sets *start. A wait
// that ends before its first look never reads the clock.
func spun(start *time.Time, limit time.Duration) bool {
	if start.IsZero() {
		*start = time.Now()
		return false
	}
	return time.Since(*start) > limit
}

// pause is one turn of a spin-wait loop, the i-th: with one processor
// every turn yields it (the goroutine awaited cannot run otherwise); with
// more, a turn in 64 yields, so that a spinning goroutine never keeps
// waiting work from a processor, and the others only read memory. It
// reports whether the loop should look at the clock.
func pause(i int, oneProc bool) bool {
	if oneProc {
		runtime.Gosched()
		return i%16 == 15
	}
	if i%64 == 63 {
		runtime.Gosched()
		return true
	}
	return false
}

// singleProc reports whether the process runs on one processor.
func singleProc() bool { return runtime.GOMAXPROCS(0) == 1 }

// Run states of handed-over work, for abandonment accounting: the caller
// and the goroutine race to move it from Running, to Abandoned (the caller
// gave up and counts it as still running) or to Returned (it ended in
// time, or the goroutine uncounts itself when it ends later).
const (
	Running int32 = iota
	Returned
	Abandoned
)
