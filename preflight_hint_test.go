package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// The validator visits properties in map order; the hint lists problems in
// the schema's order, the same every time.
func TestProblemsInSchemaOrder(t *testing.T) {
	type args struct {
		Zeta  int    `json:"zeta" jsonschema:"maximum=1"`
		Alpha string `json:"alpha" jsonschema:"minLength=3"`
		Mid   []int  `json:"mid" jsonschema:"maxItems=1"`
	}
	tl := tool.New(tool.Definition{Name: "order", Description: "Order."}, func(context.Context, args) (string, error) { return "", nil })
	var first string
	for i := range 50 {
		res := tooltest.Run(t, tl, `{"mid":[1,2],"alpha":"x","zeta":5}`, nil)
		if i == 0 {
			first = res.Text()
			z, a, m := strings.Index(first, "/zeta"), strings.Index(first, "/alpha"), strings.Index(first, "/mid")
			require.True(t, z >= 0 && z < a && a < m, "problems not in the schema's order (zeta, alpha, mid):\n%s", first)
		} else {
			require.Equal(t, first, res.Text(), "the hint changed between calls")
		}
	}
}
