package toolredis_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

// TestMain runs the tests through tooltest.Main: without a redis-server,
// the tests skip themselves (redistest.New) and the package fails at the
// end, naming them and how to install it. The examples cannot skip
// themselves: without a server they fail, saying so, unless skips are
// allowed (tooltest.AllowSkipEnv), when they are left out. With
// redistest.RequireEnv set, nothing is skipped.
func TestMain(m *testing.M) {
	flag.Parse()
	if _, err := exec.LookPath("redis-server"); err != nil && os.Getenv(redistest.RequireEnv) == "" && os.Getenv(tooltest.AllowSkipEnv) != "" {
		fmt.Fprintln(os.Stderr, "toolredis: no redis-server on PATH: the examples are left out, as "+tooltest.AllowSkipEnv+" allows (Debian: apt-get install redis-server)")
		skip := "^Example"
		if s := flag.Lookup("test.skip").Value.String(); s != "" {
			skip = s + "|" + skip
		}
		_ = flag.Set("test.skip", skip)
	}
	os.Exit(tooltest.Main(m).Run())
}
