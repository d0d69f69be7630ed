package approvalweb

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/toolbelt-go/tool"
)

// Options configure a [Handler]. Who may answer what is the host's to
// say, with exactly one of MayAnswer and Sessions; every other field has a
// default, documented on it.
type Options struct {
	// MayAnswer reports whether the person making r may see and answer
	// the approvals of session: the host's decision, never the handler's
	// (read your own login cookie or header, or the bearer token's user,
	// here). The page asks it about the sessions that have approvals
	// waiting (the store lists them: [tool.PendingApprovalStore] Sessions),
	// so the host keeps no list of a person's sessions: a session made at
	// call time (toolmcp's Options.Session from the bearer token) is on
	// its person's page as soon as a call of it waits. It is asked once
	// per session a page looks at, at most 10,000 of them per view; a host
	// with more sessions waiting at once gives Sessions instead. A panic
	// means no.
	//
	// A session is compared as it was given to the call
	// ([tool.PendingApproval].Session), byte for byte: never as the page
	// shows it, with control and invisible characters written as escapes,
	// which two sessions can share.
	MayAnswer func(r *http.Request, session string) bool
	// Sessions, in place of MayAnswer, returns the sessions whose
	// approvals the person making r may see and answer, for a host that
	// keeps that list. An error refuses the request (403); an empty list
	// shows nothing. Sessions are compared as MayAnswer's are.
	Sessions func(r *http.Request) ([]string, error)
	// Store keeps the approvals that wait and their answers. Replicas that
	// serve the page share one (toolredis.PendingApprovalStore), so that a
	// person answers on any of them. Nil means a new
	// [tool.NewMemoryPendingApprovalStore]: one process only.
	Store tool.PendingApprovalStore
	// Editable reports whether the person may edit the arguments of the
	// call req before it runs. The edit is validated again by the registry
	// before anything runs; one that does not validate is refused there and
	// the model is told. Nil means no call's arguments may be edited.
	Editable func(req *tool.ApprovalRequest) bool
	// CrossOrigin refuses the answers that come from another site. Nil
	// means [http.NewCrossOriginProtection]: same origin only. Give one
	// with trusted origins when the page is reached under another name.
	CrossOrigin *http.CrossOriginProtection
	// Poll is how often open pages and waiting calls look in the store for
	// what other replicas changed. Changes made through this handler show
	// at once. Zero means one second.
	Poll time.Duration
	// MaxStreams bounds the pages that receive live updates at once (each
	// holds an open request); past it, a page still loads and its forms
	// work, and its live updates are refused until one closes. One person
	// (the requests Sessions gives the same sessions, or none) holds at
	// most a tenth of them (at least one), so that one person's tabs, or
	// anyone's flood of requests, cannot take the live updates of everyone
	// else. Zero means 100.
	MaxStreams int
	// MaxArgsBytes bounds the edited arguments of one answer. Zero means
	// 64 KiB.
	MaxArgsBytes int
	// MaxReasonBytes bounds the reason of a deny, which the model reads.
	// Zero means 1 KiB.
	MaxReasonBytes int
	// Logger is told, at level Warn, when a call has waited 5 seconds on
	// the page and no page open on this handler may answer it: no one
	// sees it, and it is denied when it expires ([Handler.Status] counts
	// such calls). Nil means [slog.Default].
	Logger *slog.Logger
}

// Defaults of [Options].
const (
	defaultPoll       = time.Second
	defaultMaxStreams = 100
	defaultMaxArgs    = 64 << 10
	defaultMaxReason  = 1 << 10
	// maxSessions bounds the sessions one page shows.
	maxSessions = 50
	// streamLifetime bounds one live-update stream; the browser's
	// EventSource opens the next one by itself.
	streamLifetime = 5 * time.Minute
	// retention is how long an answered or expired approval is kept past
	// its expiry, so that a late or repeated answer is told what became
	// of it.
	retention = 10 * time.Minute
	// storeTimeout bounds each store call a request makes.
	storeTimeout = 5 * time.Second
)

// Handler is the approval page: an [http.Handler] a host mounts under a
// path of its choosing, and the calls that wait on it ([Handler.Await]).
// Make one with [New]. It is safe for concurrent use.
type Handler struct {
	sessions  func(r *http.Request) ([]string, error) // nil: mayAnswer
	mayAnswer func(r *http.Request, session string) bool
	store     tool.PendingApprovalStore
	editable  func(req *tool.ApprovalRequest) bool
	cop       *http.CrossOriginProtection
	poll      time.Duration
	maxArgs   int
	maxReason int

	mux *http.ServeMux

	streamsMu        sync.Mutex
	maxStreams       int            // open streams, at most
	maxPersonStreams int            // open streams of one person, at most
	streamsOpen      int            // open streams
	streamsOf        map[string]int // open streams, per person (personOf) that has any
	changes          signal         // this handler changed the store
	hub              hub

	logger    *slog.Logger
	waitingMu sync.Mutex
	awaiting  map[*tool.PendingApproval]struct{} // calls waiting here (Await)

	closeOnce sync.Once
	closed    chan struct{}
}

