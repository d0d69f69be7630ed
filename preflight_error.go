package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool/internal/decode"
	"github.com/toolbelt-go/tool/internal/jsonparse"
	"github.com/toolbelt-go/tool/internal/text"
)

// ArgsError is the host's structured view of arguments that failed
// preflight; Result.Err holds one for every StatusInvalid result. Its Error text
// is exactly what the model was told.
type ArgsError struct {
	Tool      string
	Problems  []Problem // at most maxProblems; Total counts them all
	Total     int
	Truncated bool     // the arguments were cut off mid-document
	Required  []string // the required top-level keys
	Example   string   // the expected shape, from the schema; empty when it could only repeat what was sent
	Cause     error    // a schema validator failure or an ArgsValidator error
	text      string
}

// Problem is one thing wrong with the arguments.
type Problem struct {
	Pointer    string   // RFC 6901 pointer to the value ("" for the whole)
	Code       string   // machine-readable: "type", "required", "unknown_key", "truncated", …
	Message    string   // one line for the model, escaped
	Expected   string   // what the schema wants, when known
	Got        string   // what was sent, quoted, escaped and cut
	Allowed    []string // allowed values or keys, when there is a list
	Suggestion string   // the closest allowed key or value
}

func (e *ArgsError) Error() string { return e.text }

// Unwrap returns the cause, if any.
func (e *ArgsError) Unwrap() error { return e.Cause }

const (
	maxProblems   = 8
	maxGotBytes   = 64
	maxExample    = 1024
	maxCheckBytes = 512
)

// fail builds the error of arguments the schema refused, with the text
// the model is told (argsText) and the expected shape (example).
func (a *argsSchema) fail(problems []Problem, total int, truncated bool, sent any, cause error) *ArgsError {
	e := &ArgsError{Tool: a.tool, Problems: problems, Total: total, Truncated: truncated, Cause: cause}
	if a.schema != nil {
		e.Required = a.schema.Root().Required
		e.Example = a.example(sent, problems)
	}
	e.text = argsText(e)
	return e
}

// refuse builds the error of arguments the schema accepted and something
// else refused: the tool's own check, a cursor. It shows no expected
// shape: the schema's shape is the arguments sent, which already passed
// it, so it could only repeat them; the check's message says what to fix.
func (a *argsSchema) refuse(problems []Problem, cause error) *ArgsError {
	e := &ArgsError{Tool: a.tool, Problems: problems, Total: len(problems), Cause: cause}
	if a.schema != nil {
		e.Required = a.schema.Root().Required
	}
	e.text = argsText(e)
	return e
}

// example is the expected shape shown with arguments the schema refused:
// the keys that were sent and those required, the missing ones the
// problems name included, each with a value that the schema suggests.
// It is empty when the schema gives nothing to show, and when it would be
// the arguments that were sent: a hint that repeats what failed is worse
// than none.
func (a *argsSchema) example(sent any, problems []Problem) string {
	ex, repeats := a.schema.Skeleton(withMissing(sent, problems), sent, maxExample)
	if repeats {
		return ""
	}
	return ex
}

// withMissing returns sent with a null at every key a problem says is
// missing, so that the shape shows them: a key a "required" problem names
// (one an if/then, a dependentRequired or a nested object requires, which
// the root's required list does not name), and the key suggested for an
// unknown one. sent is not changed: the objects on the way are copied.
func withMissing(sent any, problems []Problem) any {
	for _, p := range problems {
		if p.Code != "required" && (p.Code != "unknown_key" || p.Suggestion == "") {
			continue
		}
		tokens := strings.Split(p.Pointer, "/")[1:]
		if len(tokens) == 0 {
			continue
		}
		if p.Code == "unknown_key" {
			tokens[len(tokens)-1] = jsonparse.EscapePointerToken(p.Suggestion)
		}
		for i, t := range tokens {
			tokens[i] = jsonparse.UnescapePointerToken(t)
		}
		if out, ok := setMissing(sent, tokens); ok {
			sent = out
		}
	}
	return sent
}

// setMissing returns a copy of v, an object, with a null at the path
// tokens, and reports whether the path led through objects only.
func setMissing(v any, tokens []string) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(tokens) == 0 {
		return nil, false
	}
	out := maps.Clone(m)
	if len(tokens) == 1 {
		if _, ok := out[tokens[0]]; !ok {
			out[tokens[0]] = nil
		}
		return out, true
	}
	child, ok := setMissing(m[tokens[0]], tokens[1:])
	if !ok {
		return nil, false
	}
	out[tokens[0]] = child
	return out, true
}

// checkError turns an ArgsValidator or Validate() error, or an error of
// the typed tool's decoding, into an ArgsError.
func (a *argsSchema) checkError(err error) *ArgsError {
	msg := err.Error()
	var te *Error
	hint := ""
	if errors.As(err, &te) {
		if te.Internal {
			msg = "the arguments were rejected"
		} else {
			msg = te.Message
		}
		hint = te.Hint
	}
	p := Problem{Code: "check", Message: text.Clean(text.Cut(msg, maxCheckBytes))}
	var de *decode.Error
	if errors.As(err, &de) {
		p = Problem{Pointer: de.Pointer, Code: "decode", Expected: de.Expected, Got: de.Got,
			Message: text.Clean(text.Cut("expected "+de.Expected+", got "+de.Got+detailSuffix(de.Detail), maxCheckBytes))}
	}
	if hint != "" {
		p.Message += " (" + text.Clean(text.Cut(hint, maxCheckBytes)) + ")"
	}
	return a.refuse([]Problem{p}, err)
}

func detailSuffix(d string) string {
	if d == "" {
		return ""
	}
	return ": " + d
}

// gotValue describes a sent value for a message: strings quoted, escaped
// and cut; containers by kind and size.
func gotValue(v any) string {
	switch x := v.(type) {
	case string:
		return "string " + text.Quote(x, maxGotBytes)
	case json.Number:
		return decode.Kind(v) + " " + text.Cut(string(x), 40)
	case map[string]any:
		return "an object with " + plural(len(x), "key")
	case []any:
		return "an array of " + plural(len(x), "item")
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// appendGot appends gotValue(v) to dst.
func appendGot(dst []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return text.AppendQuote(append(dst, "string "...), x, maxGotBytes)
	case json.Number:
		return append(append(append(dst, decode.Kind(v)...), ' '), text.Cut(string(x), 40)...)
	}
	return append(dst, gotValue(v)...)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
