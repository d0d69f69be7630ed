package toolopenai

import (
	"encoding/base64"
	"path"
	"slices"

	"github.com/toolbelt-go/tool"
)

// noOutput is what the model is told of a result with nothing in it, so
// that it never reads an empty answer as a lost one.
const noOutput = "(the tool returned no output)"

// imageTypes are the image formats OpenAI's models read.
var imageTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}

// resultText is the model view of a result as one text: what a Chat
// Completions tool message can carry. Blocks that are not text are named
// in brackets; structured output with no text is given as its JSON.
func resultText(res *tool.Result) string {
	s := res.Text()
	if s == "" && len(res.Structured) > 0 {
		s = string(res.Structured)
	}
	if s == "" {
		s = noOutput
	}
	return s
}

// blockText is one block as text: its text, or a note in brackets for a
// block the provider is not sent as it is.
func blockText(c tool.Content) string {
	return (&tool.Result{Content: []tool.Content{c}}).Text()
}

// sendsImage reports whether c goes to the model as an image.
func sendsImage(c tool.Content) bool {
	return c.Type == tool.ContentImage && slices.Contains(imageTypes, c.MIMEType)
}

// sendsFile reports whether c goes to the model as a file: an embedded PDF.
func sendsFile(c tool.Content) bool {
	return c.Type == tool.ContentResource && c.Data != nil && c.MIMEType == "application/pdf"
}

func dataURL(c tool.Content) string {
	return "data:" + c.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(c.Data)
}

func fileName(c tool.Content) string {
	if n := path.Base(c.URI); n != "." && n != "/" && n != "" {
		return n
	}
	return "file.pdf"
}
