package toolredis_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	toolredis "github.com/toolbelt-go/tool/toolredis"
	"github.com/toolbelt-go/tool/toolredis/redistest"
	"github.com/toolbelt-go/tool/tooltest"
)

// TestDryRunAcrossReplicas: a dry run on one replica reads the "allow
// always" another remembered, and changes nothing in the shared store.
func TestDryRunAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	rdb := client(t, srv)
	ns := namespace()
	opts := &toolredis.Options{Namespace: ns}
	w := &writes{}
	a := newReplica(t, rdb, opts, w, nil, tooltest.AllowAlways())
	b := newReplica(t, rdb, opts, w, nil)
	dry := func(session string) *tool.Result {
		return b.reg.Call(context.Background(), struct{}{}, tool.Request{ID: "d", Name: "write_file", Args: []byte(`{"path":"x","content":"y"}`), Session: session, DryRun: true})
	}
	res := dry("conv")
	tooltest.WantStatus(t, res, tool.StatusDryRun)
	assert.Equal(t, tool.VerdictAsk, res.DryRun.Verdict, "nothing remembered yet")
	tooltest.WantOK(t, a.call("1", "conv", "write_file", `{"path":"a","content":"1"}`))
	before := keys(t, rdb, ns)
	res = dry("conv")
	require.NotNil(t, res.DryRun)
	assert.Equal(t, tool.VerdictAllow, res.DryRun.Verdict)
	assert.True(t, res.DryRun.Remembered, "remembered on a, read on b")
	assert.Equal(t, tool.VerdictAsk, dry("other").DryRun.Verdict)
	assert.ElementsMatch(t, before, keys(t, rdb, ns), "the dry runs wrote nothing")
	assert.Equal(t, 0, b.approver.Asked())
	assert.Equal(t, []string{"a=1"}, w.all())
}
