package approvalweb

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolbelt-go/tool"
)

// Bounds of a live-update stream.
const (
	// keepAlive is how often an idle stream sends a comment, so that a
	// client that went away is noticed and proxies keep the stream open.
	keepAlive = 20 * time.Second
	// writeTimeout bounds one write to a stream: a client that stops
	// reading loses its stream, not the handler's goroutine.
	writeTimeout = 10 * time.Second
	// maxHave bounds the approvals a page says it already shows.
	maxHave = 2 * maxSessions * tool.MaxPendingPerSession
)

// serveEvents streams the changes to the approvals the person may see, as
// server-sent events: "add" (data: {"id","html"}) for an approval the page
// should show, "remove" (data: its id) for one answered, withdrawn or
// expired, "leave" (data: its id) for one that waits on another page of
// the list now, "count" (data: how many
// wait for the person) when that changes, "trouble" and "ok" when the
// store stops and starts answering. The page says which approvals it
// shows already in ?have=id,id,…, and which it shows: ?page=N of the list,
// or ?id= of one approval; the first events bring it up to date.
func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request) {
	sessions, _, why := h.sessionsOf(r)
	if why != nil {
		h.refuse(w, r, *why)
		return
	}
	person := personOf(sessions)
	if !h.takeStream(person) {
		w.Header().Set("Retry-After", "30")
		h.refuse(w, r, refusal{http.StatusServiceUnavailable, "too_many_streams",
			"Too many pages are open: this one is not updated live. Reload it to see new approvals."})
		return
	}
	defer h.releaseStream(person)
	q := r.URL.Query()
	page, single := q.Get("page"), q.Get("id")
	shown, total := map[string]bool{}, -1
	have := strings.SplitN(r.URL.Query().Get("have"), ",", maxHave+1)
	for _, id := range have[:min(len(have), maxHave)] {
		if len(id) == 32 {
			shown[id] = true
		}
	}

	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no") // nginx: do not hold events back
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return // the headers only: a stream no one reads would hold a slot
	}
	send := func(event, data string) error {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		var err error
		if event == "" {
			_, err = io.WriteString(w, data)
		} else {
			_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
		}
		if err == nil {
			err = rc.Flush()
		}
		return err
	}
	if send("", "retry: 2000\n\n") != nil {
		return
	}

	sub := h.hub.subscribe(r, sessions)
	defer h.hub.unsubscribe(sub)
	alive := time.NewTicker(keepAlive)
	defer alive.Stop()
	end := time.NewTimer(streamLifetime)
	defer end.Stop()
	trouble := false
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.closed:
			return
		case <-end.C:
			return
		case <-alive.C:
			if send("", ": still here\n\n") != nil {
				return
			}
		case v := <-sub.updates:
			if v.err != nil {
				if !trouble && send("trouble", "The approvals cannot be reached right now; this page will update when they can.") != nil {
					return
				}
				trouble = true
				continue
			}
			if trouble && send("ok", "The approvals can be reached again.") != nil {
				return
			}
			trouble = false
			if len(v.items) != total {
				if send("count", strconv.Itoa(len(v.items))) != nil {
					return
				}
				total = len(v.items)
			}
			if h.sendChanges(send, shown, v.items, shownOf(v.items, page, single), single != "") != nil {
				return
			}
		}
	}
}

// personOf names whoever may see sessions, for the streams' bound per
// person: the people Options.Sessions gives the same sessions share it
// (those it gives none, among them).
func personOf(sessions []string) string {
	d := sha256.New()
	for _, s := range sessions {
		fmt.Fprintf(d, "%d:%s", len(s), s)
	}
	return string(d.Sum(nil))
}

// takeStream takes a live-update stream's slot for person, if the
// handler's bound and person's leave one.
func (h *Handler) takeStream(person string) bool {
	h.streamsMu.Lock()
	defer h.streamsMu.Unlock()
	if h.streamsOpen >= h.maxStreams || h.streamsOf[person] >= h.maxPersonStreams {
		return false
	}
	h.streamsOpen++
	h.streamsOf[person]++
	return true
}

func (h *Handler) releaseStream(person string) {
	h.streamsMu.Lock()
	defer h.streamsMu.Unlock()
	h.streamsOpen--
	if h.streamsOf[person]--; h.streamsOf[person] <= 0 {
		delete(h.streamsOf, person)
	}
}

// shownOf returns the approvals of waiting (sorted) a page shows: those of
// its page of the list, or the one approval of its own page (id).
func shownOf(waiting []*tool.PendingApproval, page, id string) []*tool.PendingApproval {
	if id != "" {
		for _, p := range waiting {
			if idOf(p.State) == id {
				return []*tool.PendingApproval{p}
			}
		}
		return nil
	}
	_, from, to := window(len(waiting), page)
	return waiting[from:to]
}

