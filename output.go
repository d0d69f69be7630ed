package tool

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolbelt-go/tool/internal/text"
)

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
			res.Content = append(res.Content, TextContent("[… "+strconv.Itoa(len(rest))+" more content blocks ("+strconv.Itoa(dropped)+
				" bytes) left out: the result is over its size limit]"))
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
			c = TextContent("[a content block was left out: " + problem + "]")
		}
		res.Content[i] = c
	}
	if len(res.Structured) > 0 && !res.trusted && !(utf8.Valid(res.Structured) && json.Valid(res.Structured)) {
		res.Truncated += len(res.Structured)
		res.Structured = nil
		res.Content = append(res.Content, TextContent("[structured output left out: it was not valid UTF-8 JSON]"))
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

// OutputArgs are arguments a tool with long output can take, to let the
// model choose between an overview and the full detail. Embed it in the
// argument type and pass it to [CapItems] or [CapFiles].
type OutputArgs struct {
	DetailLevel string `json:"detail_level,omitempty" jsonschema:"enum=compact,enum=full,description=compact (the default) gives a capped overview; full pages through every result with offset and limit"`
	Offset      int    `json:"offset,omitempty" jsonschema:"minimum=0,description=With detail_level full: the first result to show"`
	Limit       int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=1000,description=The most results to show"`
}

// OutputArgsSchema is the JSON Schema of OutputArgs' properties, for raw
// tools to add to their own "properties".
func OutputArgsSchema() json.RawMessage {
	return json.RawMessage(`{"detail_level":{"type":"string","enum":["compact","full"],"description":"compact (the default) gives a capped overview; full pages through every result with offset and limit"},` +
		`"offset":{"type":"integer","minimum":0,"description":"With detail_level full: the first result to show"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":1000,"description":"The most results to show"}}`)
}

// OutputGuard holds the caps of the two output modes. The zero value uses
// the defaults.
type OutputGuard struct {
	// ExploreCap is the most results shown in exploring (compact) mode
	// when the call passes no limit; default 200.
	ExploreCap int
	// PageLimit is the page size of focused (full) mode when the call
	// passes no limit; default 50.
	PageLimit int
}

// Overflow tells the model that not every result was shown, and how to see
// more. Include it in the tool's output when it is not nil.
type Overflow struct {
	Shown int    `json:"shown"`
	Total int    `json:"total"`
	Hint  string `json:"hint"`
	// NextOffset is set in focused mode when another page exists.
	NextOffset *int `json:"next_offset,omitempty"`
}

// CapItems applies the guard to a tool's results. In exploring mode (the
// default) it shows the first ExploreCap results, or the first Limit if
// the call passed one. In focused mode (detail_level "full") it shows the
// page at Offset of Limit results (default PageLimit); a call that passes
// an Offset pages this way whatever its detail level. The Overflow is nil
// when every result was shown; its NextOffset is set only in focused mode
// when another page exists.
func CapItems[T any](g OutputGuard, items []T, a OutputArgs) ([]T, *Overflow) {
	return capList(g, items, a, "results")
}

// CapFiles is CapItems for lists of files; the hints speak of files.
func CapFiles[T any](g OutputGuard, files []T, a OutputArgs) ([]T, *Overflow) {
	return capList(g, files, a, "files")
}

func capList[T any](g OutputGuard, items []T, a OutputArgs, what string) ([]T, *Overflow) {
	total := len(items)
	// An offset is a place in the whole list, which only focused mode
	// has: a call that passes one pages, whatever its detail level, rather
	// than be shown the first results again without a word.
	if a.DetailLevel != "full" && a.Offset <= 0 {
		limit := g.ExploreCap
		if limit <= 0 {
			limit = 200
		}
		if a.Limit > 0 {
			limit = a.Limit
		}
		if total <= limit {
			return items, nil
		}
		return items[:limit], &Overflow{Shown: limit, Total: total,
			Hint: "Showing the first " + strconv.Itoa(limit) + " of " + strconv.Itoa(total) + " " + what +
				". Narrow the request, or pass detail_level \"full\" with offset and limit to page through all of them."}
	}
	limit := g.PageLimit
	if limit <= 0 {
		limit = 50
	}
	if a.Limit > 0 {
		limit = a.Limit
	}
	off := min(max(a.Offset, 0), total)
	end := min(off+limit, total)
	page := items[off:end]
	if off == 0 && end == total {
		return page, nil
	}
	o := &Overflow{Shown: len(page), Total: total}
	switch {
	case len(page) == 0:
		o.Hint = "Offset " + strconv.Itoa(a.Offset) + " is past the end: there are " + strconv.Itoa(total) + " " + what + "."
	case end < total:
		next := end
		o.NextOffset = &next
		o.Hint = "Showing " + what + " " + strconv.Itoa(off+1) + " to " + strconv.Itoa(end) + " of " + strconv.Itoa(total) +
			". Call again with offset " + strconv.Itoa(next) + " for the next page."
	default:
		o.Hint = "Showing " + what + " " + strconv.Itoa(off+1) + " to " + strconv.Itoa(end) + " of " + strconv.Itoa(total) + "; this is the last page."
	}
	return page, o
}
