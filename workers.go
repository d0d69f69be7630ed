package tool

import (
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

// inSyncTestBubble reports whether the caller probably runs in a
// testing/synctest bubble. Pooled workers must not serve such a caller: a
// worker started in one bubble cannot send to another bubble's channels,
// and one started outside would run the tool on the real clock. The
// standard library offers no public test, so this reads the clock: a
// bubble's starts at midnight UTC 2000-01-01, where no real clock has been
// for decades. A machine whose clock reads 2000 to 2009 only loses speed; a
// bubble would have to run ten years of fake time to be misjudged.
func inSyncTestBubble() bool {
	d := time.Since(bubbleEpoch)
	return d >= 0 && d < 10*365*24*time.Hour
}
