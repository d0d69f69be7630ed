package toolredis_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/toolbelt-go/tool/toolredis/redistest"
)

// TestMain skips the examples, which need a redis-server and cannot skip
// themselves, where there is none; the tests skip themselves (redistest.New).
// With redistest.RequireEnv set, nothing is skipped.
func TestMain(m *testing.M) {
	flag.Parse()
	if _, err := exec.LookPath("redis-server"); err != nil && os.Getenv(redistest.RequireEnv) == "" {
		fmt.Fprintln(os.Stderr, "toolredis: no redis-server on PATH: the examples are skipped and the tests skip themselves (Debian: apt-get install redis-server)")
		skip := "^Example"
		if s := flag.Lookup("test.skip").Value.String(); s != "" {
			skip = s + "|" + skip
		}
		_ = flag.Set("test.skip", skip)
	}
	os.Exit(m.Run())
}
