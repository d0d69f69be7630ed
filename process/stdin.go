package process

import (
	"io"
	"os"
	"sync"
)

// stdinFeed is the program's standard input. A reader that is not a file
// is copied into a pipe by a goroutine of its own, which Run stops when the
// program exits or the call ends, so Run never waits on the reader (as
// exec.Cmd does until it reaches end of file). A file is handed to the
// program as it is, and nil gives it end of file at once (/dev/null).
type stdinFeed struct {
	src   io.Reader
	child *os.File // the program's end: a pipe, or the caller's file
	w     *os.File // our end of the pipe; nil when there is no copying
	done  chan struct{}
	once  sync.Once
}

func newStdinFeed(r io.Reader) (*stdinFeed, error) {
	s := &stdinFeed{src: r}
	switch f := r.(type) {
	case nil:
		return s, nil
	case *os.File:
		s.child = f
		return s, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.child, s.w, s.done = pr, pw, make(chan struct{})
	return s, nil
}

// stdin returns what exec.Cmd.Stdin is set to.
func (s *stdinFeed) stdin() io.Reader {
	if s.child == nil {
		return nil
	}
	return s.child
}

// started closes the program's end of the pipe, which the program has its
// own copy of, and starts copying.
func (s *stdinFeed) started() {
	if s.w == nil {
		return
	}
	s.child.Close()
	go func() {
		defer close(s.done)
		io.Copy(s.w, s.src)
		s.closePipe()
	}()
}

// failed releases the pipe of a program that did not start.
func (s *stdinFeed) failed() {
	if s.w != nil {
		s.child.Close()
		s.w.Close()
	}
}

// stop ends the copying: the pipe is closed, which ends a write in
// progress, and a reader still being read is closed when it is an
// io.Closer, which ends a read in progress. A read that nothing ends keeps
// its goroutine until it returns.
func (s *stdinFeed) stop() {
	if s.w == nil {
		return
	}
	s.closePipe()
	select {
	case <-s.done:
	default:
		if c, ok := s.src.(io.Closer); ok {
			c.Close()
		}
	}
}

func (s *stdinFeed) closePipe() { s.once.Do(func() { s.w.Close() }) }
