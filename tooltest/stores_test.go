package tooltest_test

import (
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestMemorySpillConforms(t *testing.T) {
	tooltest.TestSpillStore(t, func(*testing.T) tool.SpillStore { return tool.NewMemorySpill(0) })
}

func TestApprovalMemoryConforms(t *testing.T) {
	tooltest.TestApprovalMemory(t, func(*testing.T) tool.ApprovalMemory { return tool.NewApprovalMemory(0) })
}
