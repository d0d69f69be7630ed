package approvalweb_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/approvalweb"
)

// syncBuffer is a log the test reads while the handler writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// eventually waits until cond holds, failing the test after 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
	}
}

// A call that waits on a page no one has open is said on the host's side:
// a warning in the log, once, and a count in Status; a page that may
// answer it, once open, makes it watched. Before, it waited its 10
// minutes with nothing said.
func TestUnwatchedCallIsSaid(t *testing.T) {
	defer approvalweb.SetUnwatchedAfter(50 * time.Millisecond)()
	var log syncBuffer
	f := newFixture(t, &approvalweb.Options{Sessions: sessionsOf, Logger: slog.New(slog.NewTextHandler(&log, nil)), Poll: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	f.call(ctx, "conv-ada", "fetch_url", `{"url":"https://example.com"}`)
	eventually(t, "no warning of a call no page may answer", func() bool {
		return strings.Contains(log.String(), "no page that may answer it is open")
	})
	line := log.String()
	for _, want := range []string{"level=WARN", "tool=fetch_url", "session=conv-ada", "call_id=call-fetch_url", "expires="} {
		assert.Contains(t, line, want)
	}
	assert.Equal(t, approvalweb.Status{Pages: 0, Waiting: 1, Unwatched: 1}, f.page.Status())

	grace := f.stream("grace", "") // grace may not answer conv-ada
	require.Equal(t, http.StatusOK, grace.resp.StatusCode)
	eventually(t, "grace's page is not counted", func() bool { return f.page.Status().Pages == 1 })
	assert.Equal(t, 1, f.page.Status().Unwatched, "a page that may not answer it does not watch it")

	ada := f.stream("ada", "")
	require.Equal(t, http.StatusOK, ada.resp.StatusCode)
	addedOf(t, ada.next())
	assert.Equal(t, approvalweb.Status{Pages: 2, Waiting: 1, Unwatched: 0}, f.page.Status())
	time.Sleep(100 * time.Millisecond)
	assert.Equal(t, 1, strings.Count(log.String(), "no page that may answer it is open"), "said once")
}

// A call whose page is open when it starts to wait is not warned of.
func TestWatchedCallIsNotWarnedOf(t *testing.T) {
	defer approvalweb.SetUnwatchedAfter(50 * time.Millisecond)()
	var log syncBuffer
	f := newFixture(t, &approvalweb.Options{MayAnswer: mayAnswerByUser(nil), Logger: slog.New(slog.NewTextHandler(&log, nil)), Poll: 10 * time.Millisecond})
	s := f.stream("ada", "")
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	done := f.call(context.Background(), "ada/mcp-1", "fetch_url", `{"url":"https://example.com"}`)
	addedOf(t, s.next())
	time.Sleep(200 * time.Millisecond)
	assert.Equal(t, approvalweb.Status{Pages: 1, Waiting: 1, Unwatched: 0}, f.page.Status())
	assert.NotContains(t, log.String(), "no page that may answer it is open")
	require.NoError(t, f.page.Answer(context.Background(), f.waiting("ada/mcp-1").State, tool.Decision{Kind: tool.DecisionAllowOnce}))
	assert.Equal(t, tool.StatusOK, result(t, done).Status)
	assert.Equal(t, approvalweb.Status{Pages: 1}, f.page.Status())
}
