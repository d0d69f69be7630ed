package tooltest_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"maxLength=100"`
}

func echo() tool.AnyTool {
	return tool.New(tool.Definition{Name: "echo", Description: "Echoes the text."},
		func(_ context.Context, in echoArgs) (string, error) { return in.Text, nil })
}

func TestConformancePassesAGoodTool(t *testing.T) {
	tooltest.Conformance(t, tooltest.Suite{ValidArgs: map[string]string{"echo": `{"text":"hi"}`}}, echo())
}

type noArgs struct{}

type hidingWrapper struct{ tool.AnyTool }

type checking struct{ tool.AnyTool }

func (checking) ValidateArgs(any) error { return nil }

// brokenTools are each built to break one rule.
var brokenTools = map[string]struct {
	rule  string
	tools func() []tool.Definer
}{
	"duplicate": {"names are valid and unique", func() []tool.Definer { return []tool.Definer{echo(), echo()} }},
	"invalid schema": {"schema registers", func() []tool.Definer {
		return []tool.Definer{tool.NewRaw(tool.Definition{Name: "bad", Description: "x", InputSchema: json.RawMessage(`{"type":"array"}`)}, nil)}
	}},
	"panics on open schema": {"schema rejects unknown keys", func() []tool.Definer {
		return []tool.Definer{tool.NewRaw(tool.Definition{Name: "open", Description: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { panic("boom") })}
	}},
	"ignores cancellation": {"call ends soon after cancellation", func() []tool.Definer {
		return []tool.Definer{tool.New(tool.Definition{Name: "stubborn", Description: "x"}, func(context.Context, noArgs) (string, error) {
			time.Sleep(time.Second) // past CancelWithin below
			return "done", nil
		})}
	}},
	"leaks a goroutine": {"no goroutine left after a call", func() []tool.Definer {
		return []tool.Definer{tool.New(tool.Definition{Name: "leaky", Description: "x"}, func(context.Context, noArgs) (string, error) {
			go func() { time.Sleep(time.Hour) }()
			return "done", nil
		})}
	}},
	"wrapper drops interface": {"wrappers keep optional interfaces", func() []tool.Definer {
		return []tool.Definer{hidingWrapper{checking{echo()}}}
	}},
	"wrapper drops approval hooks": {"wrappers keep optional interfaces", func() []tool.Definer {
		return []tool.Definer{hidingWrapper{tool.WithApprovalHooks(echo(), tool.ApprovalHooks[echoArgs]{
			Classify: func(echoArgs) tool.Safety { return tool.SafetyDestructive },
		})}}
	}},
	"long description": {"description is present and not too long", func() []tool.Definer {
		return []tool.Definer{tool.New(tool.Definition{Name: "wordy", Description: strings.Repeat("very ", 300)}, func(context.Context, noArgs) (string, error) { return "", nil })}
	}},
}

// TestConformanceCatches runs the suite on each broken tool in a child
// process (a failing subtest cannot be contained otherwise) and checks that
// it fails, naming the rule.
func TestConformanceCatches(t *testing.T) {
	if name := os.Getenv("TOOLTEST_BROKEN"); name != "" {
		tooltest.Conformance(t, tooltest.Suite{CancelWithin: 300 * time.Millisecond}, brokenTools[name].tools()...)
		return
	}
	for name, bt := range brokenTools {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestConformanceCatches$", "-test.v")
			cmd.Env = append(os.Environ(), "TOOLTEST_BROKEN="+name)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "the suite passed a tool built to break %q:\n%s", bt.rule, out)
			require.Contains(t, string(out), "--- FAIL: TestConformanceCatches/", "the suite did not fail")
			require.Contains(t, string(out), strings.ReplaceAll(bt.rule, " ", "_"), "the failure does not name the rule %q", bt.rule)
		})
	}
}

func TestHarness(t *testing.T) {
	res := tooltest.Run(t, echo(), `{"text":"hi"}`, nil)
	tooltest.WantOK(t, res)
	tooltest.WantText(t, res, "hi")
	res = tooltest.Run(t, echo(), `{"txt":"hi"}`, nil)
	tooltest.WantStatus(t, res, tool.StatusInvalid)
	tooltest.WantTextContains(t, res, `Did you mean "text"?`)

	type point struct{ X, Y int }
	pt := tool.New(tool.Definition{Name: "pt", Description: "A point."}, func(context.Context, noArgs) (point, error) { return point{1, 2}, nil })
	assert.Equal(t, point{1, 2}, tooltest.Decode[point](t, tooltest.Run(t, pt, `{}`, nil)))
}

func TestGoldenDefinitions(t *testing.T) {
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(echo())
	tooltest.GoldenDefinitions(t, r.Definitions(), "testdata/echo.golden.json")
}
