package tooltest_test

import (
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestMemoryLimiterConforms(t *testing.T) {
	tooltest.TestLimiter(t, func(*testing.T) tool.Limiter { return tool.NewMemoryLimiter() })
}
