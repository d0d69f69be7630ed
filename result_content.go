package tool

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/toolbelt-go/tool/internal/text"
)

// Content types: the Type of a [Content] block. They are MCP's, and each
// adapter maps them to what its protocol or provider accepts.
const (
	ContentText         = "text"          // Text
	ContentImage        = "image"         // Data, MIMEType (image/…)
	ContentAudio        = "audio"         // Data, MIMEType (audio/…)
	ContentResourceLink = "resource_link" // URI, Name, and optionally Title, Description, MIMEType
	ContentResource     = "resource"      // URI, MIMEType, and Text or Data: an embedded resource
)

// Content is one block of the model view. Build one with [TextContent],
// [ImageContent], [AudioContent], [ResourceLinkContent] or
// [ResourceContent]; its JSON form is MCP's content block.
//
// The output stage checks every block before the model sees it: text is
// escaped, MIME types and URIs must be well formed, and each block's cost
// on the wire (base64 for binary data) counts against the result's byte cap.
// A block that is malformed, or binary and too large to fit, is replaced by
// a note saying what was left out.
type Content struct {
	// Type is one of the Content… constants.
	Type string
	// Text is the text of a text block, or of an embedded text resource.
	Text string
	// Data is the bytes of an image, audio clip or embedded binary
	// resource.
	Data []byte
	// MIMEType is the media type of Data, of an embedded resource or of a
	// linked one ("image/png", "text/x-go").
	MIMEType string
	// URI names a linked or embedded resource ("file:///src/main.go").
	URI string
	// Name, Title and Description describe a linked resource.
	Name, Title, Description string
}

// TextContent returns a text block.
func TextContent(s string) Content { return Content{Type: ContentText, Text: s} }

// ImageContent returns an image block; mimeType is "image/png", "image/jpeg"…
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: ContentImage, Data: data, MIMEType: mimeType}
}

// AudioContent returns an audio block; mimeType is "audio/wav", "audio/mpeg"…
func AudioContent(data []byte, mimeType string) Content {
	return Content{Type: ContentAudio, Data: data, MIMEType: mimeType}
}

// ResourceLinkContent returns a link to a resource the client can fetch
// (a file, a URL), instead of its content.
func ResourceLinkContent(uri, name, mimeType string) Content {
	return Content{Type: ContentResourceLink, URI: uri, Name: name, MIMEType: mimeType}
}

// ResourceContent returns an embedded resource: the content of uri, given
// as text (a text resource) or, when data is not nil, as bytes.
func ResourceContent(uri, mimeType, text string, data []byte) Content {
	return Content{Type: ContentResource, URI: uri, MIMEType: mimeType, Text: text, Data: data}
}

// Binary reports whether the block carries bytes (an image, audio, or an
// embedded binary resource), which cannot be cut to fit a cap.
func (c Content) Binary() bool { return c.Data != nil }

// contentJSON is the wire form of every content type, MCP's.
type contentJSON struct {
	Type        string        `json:"type"`
	Text        *string       `json:"text,omitempty"`
	Data        []byte        `json:"data,omitempty"`
	MIMEType    string        `json:"mimeType,omitempty"`
	URI         string        `json:"uri,omitempty"`
	Name        string        `json:"name,omitempty"`
	Title       string        `json:"title,omitempty"`
	Description string        `json:"description,omitempty"`
	Resource    *resourceJSON `json:"resource,omitempty"`
}

type resourceJSON struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     []byte  `json:"blob,omitempty"`
}

// MarshalJSON writes the block in MCP's shape: {"type":"text","text":…},
// {"type":"image","data":<base64>,"mimeType":…}, {"type":"resource",
// "resource":{"uri":…,"text"|"blob":…}}, and so on.
func (c Content) MarshalJSON() ([]byte, error) {
	j := contentJSON{Type: c.Type}
	switch c.Type {
	case ContentImage, ContentAudio:
		j.Data, j.MIMEType = c.Data, c.MIMEType
	case ContentResourceLink:
		j.URI, j.Name, j.Title, j.Description, j.MIMEType = c.URI, c.Name, c.Title, c.Description, c.MIMEType
	case ContentResource:
		r := &resourceJSON{URI: c.URI, MIMEType: c.MIMEType}
		if c.Data != nil {
			r.Blob = c.Data
		} else {
			r.Text = &c.Text
		}
		j.Resource = r
	default:
		j.Text = &c.Text
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a block written by MarshalJSON (MCP's shape).
func (c *Content) UnmarshalJSON(b []byte) error {
	var j contentJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Content{Type: j.Type, Data: j.Data, MIMEType: j.MIMEType, URI: j.URI, Name: j.Name, Title: j.Title, Description: j.Description}
	if j.Text != nil {
		c.Text = *j.Text
	}
	if j.Type == ContentResource {
		if j.Resource == nil {
			return errors.New("tool: a resource content block has no resource")
		}
		c.URI, c.MIMEType, c.Data = j.Resource.URI, j.Resource.MIMEType, j.Resource.Blob
		if j.Resource.Text != nil {
			c.Text = *j.Resource.Text
		}
	}
	return nil
}

// describe says in a few words what a block that is not text holds, for
// [Result.Text] and for notes about blocks that were left out.
func (c Content) describe() string {
	switch c.Type {
	case ContentText:
		return "text of " + strconv.Itoa(len(c.Text)) + " bytes"
	case ContentResourceLink:
		return "a link to " + c.URI
	case ContentResource:
		if c.Data == nil {
			return "the text of " + c.URI
		}
		return c.MIMEType + " content of " + c.URI + ", " + strconv.Itoa(len(c.Data)) + " bytes"
	}
	kind := c.Type
	if kind == "" {
		kind = "content"
	}
	return kind + " " + c.MIMEType + ", " + strconv.Itoa(len(c.Data)) + " bytes"
}

// EscapeModelText returns s as the pipeline writes text the model reads:
// C0 controls other than newline and tab, DEL and C1 controls become \xNN
// escapes; bidirectional controls, zero-width spaces and word joiners, the
// byte order mark and the Unicode tag characters, which can carry
// instructions a person reading the same text would not see, become
// \uNNNN or \UNNNNNNNN escapes; invalid UTF-8 becomes U+FFFD. The joiners
// scripts and emoji need (ZWJ, ZWNJ) stay. The pipeline applies it to every
// result (unless [RegistryOptions.KeepInvisible]); a host applies it to
// other text it puts in front of a model, such as a remote server's tool
// descriptions.
func EscapeModelText(s string) string { return text.CleanModel(s, false) }
