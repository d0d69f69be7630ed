package keyring_test

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool/keyring"
)

// flip returns token with one bit of its byte i (from the end) flipped.
func flip(token string, i int) string {
	raw, _ := base64.RawURLEncoding.DecodeString(token)
	raw[len(raw)-i] ^= 1
	return base64.RawURLEncoding.EncodeToString(raw)
}

func secret(b byte) []byte { return []byte(strings.Repeat(string(rune('a'+b)), 32)) }

func TestVerifyRefusesEachWay(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	k, err := keyring.New(keyring.Key{ID: "k1", Secret: secret(1)})
	require.NoError(t, err)
	k.Now = func() time.Time { return now }
	claims := keyring.Claims{Purpose: "list", Session: "s1", Digest: sha256.Sum256([]byte("{}")), State: []byte("offset")}
	token, err := k.Sign(claims)
	require.NoError(t, err)
	other, _ := keyring.New(keyring.Key{ID: "k2", Secret: secret(2)})
	with := func(f func(c *keyring.Claims)) keyring.Claims { c := claims; f(&c); return c }
	tests := []struct {
		name  string
		k     *keyring.Keyring
		token string
		want  keyring.Claims
		err   error
	}{
		{"good", k, token, claims, nil},
		{"empty", k, "", claims, keyring.ErrMalformed},
		{"oversized", k, strings.Repeat("A", keyring.MaxTokenLen+1), claims, keyring.ErrMalformed},
		{"newline", k, token[:10] + "\n" + token[10:], claims, keyring.ErrMalformed},
		{"truncated", k, token[:len(token)-4], claims, keyring.ErrMalformed},
		{"altered", k, flip(token, 40), claims, keyring.ErrBadSignature},
		{"unknown key", other, token, claims, keyring.ErrUnknownKey},
		{"other purpose", k, token, with(func(c *keyring.Claims) { c.Purpose = "read" }), keyring.ErrOtherPurpose},
		{"other session", k, token, with(func(c *keyring.Claims) { c.Session = "s2" }), keyring.ErrOtherSession},
		{"other digest", k, token, with(func(c *keyring.Claims) { c.Digest[0] ^= 1 }), keyring.ErrOtherDigest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, err := tt.k.Verify(tt.token, tt.want)
			if tt.err == nil {
				require.NoError(t, err)
				assert.Equal(t, claims.State, state)
				return
			}
			assert.ErrorIs(t, err, tt.err)
			assert.Nil(t, state)
		})
	}
	t.Run("expired", func(t *testing.T) {
		now = now.Add(keyring.DefaultTTL)
		_, err := k.Verify(token, claims)
		assert.ErrorIs(t, err, keyring.ErrExpired)
	})
}

func TestRotationAndSharedSecrets(t *testing.T) {
	old := keyring.Key{ID: "old", Secret: secret(1)}
	k1, _ := keyring.New(old)
	k2, err := keyring.New(keyring.Key{ID: "new", Secret: secret(2)}, old)
	require.NoError(t, err)
	token, _ := k1.Sign(keyring.Claims{Purpose: "p"})
	_, err = k2.Verify(token, keyring.Claims{Purpose: "p"})
	assert.NoError(t, err, "a retained key still verifies")

	s := []byte("a shared secret of at least 32 bytes!!")
	a, _ := keyring.FromSecret(s)
	b, _ := keyring.FromSecret(s)
	token, _ = a.Sign(keyring.Claims{Purpose: "p"})
	_, err = b.Verify(token, keyring.Claims{Purpose: "p"})
	assert.NoError(t, err, "the same secret gives the same keyring")

	for _, tt := range []struct {
		name string
		make func() error
		want string
	}{
		{"short secret", func() error { _, err := keyring.FromSecret([]byte("short")); return err }, "at least 32"},
		{"duplicate ID", func() error { _, err := keyring.New(old, old); return err }, "used twice"},
		{"long ID", func() error {
			_, err := keyring.New(keyring.Key{ID: strings.Repeat("x", 33), Secret: secret(1)})
			return err
		}, "1 to 32 bytes"},
	} {
		assert.ErrorContains(t, tt.make(), tt.want, tt.name)
	}
}
