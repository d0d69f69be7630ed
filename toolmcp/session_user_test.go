package toolmcp

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestUserSession(t *testing.T) {
	for _, c := range []struct {
		name string
		req  *sdk.CallToolRequest
		want string
	}{
		{"no request", nil, ""},
		{"no extra", &sdk.CallToolRequest{}, ""},
		{"no token", &sdk.CallToolRequest{Extra: &sdk.RequestExtra{}}, ""},
		{"a token without a user", &sdk.CallToolRequest{Extra: &sdk.RequestExtra{TokenInfo: &auth.TokenInfo{Scopes: []string{"notes"}}}}, ""},
		{"the token's user", &sdk.CallToolRequest{Extra: &sdk.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "ada"}}}, "ada"},
	} {
		if got := UserSession(c.req); got != c.want {
			t.Errorf("%s: UserSession = %q, want %q", c.name, got, c.want)
		}
	}
}
