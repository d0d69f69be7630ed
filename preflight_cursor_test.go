package tool_test

import (
	"context"
	"encoding/base64"
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
