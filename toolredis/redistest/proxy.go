package redistest

import (
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy is a TCP proxy on a loopback port between clients and a server,
// which a test makes misbehave as a network does: it delays what it
// forwards ([Proxy.SetLatency]), and cuts connections after forwarding a
// command, once the server has answered it, without forwarding the answer
// ([Proxy.SetDrop]): the command ran, and the client never learns it.
// Its methods are safe for concurrent use.
type Proxy struct {
	// Addr is the proxy's host:port, for clients to dial.
	Addr string

	target  string
	ln      net.Listener
	latency atomic.Int64  // ns added to each chunk forwarded, each way
	drop    atomic.Uint64 // the probability of a cut, times 2^53
	next    atomic.Int64  // cuts to make after the next commands, whatever drop says
	dropped atomic.Int64
	wg      sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// NewProxy starts a proxy to target for the test and stops it, with its
// connections, when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: no loopback port for a proxy: %v", err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// SetLatency delays each chunk of bytes the proxy forwards, either way, by
// d: a round trip takes 2d more.
func (p *Proxy) SetLatency(d time.Duration) { p.latency.Store(int64(d)) }

// SetDrop has the proxy cut a connection with probability prob after it
// forwarded a client's command: the server's answer is read and thrown
// away, and both connections are closed. Zero stops it.
func (p *Proxy) SetDrop(prob float64) { p.drop.Store(uint64(prob * (1 << 53))) }

// DropNext has the proxy cut the connections of the next n commands it
// forwards, as SetDrop does, whatever the probability.
func (p *Proxy) DropNext(n int) { p.next.Store(int64(n)) }

// takeNext reports whether a cut DropNext asked for is still to be made,
// and counts it made.
func (p *Proxy) takeNext() bool {
	for {
		n := p.next.Load()
		if n <= 0 {
			return false
		}
		if p.next.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// Dropped returns how many answers the proxy threw away so far.
func (p *Proxy) Dropped() int { return int(p.dropped.Load()) }

// Cut closes every connection now, as a network that fails does; the
// proxy goes on accepting new ones.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(p.conns, c)
	}
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			client.Close()
			continue
		}
		if !p.track(client, server) {
			client.Close()
			server.Close()
			return
		}
		var cut atomic.Bool // set when the next answer is to be thrown away
		p.wg.Add(2)
		go func() {
			defer p.wg.Done()
			defer p.untrack(client, server)
			p.pump(server, client, func() {
				if p.takeNext() {
					cut.Store(true)
				} else if d := p.drop.Load(); d > 0 && rand.Uint64N(1<<53) < d {
					cut.Store(true)
				}
			}, nil)
		}()
		go func() {
			defer p.wg.Done()
			defer p.untrack(client, server)
			p.pump(client, server, nil, func() bool {
				if cut.Load() {
					p.dropped.Add(1)
					return true
				}
				return false
			})
		}()
	}
}

// pump copies from src to dst, a chunk at a time, each after the
// latency. after runs once a chunk is written; cutNow, if it reports true
// before a chunk is written, ends the copy instead (the chunk is lost).
func (p *Proxy) pump(dst io.Writer, src io.Reader, after func(), cutNow func() bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if d := time.Duration(p.latency.Load()); d > 0 {
				time.Sleep(d)
			}
			if cutNow != nil && cutNow() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			if after != nil {
				after()
			}
		}
		if err != nil {
			return
		}
	}
}
