package tooltest_test

import (
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestMemorySpillConforms(t *testing.T) {
	tooltest.TestSpillStore(t, func(*testing.T) tool.SpillStore { return tool.NewMemorySpillStore(0) })
}

func TestApprovalStoreConforms(t *testing.T) {
	tooltest.TestApprovalStore(t, func(*testing.T) tool.ApprovalStore { return tool.NewMemoryApprovalStore(0) })
}
