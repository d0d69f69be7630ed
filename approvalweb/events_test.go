package approvalweb_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// event is one server-sent event.
type event struct{ name, data string }

// stream is an open live-update stream, as a page's EventSource reads it.
type stream struct {
	t      testing.TB
	resp   *http.Response
	events chan event
	count  atomic.Value // the data of the latest "count" event
	counts bool         // "count" events come as events too
}

func (f *fixture) stream(person, have string) *stream {
	return f.streamOf(person, "have="+have, false)
}

// streamOf opens a stream with the query query; with counts, "count"
// events come in turn with the others.
func (f *fixture) streamOf(person, query string, counts bool) *stream {
	f.t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.url+"events?"+query, nil)
	require.NoError(f.t, err)
	req.Header.Set(personHeader, person)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := f.srv.Client().Do(req)
	require.NoError(f.t, err)
	f.t.Cleanup(func() { resp.Body.Close() })
	s := &stream{t: f.t, resp: resp, events: make(chan event, 100), counts: counts}
	if resp.StatusCode != http.StatusOK {
		return s
	}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var e event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				switch {
				case e.name == "count" && !s.counts:
					s.count.Store(e.data) // the number waiting: read by count()
				case e.name != "":
					s.events <- e
				}
				e = event{}
			case strings.HasPrefix(line, "event: "):
				e.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				e.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return s
}

// next returns the next event, failing the test if none comes in time.
func (s *stream) next() event {
	s.t.Helper()
	select {
	case e, ok := <-s.events:
		if !ok {
			s.t.Fatal("the stream ended")
		}
		return e
	case <-time.After(10 * time.Second):
		s.t.Fatal("no event came")
		return event{}
	}
}

// quiet fails the test if an event comes within d.
func (s *stream) quiet(d time.Duration) {
	s.t.Helper()
	select {
	case e, ok := <-s.events:
		if ok {
			s.t.Fatalf("unexpected event %s: %.200s", e.name, e.data)
		}
	case <-time.After(d):
	}
}

type added struct{ ID, HTML string }

func addedOf(t *testing.T, e event) added {
	t.Helper()
	require.Equal(t, "add", e.name, e.data)
	var a added
	require.NoError(t, json.Unmarshal([]byte(e.data), &a))
	return a
}

func TestEventsAddAndRemove(t *testing.T) {
	f := newFixture(t, nil)
	s := f.stream("ada", "")
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	assert.Equal(t, "text/event-stream", s.resp.Header.Get("Content-Type"))

	done := f.call(context.Background(), "conv-ada", "write_note", `{"path":"todo.md","text":"- milk\n"}`)
	a := addedOf(t, s.next())
	assert.Len(t, a.ID, 32)
	assert.Contains(t, a.HTML, `<li id="a-`+a.ID+`"`)
	assert.Contains(t, a.HTML, `<span class="del">- - eggs</span>`)

	f.deferred("conv-grace", "write_note", `{"path":"grace.md","text":"x"}`)
	s.quiet(200 * time.Millisecond) // not ada's

	p := f.waiting("conv-ada")
	status, _ := f.post("ada", answer(p.State, "allow_once"), nil) // from another tab
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, event{"remove", a.ID}, s.next())
	assert.Equal(t, tool.StatusOK, result(t, done).Status)
}

// A page says which approvals it shows: those are not sent again, and
// those no longer waiting are removed.
func TestEventsHave(t *testing.T) {
	f := newFixture(t, nil)
	p := f.deferred("conv-ada", "write_note", `{"path":"a.md","text":"x"}`)
	q := f.deferred("conv-ada", "write_note", `{"path":"b.md","text":"y"}`)
	_, page := f.get("ada", "")
	var shown []string
	for _, part := range strings.Split(page, `<li id="a-`)[1:] {
		shown = append(shown, part[:32])
	}
	require.Len(t, shown, 2)
	require.NoError(t, f.page.Answer(context.Background(), p.State, tool.Decision{Kind: tool.DecisionAllowOnce}))

	s := f.stream("ada", strings.Join(append(shown, strings.Repeat("0", 32), "short"), ","))
	got := map[string]bool{s.next().data: true, s.next().data: true}
	assert.Len(t, got, 2, "the answered approval and the unknown id are removed")
	assert.NotContains(t, got, idOfPage(t, page, q.State), "the approval still waiting is not sent again")
	s.quiet(200 * time.Millisecond)
}

// idOfPage returns the element id the page gave the approval of state.
func idOfPage(t *testing.T, page, state string) string {
	t.Helper()
	i := strings.Index(page, `value="`+state+`"`)
	require.Positive(t, i)
	j := strings.LastIndex(page[:i], `<li id="a-`)
	return page[j+len(`<li id="a-`) : j+len(`<li id="a-`)+32]
}

