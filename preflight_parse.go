package tool

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool/internal/decode"
	"github.com/toolbelt-go/tool/internal/jsonparse"
	"github.com/toolbelt-go/tool/internal/text"
)

// parseArgs reads the arguments, which must be one JSON object. keys are
// the names the tool's schema declares: a key among them costs no copy.
func parseArgs(raw []byte, lim jsonparse.Limits, keys map[string]string) (any, *Problem) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return map[string]any{}, nil
	}
	v, err := jsonparse.ParseKeys(raw, lim, keys)
	if err != nil {
		return nil, syntaxProblem(err)
	}
	switch x := v.(type) {
	case map[string]any:
		return x, nil
	case nil:
		return map[string]any{}, nil
	case string:
		inner := strings.TrimSpace(x)
		if strings.HasPrefix(inner, "{") {
			if iv, err := jsonparse.Parse([]byte(inner), lim); err == nil {
				if _, ok := iv.(map[string]any); ok {
					return nil, &Problem{Code: "string_wrapped_object", Expected: "object", Got: "string",
						Message: "the arguments are a JSON string that contains an object; send the object itself, not a string"}
				}
			}
		}
		return nil, &Problem{Code: "not_object", Expected: "object", Got: "string " + text.Quote(x, maxGotBytes),
			Message: "the arguments must be a JSON object like {\"key\": value}, not a string"}
	case []any:
		return nil, &Problem{Code: "not_object", Expected: "object", Got: "array",
			Message: "the arguments must be a JSON object like {\"key\": value}, not an array"}
	default:
		return nil, &Problem{Code: "not_object", Expected: "object", Got: decode.Kind(v),
			Message: "the arguments must be a JSON object like {\"key\": value}, not a " + decode.Kind(v)}
	}
}

var parseCodes = map[jsonparse.ErrorKind]string{
	jsonparse.Truncated: "truncated", jsonparse.Syntax: "syntax", jsonparse.TrailingData: "trailing_data",
	jsonparse.DuplicateKey: "duplicate_key", jsonparse.NumberOutOfRange: "number_out_of_range",
	jsonparse.InvalidUTF8: "invalid_utf8", jsonparse.LoneSurrogate: "lone_surrogate",
	jsonparse.TooLarge: "too_large", jsonparse.TooDeep: "too_deep", jsonparse.StringTooLong: "string_too_long",
	jsonparse.NumberTooLong: "number_too_long", jsonparse.ExponentTooLarge: "exponent_too_large",
	jsonparse.TooManyElements: "too_many_elements",
}

func syntaxProblem(e *jsonparse.Error) *Problem {
	p := &Problem{Pointer: e.Pointer, Code: parseCodes[e.Kind]}
	at := "at byte " + strconv.Itoa(e.Offset)
	switch e.Kind {
	case jsonparse.Truncated:
		where := ""
		if e.Pointer != "" {
			where = " inside " + showPointer(e.Pointer)
		}
		p.Message = "the JSON ends after " + strconv.Itoa(e.Offset) + " bytes" + where + ", while " + e.Detail +
			" was expected. Send the complete arguments again; if a value is very long, split the work into smaller calls"
	case jsonparse.Syntax:
		p.Message = "the arguments are not valid JSON " + at + ": " + text.Clean(e.Detail)
	case jsonparse.TrailingData:
		if e.Detail != "" {
			p.Message = "the arguments hold more than one JSON document (a second one starts " + at + "); send exactly one object"
		} else {
			p.Message = "unexpected text after the arguments object " + at + "; send exactly one JSON object and nothing else"
		}
	case jsonparse.DuplicateKey:
		p.Message = "the key " + text.QuoteASCII(e.Key, maxGotBytes) + " appears twice; send each key once"
	case jsonparse.NumberOutOfRange:
		p.Message = "a number " + at + " is beyond what a 64-bit float holds (about ±1.8e308); send an ordinary number"
	case jsonparse.InvalidUTF8:
		p.Message = "the arguments contain bytes that are not valid UTF-8 " + at + "; send text only, escaping anything else"
	case jsonparse.LoneSurrogate:
		p.Message = "the string holds a lone surrogate escape " + text.Clean(e.Detail) + " " + at + ", which is not a character; use a complete surrogate pair or the character itself"
	case jsonparse.TooLarge:
		p.Message = "the arguments are " + strconv.Itoa(e.Size) + " bytes, over the limit of " + strconv.Itoa(e.Limit) + "; send less data per call"
	case jsonparse.TooDeep:
		p.Message = "the arguments nest deeper than " + strconv.Itoa(e.Limit) + " levels; flatten them"
	case jsonparse.StringTooLong:
		p.Message = "a string is longer than the limit of " + strconv.Itoa(e.Limit) + " bytes; send less per call"
	case jsonparse.NumberTooLong:
		p.Message = "a number is written with more than " + strconv.Itoa(e.Limit) + " characters; send an ordinary number"
	case jsonparse.ExponentTooLarge:
		p.Message = "a number's exponent is beyond ±" + strconv.Itoa(e.Limit) + "; send an ordinary number"
	case jsonparse.TooManyElements:
		p.Message = "an object or array has more than " + strconv.Itoa(e.Limit) + " " + e.Detail + "; send fewer per call"
	default:
		p.Message = "the arguments are not valid JSON " + at
	}
	return p
}
