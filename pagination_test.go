package tool_test

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	"github.com/toolbelt-go/tool/tooltest"
)

type listArgs struct {
	Dir string `json:"dir"`
	tool.PageArgs
}

// lister pages through 25 numbered files of dir; its state is the offset.
func lister() tool.AnyTool {
	return tool.NewPaginated(tool.Definition{Name: "list", Description: "Lists files, a page at a time."},
		func(_ context.Context, in listArgs, page tool.Page) ([]string, []byte, error) {
			off := 0
			if page.State != nil {
				off = int(binary.BigEndian.Uint32(page.State))
			}
			size := page.Size
			if size == 0 {
				size = 10
			}
			var out []string
			for i := off; i < min(off+size, 25); i++ {
				out = append(out, in.Dir+"/f"+strconv.Itoa(i))
			}
			if off+size >= 25 {
				return out, nil, nil
			}
			return out, binary.BigEndian.AppendUint32(nil, uint32(off+size)), nil
		})
}

type pageOut struct {
	Results    []string `json:"results"`
	NextCursor string   `json:"next_cursor"`
}

func page(t *testing.T, r *tool.Registry[struct{}], session, args string) (pageOut, *tool.Result) {
	t.Helper()
	res := r.Call(context.Background(), struct{}{}, tool.Request{ID: "p", Name: "list", Args: []byte(args), Session: session})
	var p pageOut
	if res.Status == tool.StatusOK {
		require.NoError(t, json.Unmarshal([]byte(res.Text()), &p))
	}
	return p, res
}

func withCursor(args, cursor string) string {
	return strings.TrimSuffix(args, "}") + `,"cursor":` + strconv.Quote(cursor) + `}`
}

func TestPagination(t *testing.T) {
	clock := tooltest.NewClock()
	r := registryWith(t, &tool.RegistryOptions{Keyring: newKeyring(t, clock, keyring.Key{ID: "k1", Secret: secret(1)})}, lister())

	p1, _ := page(t, r, "s1", `{"dir":"src"}`)
	assert.Equal(t, []string{"src/f0", "src/f1"}, p1.Results[:2])
	require.NotEmpty(t, p1.NextCursor)

	p2, _ := page(t, r, "s1", withCursor(`{"dir":"src","page_size":5}`, p1.NextCursor))
	assert.Equal(t, []string{"src/f10", "src/f11", "src/f12", "src/f13", "src/f14"}, p2.Results, "a page size change is honoured")
	p3, _ := page(t, r, "s1", withCursor(`{"dir":"src","page_size":20}`, p2.NextCursor))
	assert.Len(t, p3.Results, 10)
	assert.Empty(t, p3.NextCursor, "no cursor after the last page")
}

func TestDefaultKeyringWorksInProcess(t *testing.T) {
	r := registryWith(t, nil, lister())
	p1, _ := page(t, r, "s1", `{"dir":"x"}`)
	_, res := page(t, r, "s1", withCursor(`{"dir":"x"}`, p1.NextCursor))
	tooltest.WantOK(t, res)
}

func TestPaginatedNeedsPageArgs(t *testing.T) {
	bad := tool.NewPaginated(tool.Definition{Name: "bad", Description: "No PageArgs."},
		func(context.Context, struct{ Dir string }, tool.Page) (string, []byte, error) { return "", nil, nil })
	err := tool.NewRegistry[struct{}](nil).Add(bad)
	assert.ErrorContains(t, err, "must embed tool.PageArgs")
}

// A call with no session belongs to no conversation: it is given no
// cursor, and none is honoured for it, so it can never pick up another
// caller's pages.
func TestNoSessionNoCursors(t *testing.T) {
	r := registryWith(t, nil, lister())
	p, res := page(t, r, "", `{"dir":"src"}`)
	tooltest.WantOK(t, res)
	assert.Empty(t, p.NextCursor)
	assert.Contains(t, res.Text(), "narrow the request")
	withSession, _ := page(t, r, "s1", `{"dir":"src"}`)
	require.NotEmpty(t, withSession.NextCursor)
	_, res = page(t, r, "", withCursor(`{"dir":"src"}`, withSession.NextCursor))
	tooltest.WantStatus(t, res, tool.StatusInvalid)
	assert.Contains(t, res.Text(), "cannot be used in this conversation")
}

