package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// A renamed tool is the tool under another name: the registry calls it by
// that name only, and finds every optional interface of the tool inside
// (approval hooks, its own argument check, pagination, definition checks)
// as it finds them on the tool itself.
func TestRename(t *testing.T) {
	shell := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "run_shell", Description: "Runs a command.", Safety: tool.SafetyMutating},
		func(_ context.Context, in shellArgs) (string, error) { return "ran " + in.Command, nil }),
		tool.ApprovalHooks[shellArgs]{
			Classify: func(in shellArgs) tool.Safety {
				if strings.HasPrefix(in.Command, "rm") {
					return tool.SafetyDestructive
				}
				return tool.SafetyReadOnly
			},
			Describe: func(_ context.Context, in shellArgs) (tool.Preview, error) {
				return tool.Preview{Title: "$ " + in.Command}, nil
			},
		})
	checked := evenN{tool.NewRaw(tool.Definition{Name: "checked", Description: "Checked by its tool.", InputSchema: json.RawMessage(`{
		"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false}`)},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("done"), nil })}

	approver := tooltest.NewApprover(tooltest.AllowOnce(), tooltest.AllowOnce())
	reg := registryWith(t, nil, tool.Rename(shell, "shell"), tool.Rename(checked, "even"), tool.Rename(lister(), "files"))
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: tool.DenyDestructivePolicy(), Approver: approver}))

	var names []string
	for _, d := range reg.Definitions() {
		names = append(names, d.Name)
	}
	assert.Equal(t, []string{"even", "files", "shell"}, names)

	t.Run("called by its new name only", func(t *testing.T) {
		res := call(reg, "shell", `{"command":"ls"}`)
		tooltest.WantOK(t, res)
		tooltest.WantText(t, res, "ran ls")
		tooltest.WantStatus(t, call(reg, "run_shell", `{"command":"ls"}`), tool.StatusUnknownTool)
	})
	t.Run("its approval hooks still classify and describe", func(t *testing.T) {
		tooltest.WantStatus(t, call(reg, "shell", `{"command":"rm -rf build"}`), tool.StatusDenied)
		assert.Empty(t, approver.Requests(), "read-only and destructive calls ask no one under this policy")
		res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "shell", Args: []byte(`{"command":"ls"}`), DryRun: true})
		require.NotNil(t, res.DryRun, res.Text())
		assert.Equal(t, tool.SafetyReadOnly, res.DryRun.Safety)
		assert.Equal(t, "$ ls", res.DryRun.Preview.Title)
	})
	t.Run("its own argument check still runs", func(t *testing.T) {
		res := call(reg, "even", `{"n":3}`)
		tooltest.WantStatus(t, res, tool.StatusInvalid)
		tooltest.WantTextContains(t, res, "n must be even", "call even again")
	})
	t.Run("it still pages, its cursors bound to the new name", func(t *testing.T) {
		first := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "files", Args: []byte(`{"dir":"src"}`), Session: "s"})
		tooltest.WantOK(t, first)
		var p pageOut
		require.NoError(t, json.Unmarshal([]byte(first.Text()), &p))
		require.NotEmpty(t, p.NextCursor)
		next := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "files", Args: []byte(withCursor(`{"dir":"src"}`, p.NextCursor)), Session: "s"})
		tooltest.WantOK(t, next)
		tooltest.WantTextContains(t, next, "src/f10")

		plain := registryWith(t, nil, lister())
		_, res := page(t, plain, "s", withCursor(`{"dir":"src"}`, p.NextCursor))
		tooltest.WantStatus(t, res, tool.StatusInvalid)
	})
	t.Run("As finds what the tool inside has", func(t *testing.T) {
		renamed := tool.Rename(shell, "shell")
		_, ok := tool.As[tool.Classifier](renamed)
		assert.True(t, ok, "Classifier")
		_, ok = tool.As[tool.Describer](renamed)
		assert.True(t, ok, "Describer")
		_, ok = tool.As[tool.ArgsValidator](tool.Rename(checked, "even"))
		assert.True(t, ok, "ArgsValidator")
		_, ok = tool.As[tool.DefinitionChecker](tool.Rename(lister(), "files"))
		assert.True(t, ok, "DefinitionChecker")
	})
}

// Renamed tools pass the conformance suite, whose rules include that a
// wrapper keeps the optional interfaces of the tool it wraps.
func TestRenamedToolsConform(t *testing.T) {
	hooked := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "run_shell", Description: "Runs a command.", Safety: tool.SafetyMutating},
		func(_ context.Context, in shellArgs) (string, error) { return "ran " + in.Command, nil }),
		tool.ApprovalHooks[shellArgs]{Classify: func(shellArgs) tool.Safety { return tool.SafetyReadOnly }})
	tooltest.Conformance(t, tooltest.Suite{}, tool.Rename(hooked, "shell"), tool.Rename(lister(), "files"))
	tooltest.ConformanceFor(t, tooltest.Suite{}, &shelf{books: []string{"Dune"}}, tool.RenameFor(shelfLister(), "shelf"))
}

// A new name is held to the rules of every name, when the tool is added.
func TestRenameRefusesAnInvalidName(t *testing.T) {
	for _, name := range []string{"", "run shell", "shell;rm", strings.Repeat("x", 65), "shéll"} {
		err := tool.NewRegistry[struct{}](nil).Add(tool.Rename(lister(), name))
		var de *tool.DefinitionError
		require.True(t, errors.As(err, &de), "name %q: %v", name, err)
		assert.Contains(t, de.Problem, "invalid name", "name %q", name)
	}
	err := tool.NewRegistry[struct{}](nil).Add(lister(), tool.Rename(lister(), "list"))
	require.Error(t, err, "a new name another tool has is refused")
	assert.Contains(t, err.Error(), "twice")
}

// RenameFor keeps the host's state flowing to the tool.
func TestRenameFor(t *testing.T) {
	reg := tool.NewRegistry[*shelf](nil)
	require.NoError(t, reg.Add(tool.RenameFor(shelfLister(), "shelf")))
	res := reg.Call(context.Background(), &shelf{books: []string{"Dune", "Emma", "Ivanhoe"}}, tool.Request{Name: "shelf", Args: []byte(`{}`), Session: "s"})
	tooltest.WantOK(t, res)
	tooltest.WantTextContains(t, res, `"Dune","Emma"`, "next_cursor")
}
