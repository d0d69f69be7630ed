package toolmcp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// FuzzApprovalAnswer feeds decisionFrom what a client on protocol
// 2026-07-28 sends back in a retried call: its inputResponses, which reach
// the server unchecked. Only an accepted form whose decision is exactly an
// allowing choice may allow the call.
func FuzzApprovalAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"approval":{"action":"accept","content":{"decision":"allow_once"}}}`,
		`{"approval":{"action":"accept","content":{"decision":"allow_always"}}}`,
		`{"approval":{"action":"accept","content":{"decision":"deny","reason":"no"}}}`,
		`{"approval":{"action":"accept","content":{"decision":"ALLOW_ONCE"}}}`,
		`{"approval":{"action":"accept","content":{"decision":["allow_once"]}}}`,
		`{"approval":{"action":"accept"}}`,
		`{"approval":{"action":"decline","content":{"reason":"\u202enot now"}}}`,
		`{"approval":{"action":"cancel"}}`,
		`{"approval":{"action":"accept","content":{"decision":"allow_once"}},"other":{"roots":[]}}`,
		`{"approval":{"role":"assistant","content":[]}}`,
		`{"approval":null}`,
		`{}`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m sdk.InputResponseMap
		if err := json.Unmarshal(b, &m); err != nil {
			return
		}
		res, _ := m[ApprovalInputKey].(*sdk.ElicitResult)
		d := decisionFrom(res)
		allows := d.Kind == tool.DecisionAllowOnce || d.Kind == tool.DecisionAllowAlways
		if allows {
			dec, _ := res.Content["decision"].(string)
			if res.Action != "accept" || (dec != ApprovalAllowOnce && dec != ApprovalAllowAlways) {
				t.Fatalf("%s allowed the call", b)
			}
		}
		if d.Kind != tool.DecisionDeny && !allows {
			t.Fatalf("%s gave decision %v", b, d.Kind)
		}
		if len(d.Reason) > maxReason+200 {
			t.Fatalf("reason of %d bytes", len(d.Reason))
		}
	})
}

// FuzzRemoteResult feeds the mapping of a remote tool's result whatever a
// server may send as a tools/call result: every block comes out as one of
// Toolbelt's content types, and nothing panics.
func FuzzRemoteResult(f *testing.F) {
	for _, seed := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"image","data":"iVBORw==","mimeType":"image/png"},{"type":"audio","data":"","mimeType":"audio/wav"}]}`,
		`{"content":[{"type":"resource_link","uri":"file:///a","name":"a"},{"type":"resource","resource":{"uri":"x:y","blob":"AQI="}}]}`,
		`{"content":[{"type":"resource"}],"structuredContent":{"a":[1,2]},"isError":true}`,
		`{"content":[{"type":"tool_use","id":"1","name":"x","input":{}}]}`,
		`{"content":null,"structuredContent":"just a string"}`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	known := map[string]bool{tool.ContentText: true, tool.ContentImage: true, tool.ContentAudio: true,
		tool.ContentResourceLink: true, tool.ContentResource: true}
	f.Fuzz(func(t *testing.T, b []byte) {
		var res sdk.CallToolResult
		if err := json.Unmarshal(b, &res); err != nil {
			return
		}
		for _, c := range fromSDKContent(res.Content) {
			if !known[c.Type] {
				t.Fatalf("%s gave a block of type %q", b, c.Type)
			}
		}
		if res.StructuredContent != nil {
			if _, err := json.Marshal(res.StructuredContent); err != nil && !strings.Contains(err.Error(), "unsupported") {
				t.Fatalf("structured content from the wire does not marshal: %v", err)
			}
		}
	})
}
