package toolmcp

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The form a client receives is the one the doc of the exported names
// shows, field for field, through both ways of asking: an
// elicitation during the call, and the input request of protocol
// 2026-07-28. A scripted client relies on it; a change here is a change
// of the protocol toolmcp speaks.
func TestApprovalFormPinned(t *testing.T) {
	// The schema as the doc of the form's names shows it, and with
	// allow_always left out, as it is where it cannot hold.
	withAlways := documentedForm(t)
	onceOnly := strings.NewReplacer(`"allow_always", `, "", `"Allow always (this session)", `, "").Replace(withAlways)
	if onceOnly == withAlways {
		t.Fatal("the documented form offers no allow_always")
	}
	noSession := &Options[state]{Session: func(*sdk.CallToolRequest) string { return "" }}
	tests := []struct {
		name     string
		protocol string
		opts     *Options[state]
		want     string
	}{
		{"elicitation, in a session", legacyProtocol, nil, withAlways},
		{"elicitation, no session", legacyProtocol, noSession, onceOnly},
		{"input request, in a session", mrtrProtocol, nil, withAlways},
		{"input request, no session", mrtrProtocol, noSession, onceOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, runs, _ := approvalRegistry(t, nil, nil)
			server := serve(t, reg, tt.opts)
			var form *sdk.ElicitParams
			if tt.protocol == mrtrProtocol {
				res, err := mrtrCall(manualClient(t, server), `{"text":"hi"}`, nil, "")
				if err != nil {
					t.Fatal(err)
				}
				form, _ = res.InputRequests[ApprovalInputKey].(*sdk.ElicitParams)
			} else {
				el := &elicitor{answers: []*sdk.ElicitResult{{Action: "accept", Content: map[string]any{ApprovalFieldDecision: ApprovalAllowOnce}}}}
				call(t, connect(t, server, &sdk.ClientOptions{ElicitationHandler: el.handle}, tt.protocol), "write_note", `{"text":"hi"}`)
				if el.count() == 1 {
					form = el.asked[0]
				}
				if runs.Load() != 1 {
					t.Errorf("an answer written with the exported names did not run the call")
				}
			}
			if form == nil {
				t.Fatal("the client was not asked")
			}
			if form.Mode != "form" {
				t.Errorf("mode %q, want form", form.Mode)
			}
			got, err := json.Marshal(form.RequestedSchema)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			_ = json.Unmarshal(got, &g)
			if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
				t.Fatal(err)
			}
			if gj, wj := canonical(g), canonical(w); gj != wj {
				t.Errorf("the form's schema changed:\ngot  %s\nwant %s", gj, wj)
			}
		})
	}
}

// canonical is v as compact JSON with sorted keys.
func canonical(v any) string {
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(b)
}

// documentedForm returns the requestedSchema shown in the doc comment of
// the const block that declares ApprovalInputKey.
func documentedForm(t *testing.T) string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "approval_form.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || g.Doc == nil {
			continue
		}
		for _, spec := range g.Specs {
			if spec.(*ast.ValueSpec).Names[0].Name != declName {
				continue
			}
			// The schema is the doc's code block: from a line "{" to "}".
			var block []string
			for _, line := range strings.Split(g.Doc.Text(), "\n") {
				if strings.TrimSpace(line) == "{" || len(block) > 0 {
					block = append(block, line)
				}
				if strings.TrimSpace(line) == "}" {
					return strings.Join(block, "\n")
				}
			}
			t.Fatalf("no schema in the doc of the form's names:\n%s", g.Doc.Text())
		}
	}
	t.Fatal("no doc comment on the const block of ApprovalInputKey")
	return ""
}

// declName is the name documentedForm looks for.
const declName = "ApprovalInputKey"
