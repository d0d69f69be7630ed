package tooltest_test

import (
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestMemoryPendingApprovalStoreConforms(t *testing.T) {
	tooltest.TestPendingApprovalStore(t, func(*testing.T) tool.PendingApprovalStore { return tool.NewMemoryPendingApprovalStore(0) })
}
