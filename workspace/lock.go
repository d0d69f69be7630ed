package workspace

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// commandLock keeps the commands run in a workspace from changing the
// tree under one another: a command that writes holds it alone, from its
// sandbox's preparation to its end; commands that only read share it,
// for as long, since a write while one runs could give a protected file a
// name its sandbox shows. It is held in this process (a semaphore, first
// come first served, so that a writer is not starved by readers) and,
// where the system has flock, on each root's directory, so that two
// Workspace values, or two processes, on the same tree wait for each other
// too.
type commandLock struct {
	sem     *semaphore.Weighted
	mu      sync.Mutex
	readers int      // holding the shared file locks
	files   []lockFD // one per root
}

const maxCommands = 1 << 20 // the weight of a writer: every reader's

func newCommandLock(dirs []string) *commandLock {
	l := &commandLock{sem: semaphore.NewWeighted(maxCommands)}
	for _, d := range dirs {
		l.files = append(l.files, openLockFD(d))
	}
	return l
}

// lock waits for the lock, shared or alone (write), until ctx is done.
func (l *commandLock) lock(ctx context.Context, write bool) error {
	weight := int64(1)
	if write {
		weight = maxCommands
	}
	if err := l.sem.Acquire(ctx, weight); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !write && l.readers > 0 {
		l.readers++
		return nil
	}
	for i, f := range l.files {
		if err := f.lock(ctx, write); err != nil {
			for _, g := range l.files[:i] {
				g.unlock()
			}
			l.sem.Release(weight)
			return err
		}
	}
	if !write {
		l.readers++
	}
	return nil
}

func (l *commandLock) unlock(write bool) {
	l.mu.Lock()
	if write || l.readers == 1 {
		for _, f := range l.files {
			f.unlock()
		}
	}
	weight := int64(maxCommands)
	if !write {
		l.readers--
		weight = 1
	}
	l.mu.Unlock()
	l.sem.Release(weight)
}

func (l *commandLock) close() {
	for _, f := range l.files {
		f.close()
	}
}

// pollLock tries lock until it succeeds or ctx is done, waiting a little
// longer each time (flock has no waiting form that a context can stop).
func pollLock(ctx context.Context, try func() (bool, error)) error {
	pause := 200 * time.Microsecond
	for {
		ok, err := try()
		if ok || err != nil {
			return err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}