// sendChanges sends what changed between the approvals the page shows and
// those it should show of all that wait (whole, on the page of one
// approval), and updates shown: "remove" for one that no longer waits,
// "leave" for one that waits on another page of the list now.
func (h *Handler) sendChanges(send func(event, data string) error, shown map[string]bool, all, waiting []*tool.PendingApproval, whole bool) error {
	now := map[string]bool{}
	for _, p := range waiting {
		id := idOf(p.State)
		now[id] = true
		if shown[id] {
			continue
		}
		html, err := h.itemHTML(p, whole)
		if err != nil {
			continue
		}
		data, _ := json.Marshal(struct {
			ID   string `json:"id"`
			HTML string `json:"html"`
		}{id, html})
		if err := send("add", string(data)); err != nil {
			return err
		}
		shown[id] = true
	}
	var still map[string]bool // of all, those that wait, when one left the page
	for id := range shown {
		if now[id] {
			continue
		}
		if still == nil {
			still = map[string]bool{}
			for _, p := range all {
				still[idOf(p.State)] = true
			}
		}
		event := "remove"
		if still[id] {
			event = "leave"
		}
		if err := send(event, id); err != nil {
			return err
		}
		delete(shown, id)
	}
	return nil
}

// hub looks in the store for the open pages of this handler: once per
// Poll, or at once when this handler changed something, it lists each
// session some page shows, once however many pages show it, and hands each
// page the approvals of its sessions. It runs while a page is open.
type hub struct {
	h *Handler

	mu      sync.Mutex
	subs    map[*subscriber]struct{}
	running bool
	wake    chan struct{} // buffered: a kick while a round runs is kept for the next
}

// subscriber is an open page: the sessions it shows, and the updates it
// is sent. Under Options.MayAnswer its sessions are those of the sessions
// with waiting approvals that MayAnswer lets its person see, asked again
// each round (new sessions come and go); its answers are kept, a bounded
// number, for as long as the page is open.
type subscriber struct {
	r       *http.Request // of the page's stream; nil under Options.Sessions
	updates chan snapshot // the latest snapshot only

	mu       sync.Mutex
	sessions []string
	answers  map[string]bool // MayAnswer's, by session
}

// maxAnswers bounds the answers of MayAnswer one open page keeps.
const maxAnswers = maxScan

// shows returns the sessions the page shows.
func (s *subscriber) shows() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// mayAnswer is MayAnswer for the page's person, remembered.
func (s *subscriber) mayAnswer(h *Handler, session string) bool {
	s.mu.Lock()
	ok, known := s.answers[session]
	s.mu.Unlock()
	if known {
		return ok
	}
	ok = h.mayAnswer(s.r, session)
	s.mu.Lock()
	if len(s.answers) < maxAnswers {
		s.answers[session] = ok
	}
	s.mu.Unlock()
	return ok
}

// snapshot is what waits for a page's sessions, or why it is not known.
type snapshot struct {
	items []*tool.PendingApproval
	err   error
}

// subscribe opens a page for the person of r, who may see sessions now.
func (b *hub) subscribe(r *http.Request, sessions []string) *subscriber {
	s := &subscriber{sessions: sessions, updates: make(chan snapshot, 1)}
	if b.h.sessions == nil {
		s.r, s.answers = r, map[string]bool{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs, b.wake = map[*subscriber]struct{}{}, make(chan struct{}, 1)
	}
	b.subs[s] = struct{}{}
	if !b.running {
		b.running = true
		go b.run()
	}
	b.kickLocked()
	return s
}

func (b *hub) unsubscribe(s *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs, s)
}

func (b *hub) kick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.kickLocked()
}

func (b *hub) kickLocked() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *hub) run() {
	tick := time.NewTicker(b.h.poll)
	defer tick.Stop()
	for {
		select {
		case <-b.wake:
		case <-tick.C:
		case <-b.h.closed:
			b.mu.Lock()
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Lock()
		if len(b.subs) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		subs := make([]*subscriber, 0, len(b.subs))
		asking := false // a page's sessions are MayAnswer's
		for s := range b.subs {
			subs = append(subs, s)
			asking = asking || s.r != nil
		}
		b.mu.Unlock()

		var scanErr error
		if asking {
			ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
			var all []string
			all, _, scanErr = b.h.waitingSessions(ctx)
			cancel()
			for _, s := range subs {
				if s.r != nil && scanErr == nil {
					shown, _ := mayOf(all, func(name string) bool { return s.mayAnswer(b.h, name) })
					s.mu.Lock()
					s.sessions = shown
					s.mu.Unlock()
				}
			}
		}
		sessions := map[string]bool{}
		for _, s := range subs {
			for _, name := range s.shows() {
				sessions[name] = true
			}
		}
		lists, errs := map[string][]*tool.PendingApproval{}, map[string]error{}
		for name := range sessions {
			lists[name], errs[name] = b.h.list(context.Background(), name)
		}
		now := time.Now()
		for _, s := range subs {
			var v snapshot
			if s.r != nil {
				v.err = scanErr
			}
			for _, name := range s.shows() {
				if v.err != nil {
					break
				}
				if v.err = errs[name]; v.err != nil {
					break
				}
				v.items = append(v.items, lists[name]...)
			}
			if v.err == nil {
				v.items = sortWaiting(v.items, now)
			}
			select { // the latest wins: a page that fell behind skips ahead
			case <-s.updates:
			default:
			}
			s.updates <- v
		}
	}
}
