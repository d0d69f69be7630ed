package process

import (
	"maps"
	"os"
	"slices"
	"sync"
	"syscall"

	"github.com/toolbelt-go/tool/internal/procscan"
)

// Without a cgroup, the descendants that left the process group are found
// in /proc: by the mark in their environment, or because their parent is
// one of the tree's. A scan reads every process on the machine, so the
// commands stopping at the same time share scans: a command waits for the
// next scan that starts after it asks, and one scan answers every command
// waiting for it (50 commands timing out together cost a few scans, not 50).
//
// This is singleflight with one difference: a sweep needs a scan that
// started after it asked, which singleflight tells only the caller that
// led the flight, so the others must ask twice. Written that way
// (BenchmarkSharedScans: both in the same run, medians of 6 runs),
// singleflight matched this for 1 waiter and was slower for more: the time
// until the last of 8 waiters has its scan was 1.04 ms here against 1.09
// ms (0.94 of it), for 50 waiters 1.07 ms against 1.31 ms (0.78 of it),
// with 2.4 scans a round against 3.0. A second ask that finds no flight
// leads one of its own, where this puts every waiter into the next scan.
// So this stays.

// scans is the process-wide scan sharer.
var scans scanSharer

type scanSharer struct {
	mu      sync.Mutex
	running bool
	next    *scanRound // the round the next scan fills; nil when nobody waits
}

// scanRound is one scan, and what every sweep waiting for it needs from
// it, computed once: which processes carry each mark, and each process's
// children.
type scanRound struct {
	done     chan struct{}
	marked   map[string][]int // mark entry -> PIDs
	children map[int][]int    // PID -> child PIDs
}

// get returns a scan that started after get was called.
func (s *scanSharer) get() *scanRound {
	s.mu.Lock()
	r := s.next
	if r == nil {
		r = &scanRound{done: make(chan struct{})}
		s.next = r
	}
	if !s.running {
		s.running = true
		go s.run()
	}
	s.mu.Unlock()
	<-r.done
	return r
}

// run scans for as long as commands wait, then ends.
func (s *scanSharer) run() {
	for {
		s.mu.Lock()
		r := s.next
		s.next = nil
		if r == nil {
			s.running = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		r.index(procscan.Scan(treeMarkerEnv))
		close(r.done)
	}
}

// maxSweeps bounds the passes of a kill sweep: each pass kills what it
// finds, so only a tree that keeps forking faster than it is scanned lasts
// that many.
const maxSweeps = 32

// sweep signals the processes of the tree found in /proc (see
// scanRound.members). Each process found is held by a pidfd (os.FindProcess), so
// a later signal reaches it and no other process, even once its PID is
// free again; the SIGKILL after a grace goes first to every process the
// SIGTERM sweep found, without waiting for a scan.
//
// A SIGKILL sweep then repeats until a scan finds nothing it has not
// killed already: each scan is closed under process creation (see
// [procscan.Scan]), and a process that was sent SIGKILL forks no more, so
// a child forked between a scan and the kill is found by the next scan,
// and a scan that finds only processes already killed (exiting, not yet
// reaped) finds all there is.
//
// group is called once, after the first scan: it signals the process
// group, whose members are then found by their parent links first.
func (t *processTree) sweep(sig syscall.Signal, group func()) {
	if t.held == nil {
		t.held = make(map[int]*os.Process)
	}
	killed := make(map[int]bool)
	if sig == syscall.SIGKILL {
		for pid, p := range t.held {
			p.Signal(sig)
			killed[pid] = true
		}
	}
	for pass := range maxSweeps {
		found := scans.get().members(t.marker + "=1")
		if pass == 0 {
			group()
		}
		fresh := 0
		for _, pid := range found {
			if killed[pid] {
				continue
			}
			p := t.held[pid]
			if p == nil {
				var err error
				if p, err = os.FindProcess(pid); err != nil {
					continue
				}
				t.held[pid] = p
			}
			p.Signal(sig)
			killed[pid] = true
			fresh++
		}
		if fresh == 0 || sig != syscall.SIGKILL {
			return
		}
	}
}

// releaseHeld closes the pidfds of the processes the sweeps found.
func (t *processTree) releaseHeld() {
	for _, p := range t.held {
		p.Release()
	}
	t.held = nil
}

func (r *scanRound) index(procs []procscan.Process) {
	r.marked = make(map[string][]int)
	r.children = make(map[int][]int, len(procs))
	for _, p := range procs {
		r.children[p.PPID] = append(r.children[p.PPID], p.PID)
		for _, m := range p.Marks {
			r.marked[m] = append(r.marked[m], p.PID)
		}
	}
}

// members returns the processes that carry the mark, and their
// descendants by parent link: a child whose mark is gone (its title was
// written over its environment, or it cleared it) is still found while
// its parent is.
func (r *scanRound) members(mark string) []int {
	in := make(map[int]bool)
	queue := slices.Clone(r.marked[mark])
	for _, pid := range queue {
		in[pid] = true
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range r.children[pid] {
			if !in[c] {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
	return slices.Sorted(maps.Keys(in))
}
