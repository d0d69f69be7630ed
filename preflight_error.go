package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/toolbelt-go/tool/internal/decode"
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
	Example   string   // a corrected example of the arguments, from the schema
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

// fail builds the error, with the text the model is told (argsText).
func (a *argsSchema) fail(problems []Problem, total int, truncated bool, sent any, cause error) *ArgsError {
	e := &ArgsError{Tool: a.tool, Problems: problems, Total: total, Truncated: truncated, Cause: cause}
	if a.schema != nil {
		e.Required = a.schema.Root().Required
		e.Example = a.schema.Skeleton(sent, maxExample)
	}
	e.text = argsText(e)
	return e
}

// checkError turns an ArgsValidator or Validate() error into an ArgsError.
func (a *argsSchema) checkError(err error, sent any) *ArgsError {
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
	return a.fail([]Problem{p}, 1, false, sent, err)
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
		return decode.Kind(x) + " " + text.Cut(string(x), 40)
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

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
