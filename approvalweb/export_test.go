package approvalweb

import "time"

// SetUnwatchedAfter sets how long a call waits with no page open before
// the handler warns, for a test, and returns the function that sets it
// back.
func SetUnwatchedAfter(d time.Duration) (restore func()) {
	before := unwatchedAfter
	unwatchedAfter = d
	return func() { unwatchedAfter = before }
}
