package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestSpillReadsBackEverything(t *testing.T) {
	out := numberedLines(5000) // about 140 KB
	for _, capBytes := range []int{1024, 4096, 32 << 10} {
		t.Run(fmt.Sprint(capBytes), func(t *testing.T) {
			r := spillRegistry(t, tool.NewMemorySpillStore(0), capBytes, bigTool("big", out))
			res := callAs(r, "s1", "big", `{}`)
			require.Equal(t, tool.StatusOK, res.Status)
			txt := res.Text()
			assert.LessOrEqual(t, len(txt), capBytes)
			require.Regexp(t, cursorInText, txt)

			// head + every part read + tail is the output, byte for byte.
			m := regexp.MustCompile(`(?s)^(.*)\n\[… (\d+) bytes cut here\. To read them, call read_output with \{"cursor":"[^"]+"\} …\]\n(.*)$`).FindStringSubmatch(txt)
			require.NotNil(t, m, "marker: %q", txt)
			head, tail := m[1], m[3]
			parts := readAll(t, r, "s1", res, capBytes)
			assert.Equal(t, out, head+strings.Join(parts, "")+tail)
			assert.Equal(t, len(out)-len(head)-len(tail), res.Truncated)
			assert.Equal(t, fmt.Sprint(res.Truncated), m[2])
		})
	}
}

func TestSpillRefusals(t *testing.T) {
	clock := tooltest.NewClock()
	store := tool.NewMemorySpillStore(300 << 10)
	store.Now = clock.Now
	keys, err := keyring.FromSecret([]byte(strings.Repeat("k", 32)))
	require.NoError(t, err)
	keys.Now, keys.TTL = clock.Now, time.Minute
	r := registryWith(t, &tool.RegistryOptions{Spill: store, Keyring: keys, MaxOutputBytes: 4096},
		bigTool("big", numberedLines(5000)), lister())
	cursorOf := func(res *tool.Result) string {
		m := cursorInText.FindStringSubmatch(res.Text())
		require.NotNil(t, m, res.Text())
		return m[1]
	}
	read := func(session, cursor string) *tool.Result {
		return callAs(r, session, tool.ReadOutputTool, `{"cursor":"`+cursor+`"}`)
	}

	t.Run("another session", func(t *testing.T) {
		res := read("other", cursorOf(callAs(r, "s1", "big", `{}`)))
		assert.Equal(t, tool.StatusInvalid, res.Status)
		assert.Contains(t, res.Text(), "different request")
	})
	t.Run("altered", func(t *testing.T) {
		c := []byte(cursorOf(callAs(r, "s1", "big", `{}`)))
		c[len(c)/2] ^= 1
		res := read("s1", string(c))
		assert.Equal(t, tool.StatusInvalid, res.Status)
		assert.Contains(t, res.Text(), "without a cursor")
	})
	t.Run("a page cursor", func(t *testing.T) {
		page := callAs(r, "s1", "list", `{"dir":"d","page_size":2}`)
		var p struct {
			Next string `json:"next_cursor"`
		}
		require.NoError(t, json.Unmarshal(page.Structured, &p))
		require.NotEmpty(t, p.Next)
		res := read("s1", p.Next)
		assert.Equal(t, tool.StatusInvalid, res.Status)
		var ae *tool.ArgsError
		require.ErrorAs(t, res.Err, &ae)
	})
	t.Run("missing", func(t *testing.T) {
		res := callAs(r, "s1", tool.ReadOutputTool, `{}`)
		assert.Equal(t, tool.StatusInvalid, res.Status)
		assert.Contains(t, res.Text(), "cursor")
	})
	t.Run("expired", func(t *testing.T) {
		c := cursorOf(callAs(r, "s1", "big", `{}`))
		clock.Advance(2 * time.Minute)
		res := read("s1", c)
		assert.Equal(t, tool.StatusInvalid, res.Status)
		assert.Contains(t, res.Text(), "expired")
	})
	t.Run("evicted", func(t *testing.T) {
		first := cursorOf(callAs(r, "s1", "big", `{}`))
		for range 3 { // each spill is about 136 KB; the store holds 300 KB
			callAs(r, "s1", "big", `{}`)
		}
		res := read("s1", first)
		assert.Equal(t, tool.StatusFailed, res.Status)
		assert.Contains(t, res.Text(), "no longer kept")
		assert.ErrorIs(t, res.Err, tool.ErrSpillGone)
		assert.LessOrEqual(t, store.Len(), 300<<10)
	})
}

// One session's flood of long results evicts its own spills, not
// another's: the store bounds what each session holds.
func TestSpillFloodCostsOnlyItsSession(t *testing.T) {
	store := tool.NewMemorySpillStore(300 << 10) // each spill is about 136 KB
	r := spillRegistry(t, store, 4096, bigTool("big", numberedLines(5000)))
	victim := cursorInText.FindStringSubmatch(callAs(r, "victim", "big", `{}`).Text())
	require.NotNil(t, victim)
	var flood []string
	for range 10 {
		m := cursorInText.FindStringSubmatch(callAs(r, "flood", "big", `{}`).Text())
		require.NotNil(t, m)
		flood = append(flood, m[1])
	}
	res := callAs(r, "victim", tool.ReadOutputTool, `{"cursor":"`+victim[1]+`"}`)
	assert.Equal(t, tool.StatusOK, res.Status, "the victim's spill: %s", res.Text())
	res = callAs(r, "flood", tool.ReadOutputTool, `{"cursor":"`+flood[len(flood)-1]+`"}`)
	assert.Equal(t, tool.StatusOK, res.Status, "the flood's newest spill: %s", res.Text())
	res = callAs(r, "flood", tool.ReadOutputTool, `{"cursor":"`+flood[0]+`"}`)
	assert.ErrorIs(t, res.Err, tool.ErrSpillGone, "the flood's oldest spill")
	assert.LessOrEqual(t, store.Len(), 300<<10)
}

func TestSpillRegistersReadOutput(t *testing.T) {
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0)})
	defs := r.Definitions()
	require.Len(t, defs, 1)
	assert.Equal(t, tool.ReadOutputTool, defs[0].Name)
	assert.Equal(t, tool.SafetyReadOnly, defs[0].Safety)

	err := r.Add(bigTool(tool.ReadOutputTool, "x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already registered")

	assert.Empty(t, tool.NewRegistry[struct{}](nil).Definitions(), "no spill store, no read_output")
}

// unreachableStore keeps what is put in it but cannot be read from, like a
// shared store that went away between two calls.
type unreachableStore struct{ *tool.MemorySpillStore }

func (unreachableStore) Get(context.Context, string, int, int) (string, error) {
	return "", errors.New("dial tcp 10.0.0.7:6379: connection refused")
}

func TestAStoreErrorIsHostData(t *testing.T) {
	r := spillRegistry(t, unreachableStore{tool.NewMemorySpillStore(0)}, 1024, bigTool("big", numberedLines(500)))
	res := callAs(r, "s1", "big", `{}`)
	m := regexp.MustCompile(`\{"cursor":"([A-Za-z0-9_-]+)"\}`).FindStringSubmatch(res.Text())
	require.NotNil(t, m, res.Text())
	out := callAs(r, "s1", tool.ReadOutputTool, `{"cursor":"`+m[1]+`"}`)
	tooltest.WantStatus(t, out, tool.StatusFailed)
	assert.Contains(t, out.Text(), "cannot be read right now")
	assert.NotContains(t, out.Text(), "10.0.0.7", "the store's address is host data")
	assert.ErrorContains(t, out.Err, "10.0.0.7", "the host view keeps it")
}
