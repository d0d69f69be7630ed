package tool_test

import (
	"context"
	"testing"

	"github.com/toolbelt-go/tool"
)

func TestReportOutsideACallIsHarmless(t *testing.T) {
	tool.ReportProgress(context.Background(), tool.Progress{Message: "nobody listens"})
	tool.ReportPartial(context.Background(), tool.TextContent("x"))
}
