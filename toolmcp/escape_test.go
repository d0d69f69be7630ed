package toolmcp

import (
	"testing"

	"github.com/toolbelt-go/tool"
)

// What a remote server writes for the model is escaped as the registry
// escapes any tool's output (tool.EscapeModelText), before it reaches a
// definition or a progress message.
func TestRemoteTextIsEscaped(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\nwith lines\tand tabs", "plain text\nwith lines\tand tabs"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\u202eevil\u202c", `\u202eevil\u202c`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"\U000E0041 tag", `\U000e0041 tag`},
		{"emoji 👩\u200d💻 joined", "emoji 👩\u200d💻 joined"},
	}
	for _, tt := range tests {
		if got := tool.EscapeModelText(tt.in); got != tt.want {
			t.Errorf("EscapeModelText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
