package dialect_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// shape is one schema shape of testdata/shapes.json: the shapes the
// providers trip on, each with a call that means a value the schema
// accepts, and what the tool receives for it (the call, defaults filled).
// The provider modules send the same shapes through their SDKs.
type shape struct {
	Name     string          `json:"name"`
	Note     string          `json:"note"`
	Schema   json.RawMessage `json:"schema"`
	Call     json.RawMessage `json:"call"`
	Received json.RawMessage `json:"received"`
}

func shapes(t *testing.T) []shape {
	b, err := os.ReadFile("testdata/shapes.json")
	require.NoError(t, err)
	var out []shape
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// Every named shape, through every target: what is sent passes the
// target's checker, and the shape's call, made the way a model makes it
// under what it was sent, reaches the tool as meant.
func TestShapes(t *testing.T) {
	var st roundTripStats
	for i, sh := range shapes(t) {
		t.Run(sh.Name, func(t *testing.T) {
			roundTripSchema(t, sh.Name, sh.Schema, uint64(i), &st)
			var received json.RawMessage
			reg := tool.NewRegistry[struct{}](nil)
			require.NoError(t, reg.Add(tool.NewRaw(tool.Definition{Name: sh.Name, Description: sh.Note, InputSchema: sh.Schema},
				func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
					received = args
					return tool.TextResult("ok"), nil
				})))
			want := sh.Received
			if want == nil {
				want = sh.Call
			}
			for _, target := range targets {
				x := dialect.NewExporter(reg, target)
				tools := x.Tools()
				require.Len(t, tools, 1, "%v: %v", target, x.Warnings())
				e := tools[0]
				if e.Schema != nil {
					require.Empty(t, dialect.Check(e.Schema, e.Target), "%v: %s", target, e.Schema)
				}
				c, err := dialect.Convert(sh.Schema, e.Target)
				require.NoError(t, err)
				args, _ := asSent(decodeAny(t, sh.Call), e, c.Renamed)
				b, _ := json.Marshal(args)
				received = nil
				res := reg.Call(context.Background(), struct{}{}, x.Request("c", e.Name, b))
				require.Equal(t, tool.StatusOK, res.Status, "%v: sent %s: %s", target, b, res.Text())
				assert.JSONEq(t, string(want), string(received), "%v: sent %s", target, b)
			}
		})
	}
}