// Approvals offered and answered through another replica, which shares the
// store but not this handler, reach the stream within Poll.
func TestEventsFromAnotherReplica(t *testing.T) {
	store := tool.NewMemoryPendingApprovalStore(0)
	a := newFixture(t, &approvalweb.Options{Store: store, Poll: 20 * time.Millisecond})
	b := newFixture(t, &approvalweb.Options{Store: store, Poll: 20 * time.Millisecond})
	s := b.stream("ada", "")
	done := a.call(context.Background(), "conv-ada", "write_note", `{"path":"todo.md","text":"on a"}`)
	add := addedOf(t, s.next())
	p := b.waiting("conv-ada")
	status, _ := b.post("ada", answer(p.State, "allow_once"), nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, event{"remove", add.ID}, s.next())
	assert.Equal(t, tool.StatusOK, result(t, done).Status, "the call waiting on a read the answer given on b")
	assert.Equal(t, "on a", a.notes.get("todo.md"))
}

func TestEventsStoreTrouble(t *testing.T) {
	store := &flakyStore{PendingApprovalStore: tool.NewMemoryPendingApprovalStore(0)}
	f := newFixture(t, &approvalweb.Options{Store: store, Poll: 20 * time.Millisecond})
	s := f.stream("ada", "")
	store.down.Store(true)
	assert.Equal(t, "trouble", s.next().name)
	store.down.Store(false)
	assert.Equal(t, "ok", s.next().name)
}

// flakyStore fails every call while down is set.
type flakyStore struct {
	tool.PendingApprovalStore
	down atomic.Bool
}

func (s *flakyStore) List(ctx context.Context, session string) ([]*tool.PendingApproval, error) {
	if s.down.Load() {
		return nil, errUnreachable
	}
	return s.PendingApprovalStore.List(ctx, session)
}

func TestEventsBounded(t *testing.T) {
	f := newFixture(t, &approvalweb.Options{MaxStreams: 1})
	first := f.stream("ada", "")
	require.Equal(t, http.StatusOK, first.resp.StatusCode)
	second := f.stream("ada", "")
	assert.Equal(t, http.StatusServiceUnavailable, second.resp.StatusCode)
	assert.NotEmpty(t, second.resp.Header.Get("Retry-After"))
	var a answerResponse
	require.NoError(t, json.NewDecoder(second.resp.Body).Decode(&a))
	assert.Equal(t, "too_many_streams", a.Code)

	first.resp.Body.Close() // a page closes: its slot is free again
	require.Eventually(t, func() bool {
		s := f.stream("ada", "")
		defer s.resp.Body.Close()
		return s.resp.StatusCode == http.StatusOK
	}, 5*time.Second, 10*time.Millisecond)
}

func TestCloseEndsStreams(t *testing.T) {
	f := newFixture(t, nil)
	s := f.stream("ada", "")
	require.NoError(t, f.page.Close())
	select {
	case _, ok := <-s.events:
		assert.False(t, ok, "no event, the end")
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end")
	}
}

// A HEAD request gets the stream's headers and holds no slot.
func TestEventsHead(t *testing.T) {
	f := newFixture(t, &approvalweb.Options{MaxStreams: 1})
	req, err := http.NewRequest(http.MethodHead, f.url+"events", nil)
	require.NoError(t, err)
	req.Header.Set(personHeader, "ada")
	resp, err := f.srv.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	s := f.stream("ada", "")
	assert.Equal(t, http.StatusOK, s.resp.StatusCode, "the HEAD request's slot was given back")
}

// One person's streams, or the streams of requests Sessions gives no
// session, hold at most a tenth of MaxStreams: a flood of them, from one
// person or from anyone the host does not know, leaves the live updates
// of everyone else (before: 20 streams of one party took every slot, and
// every other person's page was refused live updates).
func TestEventsBoundedPerPerson(t *testing.T) {
	cases := []struct {
		name    string
		flooder string
		victim  string
	}{
		{"one person's tabs", "ada", "grace"},
		{"requests the host gives no session", "nobody", "ada"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const max = 20
			f := newFixture(t, &approvalweb.Options{MaxStreams: max, Sessions: func(r *http.Request) ([]string, error) {
				if r.Header.Get(personHeader) == "nobody" {
					return nil, nil // not logged in: nothing to see
				}
				return sessionsOf(r)
			}})
			open := 0
			for range max {
				s := f.stream(c.flooder, "")
				if s.resp.StatusCode == http.StatusOK {
					open++
				} else {
					assert.Equal(t, http.StatusServiceUnavailable, s.resp.StatusCode)
				}
			}
			assert.Equal(t, max/10, open, "streams of one person")
			victim := f.stream(c.victim, "")
			assert.Equal(t, http.StatusOK, victim.resp.StatusCode, "another person's stream")
		})
	}
}