// shelf is a host's per-call state: the books a paginated tool lists.
type shelf struct{ books []string }

// shelfLister pages through the books of the call's state, two at a time
// unless page_size says otherwise; its state is the offset.
func shelfLister() tool.Tool[*shelf] {
	return tool.NewPaginatedFor(tool.Definition{Name: "books", Description: "Lists the books on the shelf.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, call *tool.Call[*shelf], in struct {
			Prefix string `json:"prefix,omitempty"`
			tool.PageArgs
		}, page tool.Page) ([]string, []byte, error) {
			off := 0
			if page.State != nil {
				off = int(binary.BigEndian.Uint32(page.State))
			}
			size := cmp.Or(page.Size, 2)
			var out []string
			for _, b := range call.State.books[min(off, len(call.State.books)):] {
				if len(out) == size {
					return out, binary.BigEndian.AppendUint32(nil, uint32(off+size)), nil
				}
				if strings.HasPrefix(b, in.Prefix) {
					out = append(out, b)
				}
			}
			return out, nil, nil
		})
}

func TestPaginatedFor(t *testing.T) {
	home := &shelf{books: []string{"Dune", "Emma", "Ivanhoe", "Kim", "Ulysses"}}
	reg := tool.NewRegistry[*shelf](nil)
	require.NoError(t, reg.Add(shelfLister()))
	call := func(s *shelf, session, args string) (pageOut, *tool.Result) {
		t.Helper()
		res := reg.Call(context.Background(), s, tool.Request{Name: "books", Args: []byte(args), Session: session})
		var p pageOut
		if res.Status == tool.StatusOK {
			require.NoError(t, json.Unmarshal([]byte(res.Text()), &p), res.Text())
		}
		return p, res
	}

	t.Run("pages through the call's state", func(t *testing.T) {
		var all []string
		args := `{}`
		for range 5 {
			p, res := call(home, "s1", args)
			tooltest.WantOK(t, res)
			all = append(all, p.Results...)
			if p.NextCursor == "" {
				break
			}
			args = `{"cursor":"` + p.NextCursor + `"}`
		}
		assert.Equal(t, home.books, all)
	})
	t.Run("the cursor is bound to tool, session and arguments, not to the state", func(t *testing.T) {
		p1, _ := call(home, "s1", `{}`)
		require.NotEmpty(t, p1.NextCursor)
		other := &shelf{books: []string{"A", "B", "C", "D"}}
		next := `{"cursor":"` + p1.NextCursor + `"}`
		p2, res := call(other, "s1", next)
		tooltest.WantOK(t, res)
		assert.Equal(t, []string{"C", "D"}, p2.Results, "the next page of the state the call has")
		_, res = call(home, "s2", next)
		tooltest.WantStatus(t, res, tool.StatusInvalid)
		_, res = call(home, "s1", withCursor(`{"prefix":"K"}`, p1.NextCursor))
		tooltest.WantStatus(t, res, tool.StatusInvalid)
		_, res = call(home, "s1", `{"cursor":"AQ-invented"}`)
		tooltest.WantStatus(t, res, tool.StatusInvalid)
		assert.Contains(t, res.Text(), "without a cursor")
	})
	t.Run("no session, no cursor", func(t *testing.T) {
		p, res := call(home, "", `{}`)
		tooltest.WantOK(t, res)
		assert.Empty(t, p.NextCursor)
		assert.Contains(t, res.Text(), "narrow the request")
	})
	t.Run("wrapped, it is still paginated", func(t *testing.T) {
		r := tool.NewRegistry[*shelf](nil)
		require.NoError(t, r.Add(tool.Wrap(shelfLister())))
		res := r.Call(context.Background(), home, tool.Request{Name: "books", Args: []byte(`{"cursor":"AQ-invented"}`), Session: "s1"})
		tooltest.WantStatus(t, res, tool.StatusInvalid)
	})
	t.Run("the argument type must embed PageArgs", func(t *testing.T) {
		bad := tool.NewPaginatedFor(tool.Definition{Name: "bad", Description: "No PageArgs."},
			func(context.Context, *tool.Call[*shelf], struct{ Dir string }, tool.Page) (string, []byte, error) {
				return "", nil, nil
			})
		assert.ErrorContains(t, tool.NewRegistry[*shelf](nil).Add(bad), "must embed tool.PageArgs")
	})
}
