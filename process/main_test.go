package process_test

import (
	"os"
	"testing"

	"github.com/toolbelt-go/tool/tooltest"
)

// TestMain fails the package at the end, naming them, if tests were
// skipped for want of a sandbox or a program they run (tooltest.Main).
func TestMain(m *testing.M) { os.Exit(tooltest.Main(m).Run()) }
