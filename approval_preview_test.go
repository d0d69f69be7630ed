package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

func TestApprovalRequestAndPreview(t *testing.T) {
	f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowOnce(), tooltest.AllowOnce(), tooltest.AllowOnce(), tooltest.AllowOnce())
	tooltest.WantOK(t, f.call("c1", "write_file", `{"content":"package main\n\nfunc main() { run() }\n","path":"main.go"}`))
	req := f.approver.Requests()[0]
	assert.Equal(t, "write_file", req.Tool)
	assert.Equal(t, "Write a file", req.DisplayName)
	assert.Equal(t, "c1", req.CallID)
	assert.Equal(t, tool.SafetyMutating, req.Safety)
	assert.JSONEq(t, `{"content":"package main\n\nfunc main() { run() }\n","path":"main.go"}`, string(req.Args))
	assert.True(t, strings.HasPrefix(string(req.Args), `{"content"`), "canonical: keys sorted")
	assert.Equal(t, "Edit main.go", req.Preview.Title)
	require.Len(t, req.Preview.Edits, 1)
	assert.Equal(t, "@@ line 1\n  package main\n  \n- func main() {}\n+ func main() { run() }\n", req.Preview.Edits[0].Diff())

	// Describe failing or panicking degrades to a basic preview.
	tooltest.WantOK(t, f.call("c2", "write_file", `{"path":"broken","content":"x"}`))
	tooltest.WantOK(t, f.call("c3", "write_file", `{"path":"panics","content":"x"}`))
	for _, r := range f.approver.Requests()[1:3] {
		assert.True(t, r.Preview.Basic)
		assert.Equal(t, "Write a file", r.Preview.Title)
		assert.Contains(t, r.Preview.Summary, `"content":"x"`)
	}

	// What the approver reads cannot be spoofed.
	spoof := `main.go\u202e\u200boG.niam\u001b[2J`
	tooltest.WantOK(t, f.call("c4", "write_file", `{"path":"`+spoof+`","content":"a\u2066b"}`))
	r := f.approver.Requests()[3]
	for _, s := range []string{r.Preview.Title, r.Preview.Edits[0].Path, r.Preview.Edits[0].New, r.ArgsText} {
		for _, bad := range []string{"\u202e", "\u200b", "\u2066", "\x1b"} {
			assert.NotContains(t, s, bad, "in %q", s)
		}
	}
	assert.Contains(t, r.Preview.Title, `\u202e`)
}

// A real U+202E and the six characters \u202e the tool wrote never look
// the same to an approver (nor an ESC byte and the text \x1b): before,
// both read \u202e, and a page could not show them apart.
func TestPreviewEscapesReadBackExactly(t *testing.T) {
	f := newFixture(t, tool.ApprovalOptions[struct{}]{}, tooltest.AllowOnce(), tooltest.AllowOnce(), tooltest.AllowOnce(), tooltest.AllowOnce())
	seen := map[string]string{}
	for _, c := range []struct{ name, path string }{
		{"a real U+202E", `a\u202eb`}, {"the text \\u202e", `a\\u202eb`},
		{"an ESC byte", `a\u001bb`}, {"the text \\x1b", `a\\x1bb`},
	} {
		tooltest.WantOK(t, f.call("c-"+c.name, "write_file", `{"path":"`+c.path+`","content":"x"}`))
		reqs := f.approver.Requests()
		title := reqs[len(reqs)-1].Preview.Title
		if other, ok := seen[title]; ok {
			t.Errorf("%s and %s are both shown as %q", other, c.name, title)
		}
		seen[title] = c.name
	}
	assert.Contains(t, seen, `Edit a\u202eb`)
	assert.Contains(t, seen, `Edit a\\u202eb`)
}

// A Describer learns the call it describes, as the tool does when it
// runs: a toolset serving many sessions keys its memory by session.
func TestDescribeKnowsItsCall(t *testing.T) {
	var got tool.CallInfo
	var found bool
	tl := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "w", Description: "Writes.", Safety: tool.SafetyMutating},
		func(context.Context, struct{}) (string, error) { return "ok", nil }), tool.ApprovalHooks[struct{}]{
		Describe: func(ctx context.Context, _ struct{}) (tool.Preview, error) {
			got, found = tool.CallInfoFrom(ctx)
			return tool.Preview{Title: "W"}, nil
		},
	})
	r := tool.NewRegistry[struct{}](nil)
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooltest.NewApprover(tooltest.AllowOnce())}))
	require.NoError(t, r.Add(tl))
	tooltest.WantOK(t, r.Call(context.Background(), struct{}{}, tool.Request{ID: "c9", Name: "w", Args: []byte(`{}`), Session: "s7"}))
	require.True(t, found, "CallInfoFrom in Describe")
	assert.Equal(t, tool.CallInfo{ID: "c9", Name: "w", Session: "s7"}, got)
}
