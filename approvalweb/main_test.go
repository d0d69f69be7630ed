package approvalweb_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that nothing the page starts outlives the tests: the
// live-update hub, the streams, the waiting calls.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
