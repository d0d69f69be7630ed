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
