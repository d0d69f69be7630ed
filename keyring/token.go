package keyring

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// MaxTokenLen bounds a token; a longer one is refused before any decoding.
const MaxTokenLen = 4096

// Claims is what a token binds.
type Claims struct {
	// Purpose says what the token is for (a tool's name): a token signed
	// for one purpose never verifies for another.
	Purpose string
	// Session is the conversation the token was issued in.
	Session string
	// Digest is a hash of what the token was issued for (the canonical
	// arguments of a call).
	Digest [sha256.Size]byte
	// Expires is when the token stops verifying; zero means the keyring's
	// TTL from now ([Keyring.Expiry]). Verify ignores it.
	Expires time.Time
	// State is the signer's own data, returned by Verify: an offset, a
	// key, a nonce. It is signed, not encrypted.
	State []byte
}

// Why Verify refuses a token. Each is returned as it is, so errors.Is and
// == both work.
var (
	ErrMalformed    = errors.New("keyring: malformed token")
	ErrBadSignature = errors.New("keyring: bad signature")
	ErrUnknownKey   = errors.New("keyring: signed with an unknown or rotated-out key")
	ErrExpired      = errors.New("keyring: expired")
	ErrOtherPurpose = errors.New("keyring: issued for another purpose")
	ErrOtherSession = errors.New("keyring: issued in another session")
	ErrOtherDigest  = errors.New("keyring: issued for other arguments")
)

const tokenVersion = 1

// Sign encodes c as a token, signed with the current key and issued now:
//
//	base64url( version | keyID | purpose | session | digest | issued | expires | state | mac )
//
// every variable field prefixed with its uvarint length, the MAC an
// HMAC-SHA256 over all that comes before it. A token longer than
// [MaxTokenLen] is an error: keep an offset or a key in State, not data.
func (k *Keyring) Sign(c Claims) (string, error) {
	key := &k.keys[0]
	now := k.now()
	exp := c.Expires
	if exp.IsZero() {
		exp = now.Add(k.ttl())
	}
	b := make([]byte, 0, 1+3*binary.MaxVarintLen16+len(key.ID)+len(c.Purpose)+len(c.Session)+len(c.State)+2*sha256.Size+16)
	b = append(b, tokenVersion)
	b = appendField(b, []byte(key.ID))
	b = appendField(b, []byte(c.Purpose))
	b = appendField(b, []byte(c.Session))
	b = append(b, c.Digest[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(now.Unix()))
	b = binary.BigEndian.AppendUint64(b, uint64(exp.Unix()))
	b = appendField(b, c.State)
	mac, done := k.mac(0)
	mac.Write(b)
	b = mac.Sum(b)
	done()
	s := base64.RawURLEncoding.EncodeToString(b)
	if len(s) > MaxTokenLen {
		return "", fmt.Errorf("keyring: the state is too large for a token (%d bytes encoded, limit %d); keep an offset or a key in it, not data", len(s), MaxTokenLen)
	}
	return s, nil
}

func appendField(b, f []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(f)))
	return append(b, f...)
}

// Verify decodes and checks a token for want's purpose, session and
// digest, and returns its state. Work is bounded: the size is checked
// before anything else, and nothing is trusted before the MAC is.
func (k *Keyring) Verify(token string, want Claims) ([]byte, error) {
	if len(token) == 0 || len(token) > MaxTokenLen {
		return nil, ErrMalformed
	}
	// Only the one canonical encoding is ours: Strict refuses nonzero
	// trailing bits, and the decoder would skip newlines, so refuse them.
	if strings.ContainsAny(token, "\r\n") {
		return nil, ErrMalformed
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil {
		return nil, ErrMalformed
	}
	r := reader{b: b}
	if v := r.byte(); v != tokenVersion {
		return nil, ErrMalformed
	}
	keyID := r.field()
	purpose := r.field()
	sess := r.field()
	digest := r.fixed(sha256.Size)
	issued := r.uint64()
	exp := r.uint64()
	state := r.field()
	body := len(b) - len(r.b)
	mac := r.fixed(sha256.Size)
	if r.err || len(r.b) != 0 {
		return nil, ErrMalformed
	}
	signer := -1
	for i := range k.keys {
		if hmac.Equal([]byte(k.keys[i].ID), keyID) {
			signer = i
			break
		}
	}
	if signer < 0 {
		return nil, ErrUnknownKey
	}
	m, done := k.mac(signer)
	m.Write(b[:body])
	var sum [sha256.Size]byte
	ok := hmac.Equal(m.Sum(sum[:0]), mac)
	done()
	if !ok {
		return nil, ErrBadSignature
	}
	// Signed by us: the claims can be read now.
	switch {
	case string(purpose) != want.Purpose:
		return nil, ErrOtherPurpose
	case string(sess) != want.Session:
		return nil, ErrOtherSession
	case !hmac.Equal(digest, want.Digest[:]):
		return nil, ErrOtherDigest
	}
	now := k.now().Unix()
	if now >= int64(exp) || int64(issued) > now+60 {
		return nil, ErrExpired
	}
	return state, nil
}

// reader reads the fields of a decoded token; any overrun sets err.
type reader struct {
	b   []byte
	err bool
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.err = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) fixed(n int) []byte {
	if len(r.b) < n {
		r.err = true
		return nil
	}
	f := r.b[:n]
	r.b = r.b[n:]
	return f
}

func (r *reader) uint64() uint64 {
	f := r.fixed(8)
	if f == nil {
		return 0
	}
	return binary.BigEndian.Uint64(f)
}

func (r *reader) field() []byte {
	n, w := binary.Uvarint(r.b)
	if w <= 0 || n > uint64(len(r.b)-w) {
		r.err = true
		return nil
	}
	r.b = r.b[w:]
	return r.fixed(int(n))
}
