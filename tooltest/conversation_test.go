package tooltest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

type listArgs struct {
	Dir string `json:"dir"`
	tool.PageArgs
}

func lister() tool.AnyTool {
	return tool.NewPaginated(tool.Definition{Name: "list", Description: "Lists files.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in listArgs, page tool.Page) ([]string, []byte, error) {
			from := 0
			if page.State != nil {
				fmt.Sscan(string(page.State), &from)
			}
			var out []string
			for i := from; i < min(from+10, 25); i++ {
				out = append(out, fmt.Sprintf("%s/f%02d", in.Dir, i))
			}
			if from+10 >= 25 {
				return out, nil, nil
			}
			return out, []byte(fmt.Sprint(from + 10)), nil
		})
}

func TestConversationFollowsPages(t *testing.T) {
	r := tool.NewRegistry[struct{}](nil)
	require.NoError(t, r.Add(lister()))
	c := tooltest.NewConversation(t, r, struct{}{}, nil)
	var all []string
	res := c.Call("list", `{"dir":"src"}`)
	for {
		tooltest.WantOK(t, res)
		page := tooltest.Decode[tool.Paged[[]string]](t, res)
		all = append(all, page.Results...)
		if page.NextCursor == "" {
			break
		}
		res = c.NextPage(res)
	}
	assert.Len(t, all, 25)
	assert.Equal(t, "src/f24", all[24])
}

func TestConversationReadsCutOutputBack(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %04d of the build log\n", i)
	}
	log := b.String()
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Spill: tool.NewMemorySpillStore(0), MaxOutputBytes: 4096})
	require.NoError(t, r.Add(tool.New(tool.Definition{Name: "build", Description: "Builds."},
		func(context.Context, struct{}) (string, error) { return log, nil })))
	c := tooltest.NewConversation(t, r, struct{}{}, nil)
	res := c.Call("build", `{}`)
	require.Less(t, len(res.Text()), len(log), "the output was cut")
	assert.Equal(t, log, c.ReadAll(res), "and is read back whole")
}

func TestEveryCallHasItsOwnID(t *testing.T) {
	rec := &tooltest.Recorder{}
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{Observer: rec})
	require.NoError(t, r.Add(echo()))
	c := tooltest.NewConversation(t, r, struct{}{}, nil)
	a, b := c.Call("echo", `{"text":"a"}`), c.Call("echo", `{"text":"b"}`)
	assert.NotEqual(t, a.CallID, b.CallID)
	rec.WantWellFormed(t)
	x := tooltest.Run(t, echo(), `{"text":"x"}`, nil)
	y := tooltest.Run(t, echo(), `{"text":"y"}`, &tooltest.Options{Session: "s"})
	assert.NotEqual(t, x.CallID, y.CallID)
}

type user struct{ name string }

func TestConformanceForToolsWithState(t *testing.T) {
	whoami := tool.NewFor(tool.Definition{Name: "whoami", Description: "Names the user."},
		func(_ context.Context, c *tool.Call[user], _ struct{}) (string, error) { return c.State.name, nil })
	tooltest.ConformanceFor(t, tooltest.Suite{}, user{"ada"}, whoami)
}

func TestConformanceNoExecuteRunsNothing(t *testing.T) {
	ran := 0
	writer := tool.New(tool.Definition{Name: "write", Description: "Writes a file."}, func(context.Context, echoArgs) (string, error) {
		ran++
		return "written", nil
	})
	tooltest.Conformance(t, tooltest.Suite{NoExecute: true, ValidArgs: map[string]string{"write": `{"text":"x"}`}}, writer)
	assert.Zero(t, ran, "the tool never ran")
}
