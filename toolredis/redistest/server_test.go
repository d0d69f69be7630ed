package redistest_test

import (
	"testing"
	"time"

	"github.com/toolbelt-go/tool/toolredis/redistest"
)

func TestServerStartsAnswersAndStops(t *testing.T) {
	s := redistest.New(t)
	if err := s.Ping(10 * time.Second); err != nil { // generous: a loaded machine may be slow to answer
		t.Fatalf("a started server does not answer PING: %v\n%s", err, s.Output())
	}
	if err := s.Freeze(); err != nil {
		t.Skip(err)
	}
	if err := s.Ping(200 * time.Millisecond); err == nil {
		t.Fatal("a frozen server answered PING")
	}
	if err := s.Thaw(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(10 * time.Second); err != nil { // generous: a loaded machine may be slow to answer
		t.Fatalf("a thawed server does not answer PING: %v", err)
	}
	s.Kill()
	if err := s.Ping(200 * time.Millisecond); err == nil {
		t.Fatal("a killed server answered PING")
	}
	s.Close() // after Kill, and again in the cleanup: no effect, no hang
}

func TestServersDoNotShareAPort(t *testing.T) {
	a, b := redistest.New(t), redistest.New(t)
	if a.Addr == b.Addr {
		t.Fatalf("two servers on %s", a.Addr)
	}
}