// New returns the page of the approvals that wait in opts.Store. It
// returns an error unless exactly one of opts.MayAnswer and opts.Sessions
// is set: who may see and answer what is the host's to say.
func New(opts *Options) (*Handler, error) {
	switch {
	case opts == nil || opts.MayAnswer == nil && opts.Sessions == nil:
		return nil, errors.New("approvalweb: Options.MayAnswer (or Sessions) is required: it says whose approvals the person making a request may see and answer")
	case opts.MayAnswer != nil && opts.Sessions != nil:
		return nil, errors.New("approvalweb: give Options.MayAnswer or Options.Sessions, not both: one rule says who may answer")
	}
	h := &Handler{
		store: opts.Store, editable: opts.Editable, cop: opts.CrossOrigin, logger: opts.Logger,
		poll: opts.Poll, maxArgs: opts.MaxArgsBytes, maxReason: opts.MaxReasonBytes,
		closed: make(chan struct{}),
	}
	// Host code: a panic refuses the request, as an error does, or means
	// no.
	if sessions := opts.Sessions; sessions != nil {
		h.sessions = func(r *http.Request) (s []string, err error) {
			defer func() {
				if p := recover(); p != nil {
					s, err = nil, fmt.Errorf("approvalweb: Options.Sessions panicked: %v", p)
				}
			}()
			return sessions(r)
		}
	} else {
		may := opts.MayAnswer
		h.mayAnswer = func(r *http.Request, session string) (ok bool) {
			defer func() {
				if recover() != nil {
					ok = false
				}
			}()
			return may(r, session)
		}
	}
	if h.store == nil {
		h.store = tool.NewMemoryPendingApprovalStore(0)
	}
	if h.logger == nil {
		h.logger = slog.Default()
	}
	if editable := h.editable; editable == nil {
		h.editable = func(*tool.ApprovalRequest) bool { return false }
	} else {
		// Host code: a panic means no, rather than a page that fails.
		h.editable = func(r *tool.ApprovalRequest) (ok bool) {
			defer func() {
				if recover() != nil {
					ok = false
				}
			}()
			return editable(r)
		}
	}
	if h.cop == nil {
		h.cop = http.NewCrossOriginProtection()
	}
	if h.poll <= 0 {
		h.poll = defaultPoll
	}
	if h.maxArgs <= 0 {
		h.maxArgs = defaultMaxArgs
	}
	if h.maxReason <= 0 {
		h.maxReason = defaultMaxReason
	}
	n := opts.MaxStreams
	if n <= 0 {
		n = defaultMaxStreams
	}
	h.maxStreams, h.maxPersonStreams = n, max(1, n/10)
	h.streamsOf = map[string]int{}
	h.hub.h = h

	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /{$}", h.servePage)
	h.mux.HandleFunc("GET /pending.json", h.serveJSON)
	h.mux.HandleFunc("GET /events", h.serveEvents)
	h.mux.HandleFunc("POST /answer", h.serveAnswer)
	h.mux.Handle("GET /assets/", assetHandler())
	return h, nil
}

// ServeHTTP serves the page under the path the host mounted it at, with
// the prefix stripped ([http.StripPrefix]):
//
//	GET  /              the page: the approvals waiting for the person
//	GET  /events        live updates of the page (server-sent events)
//	GET  /pending.json  the same approvals as JSON
//	POST /answer        an answer (a form: state, decision, reason, args)
//
// Every answer from another site is refused (Options.CrossOrigin).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if r.URL.Path == "" {
		// Mounted at "/approvals" and asked for "/approvals": the page's
		// links are relative, so it must be read as a directory.
		http.Redirect(w, r, strings.SplitN(r.RequestURI, "?", 2)[0]+"/", http.StatusMovedPermanently)
		return
	}
	if err := h.cop.Check(r); err != nil {
		h.refuse(w, r, refusedCrossOrigin)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// Close ends the live-update streams, so that a server's Shutdown need not
// wait for them, and stops the handler's background work. Pages and
// answers are still served; waiting calls ([Handler.Await]) go on.
func (h *Handler) Close() error {
	h.closeOnce.Do(func() { close(h.closed) })
	return nil
}

// signal wakes whoever waits on it: a broadcast that never blocks the
// sender.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed at the next notify.
func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *signal) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// changed tells the calls waiting here and the open pages that the store
// changed.
func (h *Handler) changed() {
	h.changes.notify()
	h.hub.kick()
}
