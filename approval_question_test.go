package tool_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/tool"
)

func TestApprovalRequestQuestion(t *testing.T) {
	longDiff := tool.Edit{Path: "big.txt", Old: "", New: strings.Repeat("a line of the new file\n", 1000)}
	for _, tc := range []struct {
		name       string
		req        tool.ApprovalRequest
		previewMax int
		want       string
	}{
		{
			name: "a preview made from the arguments is not shown twice",
			req: tool.ApprovalRequest{Tool: "delete_note", DisplayName: "delete_note", Safety: tool.SafetyDestructive, ArgsText: `{"id":7}`,
				Preview: tool.Preview{Title: "delete_note", Summary: `{"id":7}`, Basic: true}},
			want: "Allow delete_note to run? It is destructive (it may lose data).\n\nArguments: {\"id\":7}",
		},
		{
			name: "the tool's preview, why the person is asked, and its title",
			req: tool.ApprovalRequest{Tool: "run_shell", DisplayName: "Run a command", Safety: tool.SafetyMutating, ArgsText: `{"command":"make"}`,
				Requirement: tool.Requirement{Mode: tool.RequireAskAlways, Reason: "it writes outside the workspace", Scope: "/tmp"},
				Preview:     tool.Preview{Title: "Run a command", Summary: "$ make", Locations: []string{"/tmp/out"}}},
			want: "Allow Run a command to run? (tool run_shell) It is a change (it writes).\nWhy you are asked: it writes outside the workspace (/tmp)" +
				"\n\nRun a command\n$ make\n\nTouches: /tmp/out\n\nArguments: {\"command\":\"make\"}",
		},
		{
			name: "an edit's diff",
			req: tool.ApprovalRequest{Tool: "edit_file", DisplayName: "edit_file", Safety: tool.SafetyMutating, ArgsText: `{…}`,
				Preview: tool.Preview{Edits: []tool.Edit{{Path: "a.go", Old: "x\n", New: "y\n"}}}},
			want: "Allow edit_file to run? It is a change (it writes).\n\na.go\n@@ line 1\n- x\n+ y\n\nArguments: {…}",
		},
		{
			name: "a read, with only a summary",
			req:  tool.ApprovalRequest{Tool: "fetch", DisplayName: "fetch", Safety: tool.SafetyReadOnly, ArgsText: `{}`, Preview: tool.Preview{Summary: "GET /"}},
			want: "Allow fetch to run? It is read-only.\n\nGET /\n\nArguments: {}",
		},
		{
			name: "a network call",
			req:  tool.ApprovalRequest{Tool: "post", DisplayName: "post", Safety: tool.SafetyNetwork, ArgsText: `{}`},
			want: "Allow post to run? It is a network call.\n\nArguments: {}",
		},
		{
			name:       "no bound: the preview whole",
			req:        tool.ApprovalRequest{Tool: "w", DisplayName: "w", ArgsText: `{}`, Preview: tool.Preview{Edits: []tool.Edit{longDiff}}},
			previewMax: 0,
			want:       "Allow w to run? It is a change (it writes).\n\nbig.txt\n" + strings.TrimSuffix(longDiff.Diff(), "\n") + "\n\nArguments: {}",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.req.Question(tc.previewMax))
		})
	}
}

// A preview over its bound is cut, saying how much of it is shown; the
// arguments, however long, are whole: a person allows only what they can
// read.
func TestApprovalRequestQuestionCutsThePreviewNotTheArguments(t *testing.T) {
	args := `{"content":"` + strings.Repeat("x", 20000) + `; rm -rf src"}`
	diff := tool.Edit{Path: "big.txt", New: strings.Repeat("a line of the new file\n", 1000)}
	for _, previewMax := range []int{1, 60, 100, 1000, 8 << 10} {
		t.Run(fmt.Sprint(previewMax), func(t *testing.T) {
			req := tool.ApprovalRequest{Tool: "w", DisplayName: "w", ArgsText: args, Preview: tool.Preview{Title: "Write é", Edits: []tool.Edit{diff}}}
			q := req.Question(previewMax)
			assert.True(t, strings.HasSuffix(q, "\n\nArguments: "+args), "the arguments, whole, end the question")
			assert.True(t, utf8.ValidString(q), "cut on a character boundary")
			preview := strings.TrimSuffix(strings.TrimPrefix(q, "Allow w to run? It is a change (it writes).\n\n"), "\n\nArguments: "+args)
			whole := "Write é\n\nbig.txt\n" + strings.TrimSuffix(diff.Diff(), "\n")
			var shown, of int
			i := strings.LastIndex(preview, "\n[… the preview is cut here: ")
			if assert.GreaterOrEqual(t, i, 0, "the cut is said: %q", preview) {
				_, err := fmt.Sscanf(preview[i:], "\n[… the preview is cut here: %d of its %d bytes are shown]", &shown, &of)
				assert.NoError(t, err)
				assert.Equal(t, len(whole), of)
				assert.Equal(t, whole[:shown], preview[:i], "the head of the preview, as it is")
				assert.True(t, len(preview) <= previewMax || shown == 0, "%d bytes of preview for a bound of %d", len(preview), previewMax)
			}
		})
	}
}

// An approver that asks in words shows the question as Question writes it:
// here, a terminal's, which allows what it asked about.
func ExampleApprovalRequest_Question() {
	type DeleteArgs struct {
		Path string `json:"path"`
	}
	del := tool.New(tool.Definition{Name: "delete_file", Title: "Delete a file", Description: "Deletes a file.", Safety: tool.SafetyDestructive},
		func(ctx context.Context, in DeleteArgs) (string, error) { return "deleted " + in.Path, nil })
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(del)
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{
		Approver: tool.ApproverFunc(func(_ context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
			fmt.Println(req.Question(4 << 10))
			fmt.Println("> allow once")
			return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
		}),
	}))
	res := reg.Call(context.Background(), struct{}{}, tool.Request{ID: "c1", Name: "delete_file", Args: []byte(`{"path":"notes/old.md"}`)})
	fmt.Println(res.Status, "|", res.Text())
	// Output:
	// Allow Delete a file to run? (tool delete_file) It is destructive (it may lose data).
	//
	// Arguments: {"path":"notes/old.md"}
	// > allow once
	// ok | deleted notes/old.md
}
