package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestContentJSONIsMCPs(t *testing.T) {
	tests := []struct {
		c    tool.Content
		want string
	}{
		{tool.TextContent("hi"), `{"type":"text","text":"hi"}`},
		{tool.TextContent(""), `{"type":"text","text":""}`},
		{tool.ImageContent([]byte{1, 2, 3}, "image/png"), `{"type":"image","data":"AQID","mimeType":"image/png"}`},
		{tool.AudioContent([]byte("RIFF"), "audio/wav"), `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`},
		{tool.ResourceLinkContent("file:///a.go", "a.go", "text/x-go"), `{"type":"resource_link","uri":"file:///a.go","name":"a.go","mimeType":"text/x-go"}`},
		{tool.ResourceContent("file:///a.go", "text/x-go", "package a", nil), `{"type":"resource","resource":{"uri":"file:///a.go","mimeType":"text/x-go","text":"package a"}}`},
		{tool.ResourceContent("file:///a.bin", "application/octet-stream", "", []byte{0}), `{"type":"resource","resource":{"uri":"file:///a.bin","mimeType":"application/octet-stream","blob":"AA=="}}`},
	}
	for _, tt := range tests {
		t.Run(tt.c.Type, func(t *testing.T) {
			b, err := json.Marshal(tt.c)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
			var back tool.Content
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tt.c, back)
		})
	}
}

func TestResultTextNamesWhatIsNotText(t *testing.T) {
	res := &tool.Result{Content: []tool.Content{tool.TextContent("chart:"), tool.ImageContent(make([]byte, 10), "image/png"),
		tool.ResourceContent("file:///n.txt", "text/plain", "notes", nil)}}
	assert.Equal(t, "chart:\n[image image/png, 10 bytes]\nnotes", res.Text())
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"chart:"},{"type":"image","data":"AAAAAAAAAAAAAA==","mimeType":"image/png"},
		{"type":"resource","resource":{"uri":"file:///n.txt","mimeType":"text/plain","text":"notes"}}]}`, string(b))
}
