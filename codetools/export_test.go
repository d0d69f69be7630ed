package codetools

import "time"

// SetIgnoreTimeBudget sets the time a walk may spend matching .gitignore
// patterns, until the function it returns is called.
func SetIgnoreTimeBudget(d time.Duration) (restore func()) {
	old := ignoreTimeBudget
	ignoreTimeBudget = d
	return func() { ignoreTimeBudget = old }
}
