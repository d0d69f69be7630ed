package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

var cursorInText = regexp.MustCompile(`read_output with \{"cursor":"([A-Za-z0-9_-]+)"\}`)

// numberedLines is output whose every part can be told apart: line i says
// i, with some multi-byte text so cuts must respect characters.
func numberedLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %05d — ünïcödé\n", i)
	}
	return b.String()
}

func bigTool(name, out string) tool.AnyTool {
	return tool.NewRaw(tool.Definition{Name: name, Description: "Prints a lot.", Safety: tool.SafetyReadOnly,
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult(out), nil })
}

func spillRegistry(t *testing.T, store tool.SpillStore, capBytes int, tools ...tool.Definer) *tool.Registry[struct{}] {
	t.Helper()
	return registryWith(t, &tool.RegistryOptions{Spill: store, MaxOutputBytes: capBytes}, tools...)
}

func callAs(r *tool.Registry[struct{}], session, name, args string) *tool.Result {
	return r.Call(context.Background(), struct{}{}, tool.Request{ID: "c", Name: name, Session: session, Args: json.RawMessage(args)})
}

// readAll follows read_output cursors from a cut result to the end and
// returns the parts read, in order.
func readAll(t *testing.T, r *tool.Registry[struct{}], session string, res *tool.Result, capBytes int) []string {
	t.Helper()
	var parts []string
	for range 1000 {
		m := cursorInText.FindStringSubmatch(res.Text())
		if m == nil {
			return parts
		}
		res = callAs(r, session, tool.ReadOutputTool, `{"cursor":"`+m[1]+`"}`)
		require.Equal(t, tool.StatusOK, res.Status, res.Text())
		txt := res.Text()
		require.LessOrEqual(t, len(txt), capBytes)
		require.True(t, utf8.ValidString(txt))
		i := strings.LastIndex(txt, "\n[bytes ")
		require.Positive(t, i, "trailer missing: %q", txt[max(0, len(txt)-100):])
		parts = append(parts, txt[:i])
	}
	require.Fail(t, "read_output never reached the end")
	return nil
}

func TestSpillFallsBackToPlainCap(t *testing.T) {
	out := numberedLines(5000)
	tests := []struct {
		name     string
		store    tool.SpillStore
		capBytes int
	}{
		{"store too small", tool.NewMemorySpillStore(1000), 4096},
		{"store fails", failingStore{}, 4096},
		{"cap too small for a cursor", tool.NewMemorySpillStore(0), 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := spillRegistry(t, tt.store, tt.capBytes, bigTool("big", out))
			res := callAs(r, "", "big", `{}`)
			assert.Equal(t, tool.StatusOK, res.Status)
			assert.LessOrEqual(t, len(res.Text()), tt.capBytes)
			assert.Contains(t, res.Text(), "bytes cut here …]")
			assert.NotContains(t, res.Text(), tool.ReadOutputTool)
			assert.Positive(t, res.Truncated)
		})
	}
}

type failingStore struct{}

func (failingStore) Put(context.Context, string, string, time.Time) error {
	return fmt.Errorf("disk full")
}
func (failingStore) Get(context.Context, string, int, int) (string, error) {
	return "", tool.ErrSpillGone
}

func TestSpillSmallOutputIsNotSpilled(t *testing.T) {
	store := tool.NewMemorySpillStore(0)
	r := spillRegistry(t, store, 4096, bigTool("small", "just this"))
	res := callAs(r, "", "small", `{}`)
	assert.Equal(t, "just this", res.Text())
	assert.Zero(t, store.Len())
}

func TestMemorySpill(t *testing.T) {
	ctx := context.Background()
	clock := tooltest.NewClock()
	entry := 4 + 1 + 240 // 4 bytes of data, a 1-byte id, the bookkeeping
	s := tool.NewMemorySpillStore(2*entry + 10)
	s.Now = clock.Now
	later := clock.Now().Add(time.Minute)

	require.NoError(t, s.Put(ctx, "a", "aaaa", later))
	require.NoError(t, s.Put(ctx, "b", "bbbb", later))
	got, err := s.Get(ctx, "a", 1, 2)
	require.NoError(t, err)
	assert.Equal(t, "aa", got)
	got, err = s.Get(ctx, "b", 2, 100)
	require.NoError(t, err)
	assert.Equal(t, "bb", got, "a read past the end stops at the end")

	require.NoError(t, s.Put(ctx, "c", "cccc", later)) // a, the oldest, goes
	_, err = s.Get(ctx, "a", 0, 1)
	assert.ErrorIs(t, err, tool.ErrSpillGone)
	assert.Equal(t, 2*entry, s.Len())

	clock.Advance(time.Minute)
	_, err = s.Get(ctx, "b", 0, 1)
	assert.ErrorIs(t, err, tool.ErrSpillGone, "expired")
	require.NoError(t, s.Put(ctx, "d", "d", clock.Now().Add(time.Minute)))
	assert.Equal(t, entry-3, s.Len(), "expired entries are swept on Put")

	assert.Error(t, s.Put(ctx, "e", strings.Repeat("e", 2*entry), later), "larger than the store")
	_, err = s.Get(ctx, "d", 5, 1)
	assert.Error(t, err, "offset out of range")
	_, err = s.Get(ctx, "d", -1, 1)
	assert.Error(t, err)
}

