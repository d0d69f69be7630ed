package toolmcp

import (
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// toSDKContent maps the blocks of a result's model view to MCP content.
// The output stage has already checked them (well-formed MIME types and
// URIs, escaped text, within the cap); a block of a type this adapter does
// not know becomes a text note rather than disappearing.
func toSDKContent(blocks []tool.Content) []sdk.Content {
	out := make([]sdk.Content, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case tool.ContentText:
			out = append(out, &sdk.TextContent{Text: b.Text})
		case tool.ContentImage:
			out = append(out, &sdk.ImageContent{Data: b.Data, MIMEType: b.MIMEType})
		case tool.ContentAudio:
			out = append(out, &sdk.AudioContent{Data: b.Data, MIMEType: b.MIMEType})
		case tool.ContentResourceLink:
			out = append(out, &sdk.ResourceLink{URI: b.URI, Name: b.Name, Title: b.Title, Description: b.Description, MIMEType: b.MIMEType})
		case tool.ContentResource:
			rc := &sdk.ResourceContents{URI: b.URI, MIMEType: b.MIMEType}
			if b.Data != nil {
				rc.Blob = b.Data
			} else {
				rc.Text = b.Text
			}
			out = append(out, &sdk.EmbeddedResource{Resource: rc})
		default:
			out = append(out, &sdk.TextContent{Text: fmt.Sprintf("[a %q block this server cannot send over MCP]", b.Type)})
		}
	}
	return out
}

// fromSDKContent maps the content of a remote tool's result to blocks of
// the model view. The pipeline's output stage then checks them as it
// checks any tool's output. Content types that have no place in a tool
// result (sampling's tool use blocks) become a text note.
func fromSDKContent(blocks []sdk.Content) []tool.Content {
	out := make([]tool.Content, 0, len(blocks))
	for _, c := range blocks {
		switch c := c.(type) {
		case *sdk.TextContent:
			out = append(out, tool.TextContent(c.Text))
		case *sdk.ImageContent:
			out = append(out, tool.ImageContent(c.Data, c.MIMEType))
		case *sdk.AudioContent:
			out = append(out, tool.AudioContent(c.Data, c.MIMEType))
		case *sdk.ResourceLink:
			l := tool.ResourceLinkContent(c.URI, c.Name, c.MIMEType)
			l.Title, l.Description = c.Title, c.Description
			out = append(out, l)
		case *sdk.EmbeddedResource:
			if c.Resource == nil {
				out = append(out, tool.TextContent("[an embedded resource with no content]"))
				continue
			}
			var data []byte
			if c.Resource.Blob != nil {
				data = c.Resource.Blob
			}
			out = append(out, tool.ResourceContent(c.Resource.URI, c.Resource.MIMEType, c.Resource.Text, data))
		case nil:
		default:
			out = append(out, tool.TextContent(fmt.Sprintf("[a %T block the tool result cannot carry]", c)))
		}
	}
	return out
}
