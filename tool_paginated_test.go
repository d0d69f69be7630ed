package tool_test

import (
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
