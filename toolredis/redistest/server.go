// Package redistest starts a real redis-server for tests and examples, as
// net/http/httptest starts a real HTTP server: on a free loopback port,
// with its data in a temporary directory, stopped when the test ends. It
// also starts a Redis Cluster of such servers ([NewCluster]), and a proxy
// that slows or cuts the connections to one ([NewProxy]), for tests of
// what the stores do when Redis misbehaves.
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

// Config says how a server is started. The zero Config is what [New] and
// [Start] use.
type Config struct {
	// Ephemeral starts the server without persistence (no append-only
	// file, no snapshots): killed and started again ([Server.Restart]),
	// it has lost everything. The default keeps every write it
	// acknowledges across a restart (appendonly yes, appendfsync always),
	// in a directory on a memory file system where there is one, so that
	// it costs little: what toolredis trusts (DurabilityChecked).
	Ephemeral bool
	// MaxMemory bounds the server's memory (redis-server's maxmemory,
	// "4mb"); empty means no bound. MaxMemoryPolicy is its policy,
	// noeviction if empty.
	MaxMemory, MaxMemoryPolicy string
	// Args are more redis-server arguments ("--name", "value", …).
	Args []string
}

// Server is a redis-server process the test started. Its methods are safe
// for concurrent use.
type Server struct {
	// Addr is the server's host:port on the loopback interface.
	Addr string

	cfg  Config
	path string // of redis-server
	port int
	dir  string // the data directory, which outlives a restart
	out  *syncBuffer

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{} // closed when cmd has exited
	closed bool
}

// New starts a server for the test and stops it when the test ends. If no
// server can be started (no redis-server on PATH, say), it ends the test
// with [Unavailable].
func New(t testing.TB) *Server { t.Helper(); return NewWith(t, Config{}) }

// NewWith is [New] for a server started as cfg says.
func NewWith(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := StartWith(cfg)
	tooltest.Need(t, Part, err)
	t.Cleanup(s.Close)
	return s
}

// Unavailable ends the test because err says redis-server cannot be run,
// with [tooltest.Need]: a skip that the package's [tooltest.Main] reports,
// or a failure when [RequireEnv] is set.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	tooltest.Need(t, Part, err)
}

// Start starts a server on a free loopback port and waits until it answers
// PING. The caller must Close it.
func Start() (*Server, error) { return StartWith(Config{}) }

// StartWith is [Start] for a server started as cfg says.
func StartWith(cfg Config) (*Server, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, errors.New("no redis-server on PATH")
	}
	var last error
	// A port found free may be taken by someone else before the server
	// binds it: try a few.
	for range 3 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		dir, err := os.MkdirTemp(tempRoot(), "redistest-")
		if err != nil {
			return nil, err
		}
		s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cfg: cfg, path: path, port: port, dir: dir, out: &syncBuffer{}}
		if last = s.start(); last == nil {
			return s, nil
		}
		s.Close()
	}
	return nil, last
}

// tempRoot is where data directories go: a memory file system if there is
// one (an fsync there costs nothing), else the system's temporary
// directory.
func tempRoot() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "redistest-probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return ""
}

// args are the server's command line.
func (s *Server) args() []string {
	a := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--daemonize", "no", "--logfile", "", "--loglevel", "warning", "--save", ""}
	if s.cfg.Ephemeral {
		a = append(a, "--appendonly", "no")
	} else {
		a = append(a, "--appendonly", "yes", "--appendfsync", "always")
	}
	if s.cfg.MaxMemory != "" {
		policy := s.cfg.MaxMemoryPolicy
		if policy == "" {
			policy = "noeviction"
		}
		a = append(a, "--maxmemory", s.cfg.MaxMemory, "--maxmemory-policy", policy)
	}
	return append(a, s.cfg.Args...)
}

// start starts the process and waits until it answers.
func (s *Server) start() error {
	cmd := exec.Command(s.path, s.args()...)
	cmd.Stdout, cmd.Stderr = s.out, s.out
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start redis-server: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	if err := s.waitReady(10 * time.Second); err != nil {
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("redis-server did not answer on %s: %w; its output:\n%s", s.Addr, err, s.out.String())
	}
	return nil
}

// process returns the running process and its exit, or nil.
func (s *Server) process() (*os.Process, chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil, nil
	}
	return s.cmd.Process, s.done
}

// waitReady waits until the server answers PING.
func (s *Server) waitReady(limit time.Duration) error {
	_, done := s.process()
	deadline := time.Now().Add(limit)
	for {
		err := s.Ping(time.Second)
		if err == nil {
			return nil
		}
		select {
		case <-done:
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
	p, done := s.process()
	if p == nil {
		return
	}
	_ = p.Kill()
	<-done
}

// Restart kills the server, as Kill does, unless it is down already, and
// starts it again on the same port and data directory: what it has then
// is what its persistence kept (everything it acknowledged, or nothing
// if [Config.Ephemeral]). Clients reconnect as to a restarted server.
func (s *Server) Restart() error {
	s.Kill()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return errors.New("redistest: Restart of a closed server")
	}
	return s.start()
}

// Close stops the server: politely (SIGTERM), then with SIGKILL if it has
// not exited within 5 seconds, and removes its data. A frozen server is
// thawed first. Close may be called more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	if p, done := s.process(); p != nil {
		_ = s.Thaw()
		_ = terminate(p)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = p.Kill()
			<-done
		}
	}
	os.RemoveAll(s.dir)
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
