// Package redistest starts a real redis-server for tests and examples, as
// net/http/httptest starts a real HTTP server: on a free loopback port, with
// nothing saved to disk, stopped when the test ends.
//
// It runs the redis-server program found on PATH (Debian and Ubuntu: the
// redis-server package). When no server can be started, [New] skips the
// test with [tooltest.Need], saying why and how to install one, and the
// package's TestMain, which must run its tests through [tooltest.Main],
// fails the package at the end, naming the tests that did not run (set
// tooltest.AllowSkipEnv to let them skip); with the environment variable
// TOOLBELT_REQUIRE_REDIS set (CI sets it), New fails the test at once.
package redistest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/toolbelt-go/tool/tooltest"
)

// RequireEnv is the environment variable that turns [New]'s skip into a
// failure, so that a CI machine that should have redis-server never skips
// the tests that need it.
const RequireEnv = "TOOLBELT_REQUIRE_REDIS"

// Part is redis-server, as [tooltest.Need] names it.
var Part = tooltest.Part{Name: "redis-server", Install: "apt-get install redis-server (Debian, Ubuntu)", Require: []string{RequireEnv}}

// Server is a redis-server process the test started. Its methods are safe
// for concurrent use.
type Server struct {
	// Addr is the server's host:port on the loopback interface.
	Addr string

	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{} // closed when the process has exited
	once sync.Once
}

// New starts a server for the test and stops it when the test ends. If no
// server can be started (no redis-server on PATH, say), it ends the test
// with [tooltest.Need]: a skip that the package's [tooltest.Main] reports,
// or a failure when [RequireEnv] is set.
func New(t testing.TB) *Server {
	t.Helper()
	s, err := Start()
	tooltest.Need(t, Part, err)
	t.Cleanup(s.Close)
	return s
}

// Start starts a server on a free loopback port and waits until it answers
// PING. The caller must Close it.
func Start() (*Server, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("no redis-server on PATH")
	}
	var last error
	// A port found free may be taken by someone else before the server
	// binds it: try a few.
	for range 3 {
		s, err := start(path)
		if err == nil {
			return s, nil
		}
		last = err
	}
	return nil, last
}

func start(path string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), out: &syncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(path,
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir,
		"--daemonize", "no", "--logfile", "", "--loglevel", "warning")
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	dieWithParent(s.cmd)
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("cannot start redis-server: %w", err)
	}
	go func() {
		_ = s.cmd.Wait()
		os.RemoveAll(dir)
		close(s.done)
	}()
	if err := s.waitReady(10 * time.Second); err != nil {
		s.Close()
		return nil, fmt.Errorf("redis-server did not answer on %s: %w; its output:\n%s", s.Addr, err, s.out.String())
	}
	return s, nil
}

// waitReady waits until the server answers PING.
func (s *Server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		err := s.Ping(time.Second)
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return errors.New("it exited")
		default:
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Ping sends PING on a fresh connection and reports an error unless the
// server answers PONG within timeout.
func (s *Server) Ping(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return err
	}
	defer c.Close()
	dl, _ := ctx.Deadline()
	_ = c.SetDeadline(dl)
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Kill stops the server at once (SIGKILL), as a crash or a lost machine
// would, and waits for it to exit. Clients see their connections reset and
// new ones refused.
func (s *Server) Kill() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	<-s.done
}

// Close stops the server: politely (SIGTERM), then with SIGKILL if it has
// not exited within 5 seconds. A frozen server is thawed first. Close may
// be called more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		_ = s.Thaw()
		_ = terminate(s.cmd.Process)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
}

// Output returns what the server wrote to its log so far, for failure
// messages.
func (s *Server) Output() string { return s.out.String() }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("no free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer is a bytes.Buffer the process's output goroutines and the
// test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 1<<20 { // a server that floods its log keeps the first MiB
		return len(p), nil
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
