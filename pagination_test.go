package tool_test

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

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

func secret(b byte) []byte { return []byte(strings.Repeat(string(rune('a'+b)), 32)) }

func newKeyring(t *testing.T, clock *tooltest.Clock, current keyring.Key, retained ...keyring.Key) *keyring.Keyring {
	t.Helper()
	k, err := keyring.New(current, retained...)
	require.NoError(t, err)
	k.Now = clock.Now
	k.TTL = 10 * time.Minute
	return k
}

func TestCursorAttacks(t *testing.T) {
	clock := tooltest.NewClock()
	k1 := keyring.Key{ID: "k1", Secret: secret(1)}
	r := registryWith(t, &tool.RegistryOptions{Keyring: newKeyring(t, clock, k1)}, lister(),
		tool.NewPaginated(tool.Definition{Name: "other", Description: "Another paginated tool."},
			func(_ context.Context, in listArgs, _ tool.Page) ([]string, []byte, error) {
				return nil, []byte{1}, nil
			}))
	p1, _ := page(t, r, "s1", `{"dir":"src"}`)
	good := p1.NextCursor
	raw, err := base64.RawURLEncoding.DecodeString(good)
	require.NoError(t, err)
	flip := func(i int) string {
		b := append([]byte(nil), raw...)
		b[i] ^= 1
		return base64.RawURLEncoding.EncodeToString(b)
	}
	otherRes := r.Call(context.Background(), struct{}{}, tool.Request{Name: "other", Args: []byte(`{"dir":"src"}`), Session: "s1"})
	var otherPage pageOut
	require.NoError(t, json.Unmarshal([]byte(otherRes.Text()), &otherPage))

	rotatedOut := registryWith(t, &tool.RegistryOptions{Keyring: newKeyring(t, clock, keyring.Key{ID: "k2", Secret: secret(2)})}, lister())

	tests := []struct {
		name, session, args string
		reg                 *tool.Registry[struct{}]
		want                error
		text                string
	}{
		{name: "forged", args: withCursor(`{"dir":"src"}`, "0"), want: keyring.ErrMalformed, text: "invalid"},
		{name: "invented", args: withCursor(`{"dir":"src"}`, "start"), want: keyring.ErrMalformed},
		{name: "bit flipped in the state", args: withCursor(`{"dir":"src"}`, flip(len(raw)-40)), want: keyring.ErrBadSignature},
		{name: "bit flipped in the MAC", args: withCursor(`{"dir":"src"}`, flip(len(raw)-1)), want: keyring.ErrBadSignature},
		{name: "bit flipped in the key ID", args: withCursor(`{"dir":"src"}`, flip(2)), want: keyring.ErrUnknownKey},
		{name: "truncated", args: withCursor(`{"dir":"src"}`, good[:len(good)-4]), want: keyring.ErrMalformed},
		{name: "oversized", args: withCursor(`{"dir":"src"}`, strings.Repeat("A", keyring.MaxTokenLen+1)), want: keyring.ErrMalformed},
		{name: "re-encoded with padding", args: withCursor(`{"dir":"src"}`, base64.URLEncoding.EncodeToString(raw)), want: keyring.ErrMalformed},
		{name: "re-encoded in std alphabet", args: withCursor(`{"dir":"src"}`, base64.RawStdEncoding.EncodeToString(raw)+"+/"), want: keyring.ErrMalformed},
		{name: "other arguments", args: withCursor(`{"dir":"docs"}`, good), want: keyring.ErrOtherDigest, text: "different request"},
		{name: "other session", session: "s2", args: withCursor(`{"dir":"src"}`, good), want: keyring.ErrOtherSession},
		{name: "from another tool", args: withCursor(`{"dir":"src"}`, otherPage.NextCursor), want: keyring.ErrOtherPurpose},
		{name: "rotated-out key", reg: rotatedOut, args: withCursor(`{"dir":"src"}`, good), want: keyring.ErrUnknownKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, session := r, "s1"
			if tt.reg != nil {
				reg = tt.reg
			}
			if tt.session != "" {
				session = tt.session
			}
			_, res := page(t, reg, session, tt.args)
			tooltest.WantStatus(t, res, tool.StatusInvalid)
			tooltest.WantTextContains(t, res, "/cursor", "again without a cursor", tt.text)
			assert.ErrorIs(t, res.Err, tool.ErrCursorRefused)
			assert.ErrorIs(t, res.Err, tt.want)
			checkModelText(t, res)
		})
	}

	t.Run("expired", func(t *testing.T) {
		clock.Advance(10 * time.Minute)
		_, res := page(t, r, "s1", withCursor(`{"dir":"src"}`, good))
		tooltest.WantTextContains(t, res, "expired")
		assert.ErrorIs(t, res.Err, keyring.ErrExpired)
	})
}

