package keyring

import (
	"crypto/hmac"
	"crypto/sha256"
	"testing"
	"time"
)

// The cursor benchmarks compare signing and verifying a cursor with its
// floor, the two bare HMAC-SHA256 of the same payload that signing and
// verifying cannot do without (the target is at most 1.3×; keyed HMACs
// are reused, so signing and verifying now cost less than the floor):
//
//	go test -run '^$' -bench 'Cursor' -count 5

func benchClaims() Claims {
	return Claims{Purpose: "list_files", Session: "session-42", Digest: sha256.Sum256([]byte(`{"dir":"src"}`)),
		Expires: time.Unix(1_800_003_600, 0), State: []byte("offset:000001200")}
}

func BenchmarkCursorFloorHMAC(b *testing.B) {
	k, _ := FromSecret([]byte("0123456789abcdef0123456789abcdef"))
	c := benchClaims()
	payload := []byte(c.Purpose + c.Session + string(c.Digest[:]) + "issued-exp......" + string(c.State))
	b.ReportAllocs()
	for b.Loop() {
		m := hmac.New(sha256.New, k.keys[0].Secret)
		m.Write(payload)
		sig := m.Sum(nil)
		m = hmac.New(sha256.New, k.keys[0].Secret)
		m.Write(payload)
		if !hmac.Equal(m.Sum(nil), sig) {
			b.Fatal("mismatch")
		}
	}
}

func BenchmarkCursorSignVerify(b *testing.B) {
	k, _ := FromSecret([]byte("0123456789abcdef0123456789abcdef"))
	k.Now = func() time.Time { return time.Unix(1_800_000_000, 0) }
	c := benchClaims()
	b.ReportAllocs()
	for b.Loop() {
		s, err := k.Sign(c)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := k.Verify(s, c); err != nil {
			b.Fatal(err)
		}
	}
}
