package tooltest_test

import (
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestMemoryRecordStoreConforms(t *testing.T) {
	tooltest.TestRecordStore(t, func(*testing.T) tool.RecordStore { return tool.NewMemoryRecordStore(0) })
}
