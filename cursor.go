package tool

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
	"sync"
	"time"
)

// Key is one HMAC key of a [Keyring].
type Key struct {
	// ID names the key inside cursors, so a keyring can tell which of its
	// keys signed one. 1 to 32 bytes.
	ID string
	// Secret is at least 32 random bytes.
	Secret []byte
}

// Keyring signs cursors with its current key and verifies them with any key
// it still holds, so keys can be rotated without breaking cursors in
// flight: add the new key as current, keep the old one as retained until
// its cursors have expired, then drop it.
//
// A Keyring holds no other state: processes that share its keys verify
// each other's cursors, so replicas behind a load balancer need nothing
// more. It is safe for concurrent use.
type Keyring struct {
	keys []Key       // keys[0] signs
	macs []sync.Pool // per key: keyed HMACs, reset and reused (see mac)
	// TTL is how long a cursor stays valid; zero means DefaultCursorTTL.
	TTL time.Duration
	// Now is the clock; nil means time.Now. Tests set it to a fake clock.
	Now func() time.Time
}

// DefaultCursorTTL is how long a cursor is valid when the Keyring does not
// say: enough for a model to page through a result in one task.
const DefaultCursorTTL = time.Hour

// MaxCursorLen bounds a cursor; a longer one is refused before any decoding.
const MaxCursorLen = 4096

// NewKeyring returns a keyring that signs with current and also verifies
// cursors signed with retained keys.
func NewKeyring(current Key, retained ...Key) (*Keyring, error) {
	keys := append([]Key{current}, retained...)
	seen := map[string]bool{}
	for _, k := range keys {
		if len(k.ID) == 0 || len(k.ID) > 32 {
			return nil, fmt.Errorf("tool: key ID %q must be 1 to 32 bytes", k.ID)
		}
		if len(k.Secret) < 32 {
			return nil, fmt.Errorf("tool: key %q has a %d-byte secret; use at least 32 random bytes", k.ID, len(k.Secret))
		}
		if seen[k.ID] {
			return nil, fmt.Errorf("tool: key ID %q is used twice", k.ID)
		}
		seen[k.ID] = true
	}
	return &Keyring{keys: keys, macs: make([]sync.Pool, len(keys))}, nil
}

// mac returns an HMAC-SHA256 keyed with key i, ready to write to, and the
// function that gives it back. Keying costs two SHA-256 blocks; a reset
// HMAC restores its keyed state instead, so each key's are reused.
func (k *Keyring) mac(i int) (hash.Hash, func()) {
	pool := &k.macs[i]
	h, _ := pool.Get().(hash.Hash)
	if h == nil {
		h = hmac.New(sha256.New, k.keys[i].Secret)
	} else {
		h.Reset()
	}
	return h, func() { pool.Put(h) }
}

// KeyringFromSecret derives a one-key keyring from a shared secret (at
// least 32 bytes), with a key ID derived from the secret too: every process
// given the same secret signs and verifies the same cursors.
func KeyringFromSecret(secret []byte) (*Keyring, error) {
	if len(secret) < 32 {
		return nil, fmt.Errorf("tool: the secret is %d bytes; use at least 32 random bytes", len(secret))
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("toolbelt cursor key"))
	sum := mac.Sum(nil)
	return NewKeyring(Key{ID: hex.EncodeToString(sum[:4]), Secret: sum})
}

// newRandomKeyring is the default of a registry that was given none:
// cursors verify only in this process.
func newRandomKeyring() *Keyring {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		panic("tool: no randomness for the cursor key: " + err.Error())
	}
	k, _ := KeyringFromSecret(secret)
	return k
}

func (k *Keyring) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

func (k *Keyring) ttl() time.Duration {
	if k.TTL > 0 {
		return k.TTL
	}
	return DefaultCursorTTL
}

// cursorClaims is what a cursor binds.
type cursorClaims struct {
	tool, session string
	argsHash      [sha256.Size]byte
	issued, exp   int64 // unix seconds
	state         []byte
}

const cursorVersion = 1

// sign encodes claims as a cursor:
//
//	base64url( version | keyID | tool | session | argsHash | issued | exp | state | mac )
//
// every variable field prefixed with its uvarint length, the MAC an
// HMAC-SHA256 over all that comes before it.
func (k *Keyring) sign(c cursorClaims) (string, error) {
	key := &k.keys[0]
	b := make([]byte, 0, 1+3*binary.MaxVarintLen16+len(key.ID)+len(c.tool)+len(c.session)+len(c.state)+2*sha256.Size+16)
	b = append(b, cursorVersion)
	b = appendField(b, []byte(key.ID))
	b = appendField(b, []byte(c.tool))
	b = appendField(b, []byte(c.session))
	b = append(b, c.argsHash[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(c.issued))
	b = binary.BigEndian.AppendUint64(b, uint64(c.exp))
	b = appendField(b, c.state)
	mac, done := k.mac(0)
	mac.Write(b)
	b = mac.Sum(b)
	done()
	s := base64.RawURLEncoding.EncodeToString(b)
	if len(s) > MaxCursorLen {
		return "", fmt.Errorf("tool: the page state is too large for a cursor (%d bytes encoded, limit %d); keep an offset or a key in it, not data", len(s), MaxCursorLen)
	}
	return s, nil
}

func appendField(b, f []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(f)))
	return append(b, f...)
}

