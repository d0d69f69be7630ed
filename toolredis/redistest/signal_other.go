//go:build !unix

package redistest

import (
	"errors"
	"os"
)

// Freeze stops the server without closing anything; it needs SIGSTOP, so
// on this system it reports an error and does nothing.
func (s *Server) Freeze() error { return errors.New("redistest: Freeze needs SIGSTOP (Unix only)") }

// Thaw resumes a frozen server; on this system there is none.
func (s *Server) Thaw() error { return nil }

func terminate(p *os.Process) error { return p.Kill() }
