// Package keyring signs and verifies short-lived tokens with HMAC-SHA256
// under keys that can be rotated: the page cursors of paginated tools, the
// cursors of read_output and the states of deferred approvals in package
// tool are all tokens of one [Keyring].
//
// A token binds [Claims]: what it is for (a purpose, such as a tool's
// name), the session it was issued in, a digest of the arguments it was
// issued for, its expiry, and a small opaque state. [Keyring.Verify]
// refuses a token that is malformed, forged, signed with a key the keyring
// no longer holds, expired, or issued for another purpose, session or
// digest, each with its own error. It needs only the standard library.
package keyring

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"sync"
	"time"
)

// Key is one HMAC key of a [Keyring].
type Key struct {
	// ID names the key inside tokens, so a keyring can tell which of its
	// keys signed one. 1 to 32 bytes.
	ID string
	// Secret is at least 32 random bytes.
	Secret []byte
}

// Keyring signs tokens with its current key and verifies them with any key
// it still holds, so keys can be rotated without breaking tokens in
// flight: add the new key as current, keep the old one as retained until
// its tokens have expired, then drop it.
//
// A Keyring holds no other state: processes that share its keys verify
// each other's tokens, so replicas behind a load balancer need nothing
// more. It is safe for concurrent use; set TTL and Now before first use.
type Keyring struct {
	keys []Key       // keys[0] signs
	macs []sync.Pool // per key: keyed HMACs, reset and reused (see mac)
	// TTL is how long a token stays valid; zero means [DefaultTTL].
	TTL time.Duration
	// Now is the clock; nil means time.Now. Tests set it to a fake clock.
	Now func() time.Time
}

// DefaultTTL is how long a token is valid when the Keyring does not say:
// enough for a model to page through a result in one task.
const DefaultTTL = time.Hour

// New returns a keyring that signs with current and also verifies tokens
// signed with retained keys.
func New(current Key, retained ...Key) (*Keyring, error) {
	keys := append([]Key{current}, retained...)
	seen := map[string]bool{}
	for _, k := range keys {
		if len(k.ID) == 0 || len(k.ID) > 32 {
			return nil, fmt.Errorf("keyring: key ID %q must be 1 to 32 bytes", k.ID)
		}
		if len(k.Secret) < 32 {
			return nil, fmt.Errorf("keyring: key %q has a %d-byte secret; use at least 32 random bytes", k.ID, len(k.Secret))
		}
		if seen[k.ID] {
			return nil, fmt.Errorf("keyring: key ID %q is used twice", k.ID)
		}
		seen[k.ID] = true
	}
	return &Keyring{keys: keys, macs: make([]sync.Pool, len(keys))}, nil
}

// FromSecret derives a one-key keyring from a shared secret (at least 32
// bytes), with a key ID derived from the secret too: every process given
// the same secret signs and verifies the same tokens.
func FromSecret(secret []byte) (*Keyring, error) {
	if len(secret) < 32 {
		return nil, fmt.Errorf("keyring: the secret is %d bytes; use at least 32 random bytes", len(secret))
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("toolbelt cursor key"))
	sum := mac.Sum(nil)
	return New(Key{ID: hex.EncodeToString(sum[:4]), Secret: sum})
}

// Random returns a keyring with a random key: its tokens verify only in
// this process. It panics if the system has no randomness to give.
func Random() *Keyring {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		panic("keyring: no randomness for a key: " + err.Error())
	}
	k, _ := FromSecret(secret)
	return k
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

func (k *Keyring) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

// Expiry returns when a token signed now with the keyring's TTL expires.
func (k *Keyring) Expiry() time.Time { return k.now().Add(k.ttl()) }

func (k *Keyring) ttl() time.Duration {
	if k.TTL > 0 {
		return k.TTL
	}
	return DefaultTTL
}

// ExpiryIn returns when a token signed now for d expires, by the keyring's
// clock.
func (k *Keyring) ExpiryIn(d time.Duration) time.Time { return k.now().Add(d) }