// TestMemorySpillCountsWhatItHolds checks that the bound counts what the
// store really holds: many small entries cost more than their data.
func TestMemorySpillBoundsEachSession(t *testing.T) {
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
	x := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name string
		puts []string // ids, each with 500 bytes of data, in a store of 16 KiB: two fit a session's share
		kept []string // ids still kept after them
		gone []string // ids evicted
	}{
		{"one session holds an eighth of the store: its oldest go first, not others'",
			[]string{"v.1", "a.1", "a.2", "a.3", "a.4", "a.5", "a.6"},
			[]string{"v.1", "a.5", "a.6"}, []string{"a.1", "a.2", "a.3", "a.4"}},
		{"sessions apart each keep their share",
			[]string{"a.1", "b.1", "c.1", "a.2", "b.2", "c.2"},
			[]string{"a.1", "a.2", "b.1", "b.2", "c.1", "c.2"}, nil},
		{"ids without a dot are bounded only by the store",
			[]string{"1", "2", "3", "4", "5", "6", "7", "8"},
			[]string{"1", "8"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tool.NewMemorySpillStore(16 << 10)
			for _, id := range tt.puts {
				require.NoError(t, s.Put(ctx, id, x(500), later))
			}
			for _, id := range tt.kept {
				_, err := s.Get(ctx, id, 0, 1)
				assert.NoError(t, err, "%s should be kept", id)
			}
			for _, id := range tt.gone {
				_, err := s.Get(ctx, id, 0, 1)
				assert.ErrorIs(t, err, tool.ErrSpillGone, "%s should be gone", id)
			}
		})
	}
	t.Run("an entry larger than a session's share is kept alone", func(t *testing.T) {
		s := tool.NewMemorySpillStore(16 << 10)
		require.NoError(t, s.Put(ctx, "a.1", x(1000), later))
		require.NoError(t, s.Put(ctx, "a.big", x(8000), later))
		_, err := s.Get(ctx, "a.big", 0, 1)
		assert.NoError(t, err)
		_, err = s.Get(ctx, "a.1", 0, 1)
		assert.ErrorIs(t, err, tool.ErrSpillGone)
	})
}

func TestMemorySpillCountsWhatItHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const n = 50_000
	data := make([]string, n)
	for i := range data {
		data[i] = strings.Repeat("x", 100) // one allocation each, as outputs are
	}
	s := tool.NewMemorySpillStore(1 << 30)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i, d := range data {
		// Ids as the registry makes them: 1,000 sessions of 50 entries.
		require.NoError(t, s.Put(context.Background(), fmt.Sprintf("%016x.%032x", i%1000, i), d, time.Now().Add(time.Hour)))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int(after.HeapAlloc-before.HeapAlloc) + n*100 // the data was allocated before
	t.Logf("held %d bytes, counted %d (%.2f)", held, s.Len(), float64(held)/float64(s.Len()))
	assert.LessOrEqual(t, held, s.Len()*11/10, "the store holds more than it counts")
	runtime.KeepAlive(data)
}

func TestMemorySpillStaysBoundedUnderChurn(t *testing.T) {
	ctx := context.Background()
	s := tool.NewMemorySpillStore(4 << 10)
	for i := range 10_000 {
		require.NoError(t, s.Put(ctx, fmt.Sprint(i), strings.Repeat("x", 100), time.Now().Add(time.Hour)))
		require.LessOrEqual(t, s.Len(), 4<<10)
	}
	got, err := s.Get(ctx, "9999", 0, 100)
	require.NoError(t, err)
	assert.Len(t, got, 100)
}

// BenchmarkMemorySpillPut measures a Put into a full store (each Put evicts
// the oldest entry) of 1,000 and of 100,000 entries: it must not grow with
// the number of entries.
func BenchmarkMemorySpillPut(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			ctx := context.Background()
			data := strings.Repeat("x", 100)
			s := tool.NewMemorySpillStore(n * (100 + 8 + 240))
			exp := time.Now().Add(time.Hour)
			for i := range n {
				_ = s.Put(ctx, fmt.Sprintf("%08d", i), data, exp)
			}
			i := n
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Put(ctx, fmt.Sprintf("%08d", i), data, exp)
				i++
			}
		})
	}
}

func TestSpillNeedsASession(t *testing.T) {
	store := tool.NewMemorySpillStore(0)
	r := spillRegistry(t, store, 2048, bigTool("big", numberedLines(500)))
	res := callAs(r, "", "big", `{}`)
	assert.Contains(t, res.Text(), "bytes cut here", "a plain cut")
	assert.NotContains(t, res.Text(), tool.ReadOutputTool, "no cursor for a call that belongs to no conversation")
	assert.Zero(t, store.Len())
}