func TestKeyRotation(t *testing.T) {
	clock := tooltest.NewClock()
	old := keyring.Key{ID: "old", Secret: secret(1)}
	r1 := registryWith(t, &tool.RegistryOptions{Keyring: newKeyring(t, clock, old)}, lister())
	p1, _ := page(t, r1, "s1", `{"dir":"src"}`)

	// Rotated: new key signs, the old one still verifies.
	r2 := registryWith(t, &tool.RegistryOptions{Keyring: newKeyring(t, clock, keyring.Key{ID: "new", Secret: secret(2)}, old)}, lister())
	p2, res := page(t, r2, "s1", withCursor(`{"dir":"src"}`, p1.NextCursor))
	tooltest.WantOK(t, res)
	assert.Equal(t, "src/f10", p2.Results[0])
	_, res = page(t, r1, "s1", withCursor(`{"dir":"src"}`, p2.NextCursor))
	tooltest.WantStatus(t, res, tool.StatusInvalid) // r1 does not hold "new"
}

func TestKeyringFromSecretAgreesAcrossProcesses(t *testing.T) {
	s := []byte("a shared secret of at least 32 bytes!!")
	k1, err := keyring.FromSecret(s)
	require.NoError(t, err)
	k2, _ := keyring.FromSecret(s)
	r1 := registryWith(t, &tool.RegistryOptions{Keyring: k1}, lister())
	r2 := registryWith(t, &tool.RegistryOptions{Keyring: k2}, lister())
	p1, _ := page(t, r1, "s1", `{"dir":"x"}`)
	_, res := page(t, r2, "s1", withCursor(`{"dir":"x"}`, p1.NextCursor))
	tooltest.WantOK(t, res)

	_, err = keyring.FromSecret([]byte("short"))
	assert.ErrorContains(t, err, "at least 32")
	_, err = keyring.New(keyring.Key{ID: "a", Secret: secret(1)}, keyring.Key{ID: "a", Secret: secret(2)})
	assert.ErrorContains(t, err, "used twice")
}

// FuzzCursor: a cursor that is not exactly the one issued is never
// accepted, and nothing panics.
func FuzzCursor(f *testing.F) {
	k, _ := keyring.New(keyring.Key{ID: "k1", Secret: secret(1)})
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Keyring: k})
	r.MustAdd(lister())
	res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "list", Args: []byte(`{"dir":"src"}`), Session: "s"})
	var p pageOut
	if err := json.Unmarshal([]byte(res.Text()), &p); err != nil {
		f.Fatal(err)
	}
	f.Add(p.NextCursor)
	f.Add(p.NextCursor[:len(p.NextCursor)-1])
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, c string) {
		res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "list", Session: "s", Args: []byte(`{"dir":"src","cursor":` + strconv.Quote(c) + `}`)})
		if c == p.NextCursor || c == "" {
			require.Equal(t, tool.StatusOK, res.Status, "the issued cursor was refused: %s", res.Text())
		} else {
			require.NotEqual(t, tool.StatusOK, res.Status, "a modified cursor %q was accepted", c)
		}
	})
}
