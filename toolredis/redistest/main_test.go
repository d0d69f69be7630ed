package redistest_test

import (
	"os"
	"testing"

	"github.com/toolbelt-go/tool/tooltest"
)

// TestMain fails the package, naming the tests, if they were skipped for
// want of a redis-server (tooltest.Main).
func TestMain(m *testing.M) { os.Exit(tooltest.Main(m).Run()) }