// CursorError is the host-side cause of a refused cursor. The model is told
// to call again without one.
type CursorError struct {
	Reason CursorProblem
}

// CursorProblem says why a cursor was refused.
type CursorProblem uint8

const (
	CursorMalformed    CursorProblem = iota + 1 // not a cursor this library wrote: bad encoding, size, layout
	CursorBadSignature                          // the MAC does not match: forged or altered
	CursorUnknownKey                            // signed with a key this keyring no longer holds
	CursorExpired                               // past its expiry
	CursorOtherTool                             // issued by another tool
	CursorOtherSession                          // issued in another session
	CursorOtherArgs                             // issued for other arguments
)

var cursorProblemText = map[CursorProblem]string{
	CursorMalformed:    "malformed",
	CursorBadSignature: "bad signature",
	CursorUnknownKey:   "signed with an unknown or rotated-out key",
	CursorExpired:      "expired",
	CursorOtherTool:    "issued by another tool",
	CursorOtherSession: "issued in another session",
	CursorOtherArgs:    "issued for other arguments",
}

func (e *CursorError) Error() string { return "tool: cursor refused: " + cursorProblemText[e.Reason] }

// modelText is what the model is told.
func (e *CursorError) modelText() string {
	switch e.Reason {
	case CursorExpired:
		return "this cursor has expired"
	case CursorOtherTool, CursorOtherSession, CursorOtherArgs:
		return "this cursor is for a different request (the other arguments must stay the same between pages)"
	}
	return "this cursor is invalid (use next_cursor exactly as it was returned; never write one yourself)"
}

// verify decodes and checks a cursor for the given tool, session and
// arguments, and returns its state. Work is bounded: the size is checked
// before anything else, and nothing is trusted before the MAC is.
func (k *Keyring) verify(s, tool, session string, argsHash [sha256.Size]byte) ([]byte, error) {
	bad := func(p CursorProblem) ([]byte, error) { return nil, &CursorError{Reason: p} }
	if len(s) == 0 || len(s) > MaxCursorLen {
		return bad(CursorMalformed)
	}
	// Only the one canonical encoding is ours: Strict refuses nonzero
	// trailing bits, and the decoder would skip newlines, so refuse them.
	if strings.ContainsAny(s, "\r\n") {
		return bad(CursorMalformed)
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return bad(CursorMalformed)
	}
	r := cursorReader{b: b}
	if v := r.byte(); v != cursorVersion {
		return bad(CursorMalformed)
	}
	keyID := r.field()
	toolName := r.field()
	sess := r.field()
	hash := r.fixed(sha256.Size)
	issued := r.uint64()
	exp := r.uint64()
	state := r.field()
	body := len(b) - len(r.b)
	mac := r.fixed(sha256.Size)
	if r.err || len(r.b) != 0 {
		return bad(CursorMalformed)
	}
	signer := -1
	for i := range k.keys {
		if hmac.Equal([]byte(k.keys[i].ID), keyID) {
			signer = i
			break
		}
	}
	if signer < 0 {
		return bad(CursorUnknownKey)
	}
	m, done := k.mac(signer)
	m.Write(b[:body])
	var sum [sha256.Size]byte
	ok := hmac.Equal(m.Sum(sum[:0]), mac)
	done()
	if !ok {
		return bad(CursorBadSignature)
	}
	// Signed by us: the claims can be read now.
	switch {
	case string(toolName) != tool:
		return bad(CursorOtherTool)
	case string(sess) != session:
		return bad(CursorOtherSession)
	case !hmac.Equal(hash, argsHash[:]):
		return bad(CursorOtherArgs)
	}
	now := k.now().Unix()
	if now >= int64(exp) || int64(issued) > now+60 {
		return bad(CursorExpired)
	}
	return state, nil
}

// cursorReader reads the fields of a decoded cursor; any overrun sets err.
type cursorReader struct {
	b   []byte
	err bool
}

func (r *cursorReader) byte() byte {
	if len(r.b) < 1 {
		r.err = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *cursorReader) fixed(n int) []byte {
	if len(r.b) < n {
		r.err = true
		return nil
	}
	f := r.b[:n]
	r.b = r.b[n:]
	return f
}

func (r *cursorReader) uint64() uint64 {
	f := r.fixed(8)
	if f == nil {
		return 0
	}
	return binary.BigEndian.Uint64(f)
}

func (r *cursorReader) field() []byte {
	n, w := binary.Uvarint(r.b)
	if w <= 0 || n > uint64(len(r.b)-w) {
		r.err = true
		return nil
	}
	r.b = r.b[w:]
	return r.fixed(int(n))
}
