//go:build race

package tool_test

// raceEnabled is set when the tests run with -race, which allocates on its own.
const raceEnabled = true
