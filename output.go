package tool

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolbelt-go/tool/internal/text"
)

// outputStage makes the model view of the run's result safe, on its way
// back: every text block escaped, every other block checked, then the byte
// cap (the Definition's MaxOutputBytes, else the registry's). With a spill
// store, what the cap cuts is kept for read_output, whose own results are
// never spilled again.
func outputStage[C any](next Handler[C]) Handler[C] {
	return func(ctx context.Context, call *Call[C]) *Result {
		res := next(ctx, call)
		rt := call.runtime()
		sanitize(res, rt.keepInvisible)
		limit := rt.maxOut
		if d := call.st.entry.def.MaxOutputBytes; d > 0 {
			limit = d
		}
		size, onlyText := 0, true
		for _, c := range res.Content {
			size += c.cost()
			onlyText = onlyText && c.Type == ContentText
		}
		if rt.spill != nil && size > limit && onlyText && len(res.Content) <= maxBlocks && call.Name != ReadOutputTool && call.Session != "" &&
			spillOutput(ctx, call, res, limit, rt.spill) {
			return res
		}
		capOutput(res, limit)
		return res
	}
}

// DefaultMaxOutputBytes caps the model view of one result when neither the
// Definition nor the registry sets a cap: about 8,000 tokens, a large
// answer that still leaves a model room to think.
const DefaultMaxOutputBytes = 32 << 10

// minOutputCap is the smallest cap applied, so the marker always fits.
const minOutputCap = 256

// blockCost is what one content block costs besides what it holds: its
// JSON framing ({"type":"text","text":""} is 25 bytes) and the newline
// that joins it to the next in Result.Text.
const blockCost = 32

// maxBlocks bounds the content blocks of one result, whatever the cap.
const maxBlocks = 1000

// cost is what a block costs on the wire: its text, its data as base64, its
// names, and the framing.
func (c Content) cost() int {
	n := blockCost + len(c.Text) + len(c.MIMEType) + len(c.URI) + len(c.Name) + len(c.Title) + len(c.Description)
	if c.Data != nil {
		n += base64.StdEncoding.EncodedLen(len(c.Data))
	}
	return n
}

// capOutput is the output stage's byte cap: the content blocks of res, in
// order, share limit bytes, each counted at its cost on the wire (text,
// base64 for binary data, framing). The first block that does not fit ends
// the result: a text block keeps its head and tail around a marker saying
// how much was cut; a binary block cannot be cut and is left out; every
// block after it is left out, with one note of what was. Structured output
// has the same cap of its own, and is dropped whenever the text that
// renders it was cut. The host view records the bytes left out in
// Result.Truncated.
func capOutput(res *Result, limit int) {
	limit = max(limit, minOutputCap)
	if len(res.Structured) > limit {
		res.Truncated += len(res.Structured)
		res.Structured = nil
	}
	total := 0
	for _, c := range res.Content {
		total += c.cost()
	}
	if total <= limit && len(res.Content) <= maxBlocks {
		return
	}
	// Something is cut: keep room for the note that says what.
	budget := limit - noteRoom
	for i, c := range res.Content {
		if cost := c.cost(); cost <= budget && i < maxBlocks {
			budget -= cost
			continue
		}
		rest := res.Content[i:]
		res.Content = res.Content[:i:i]
		cut := 0
		if c.Type == ContentText && budget-blockCost >= minCutText {
			kept, n := text.HeadTail(c.Text, budget-blockCost)
			res.Content = append(res.Content, TextContent(kept))
			cut += n
			rest = rest[1:]
		}
		if len(rest) > 0 {
			dropped := 0
			for _, r := range rest {
				dropped += r.cost()
			}
			cut += dropped
			res.Content = append(res.Content, blocksLeftOut(len(rest), dropped))
		}
		res.Truncated += cut
		break
	}
	if res.Structured != nil {
		res.Truncated += len(res.Structured)
		res.Structured = nil
	}
}

// noteRoom is kept free, when a result is cut, for the note of the blocks
// left out; minCutText is the least room worth keeping a cut block's head
// and tail in.
const (
	noteRoom   = 128
	minCutText = 96
)

// sanitize makes the model view safe before it is capped: text escaped
// (see RegistryOptions.KeepInvisible), names and URIs checked and bounded,
// MIME types checked, structured output valid UTF-8 JSON. A block that
// cannot be made safe (a MIME type that is not one, a URI with spaces or
// controls, an image with no bytes) is replaced by a note, and so is
// structured output that is not valid: nothing malformed reaches the model.
func sanitize(res *Result, keepInvisible bool) {
	clean := func(s string, max int) string { return text.Bound(text.CleanModel(s, keepInvisible), max) }
	for i, c := range res.Content {
		var problem string
		switch c.Type {
		case ContentText:
			c.Text = text.CleanModel(c.Text, keepInvisible)
		case ContentImage, ContentAudio:
			switch {
			case len(c.Data) == 0:
				problem = "it has no data"
			case !validMIME(c.MIMEType) || !strings.HasPrefix(strings.ToLower(c.MIMEType), c.Type+"/"):
				problem = "its media type " + text.QuoteASCII(c.MIMEType, 64) + " is not an " + c.Type + " type"
			}
		case ContentResourceLink, ContentResource:
			switch {
			case !validURI(c.URI):
				problem = "its URI " + text.QuoteASCII(c.URI, 64) + " is not a URI"
			case c.MIMEType != "" && !validMIME(c.MIMEType):
				problem = "its media type " + text.QuoteASCII(c.MIMEType, 64) + " is not one"
			}
			c.Text = text.CleanModel(c.Text, keepInvisible)
			c.Name, c.Title, c.Description = clean(c.Name, 256), clean(c.Title, 256), clean(c.Description, 1024)
		default:
			problem = "its type " + text.QuoteASCII(c.Type, 32) + " is not one a model can be sent"
		}
		c.MIMEType = strings.ToLower(c.MIMEType)
		if problem != "" {
			res.Truncated += c.cost() - blockCost
			c = blockLeftOut(problem)
		}
		res.Content[i] = c
	}
	if len(res.Structured) > 0 && !res.trusted && !(utf8.Valid(res.Structured) && json.Valid(res.Structured)) {
		res.Truncated += len(res.Structured)
		res.Structured = nil
		res.Content = append(res.Content, TextContent(structuredLeftOut))
	}
}

// validMIME reports whether s is a media type: type "/" subtype, each of
// token characters (RFC 6838), with no parameters.
func validMIME(s string) bool {
	typ, sub, ok := strings.Cut(s, "/")
	return ok && len(s) <= 127 && isToken(typ) && isToken(sub)
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$&-^_.+", c) >= 0) {
			return false
		}
	}
	return true
}

// validURI reports whether s is an absolute URI with nothing a reader
// could be fooled by: no spaces, controls or invisible characters, at most
// 2 KiB.
func validURI(s string) bool {
	if s == "" || len(s) > 2048 || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r >= 0x80 && r <= 0x9f || text.Invisible(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != ""
}
