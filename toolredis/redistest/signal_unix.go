//go:build unix

package redistest

import (
	"errors"
	"os"
	"syscall"
)

// Freeze stops the server without closing anything (SIGSTOP), as a hung
// machine or a long pause would: connections stay open and nothing is
// answered, so a client waits until its own timeouts end the wait. Thaw
// (or Close) resumes it.
func (s *Server) Freeze() error { return s.signal(syscall.SIGSTOP) }

// Thaw resumes a frozen server (SIGCONT).
func (s *Server) Thaw() error { return s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig os.Signal) error {
	p, _ := s.process()
	if p == nil {
		return errors.New("redistest: the server is not running")
	}
	return p.Signal(sig)
}

func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
