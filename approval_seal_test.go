package tool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestApprovedIsWhatRuns(t *testing.T) {
	t.Run("an edit is validated and runs", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.Edit(`{"path":"docs/a.md","content":"safer"}`))
		tooltest.WantOK(t, f.call("1", "write_file", `{"path":"main.go","content":"x"}`))
		assert.Equal(t, []string{"write docs/a.md safer"}, f.runs())
	})
	t.Run("an invalid edit does not run", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.Edit(`{"path":""}`))
		res := f.call("1", "write_file", `{"path":"main.go","content":"x"}`)
		tooltest.WantStatus(t, res, tool.StatusInvalid)
		tooltest.WantTextContains(t, res, "approver edited the arguments", "/path")
		assert.Empty(t, f.runs())
	})
	changeAfter := func(change func(c *tool.Call[struct{}])) tool.Middleware[struct{}] {
		return func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
			return func(ctx context.Context, c *tool.Call[struct{}]) *tool.Result {
				change(c)
				return next(ctx, c)
			}
		}
	}
	t.Run("arguments changed after approval", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowOnce())
		f.reg.Use(changeAfter(func(c *tool.Call[struct{}]) { c.SetArgs([]byte(`{"path":"/etc/passwd","content":"x"}`)) }))
		res := f.call("1", "write_file", `{"path":"main.go","content":"x"}`)
		tooltest.WantStatus(t, res, tool.StatusDenied)
		assert.ErrorIs(t, res.Err, tool.ErrArgsChanged)
		assert.Empty(t, f.runs())
	})
	t.Run("approval moved to another call", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowOnce())
		f.reg.Use(changeAfter(func(c *tool.Call[struct{}]) { c.ID = "other" }))
		res := f.call("1", "write_file", `{"path":"main.go","content":"x"}`)
		assert.ErrorIs(t, res.Err, tool.ErrApprovalNotForCall)
		assert.Empty(t, f.runs())
	})
	t.Run("an approval is not replayed", func(t *testing.T) {
		f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowOnce())
		tooltest.WantOK(t, f.call("1", "write_file", `{"path":"main.go","content":"x"}`))
		res := f.call("1", "write_file", `{"path":"main.go","content":"x"}`)
		tooltest.WantStatus(t, res, tool.StatusDenied) // asked again; the script is used up
		assert.Equal(t, 2, f.approver.Asked())
	})
}
