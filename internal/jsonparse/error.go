package jsonparse

import (
	"strconv"
)

// ErrorKind classifies why a document was rejected.
type ErrorKind uint8

// The kinds of rejection. Each gets its own advice in preflight.
const (
	Empty            ErrorKind = iota + 1 // nothing but whitespace
	Truncated                             // the input ends inside a value
	Syntax                                // not JSON
	TrailingData                          // more after the first value
	DuplicateKey                          // a key repeated in one object
	InvalidUTF8                           // bytes that are not UTF-8
	LoneSurrogate                         // a \u escape of half a surrogate pair
	TooLarge                              // document over MaxBytes
	TooDeep                               // nesting over MaxDepth
	StringTooLong                         // string over MaxStringBytes
	NumberTooLong                         // number token over MaxNumberLen
	ExponentTooLarge                      // exponent over MaxExponent
	TooManyElements                       // object or array over MaxElements
	NumberOutOfRange                      // a number beyond what a float64 holds (±1.8e308)
)

// Error says where and why a document was rejected. Its fields are facts;
// Error() is a short English rendering of them.
type Error struct {
	Kind    ErrorKind
	Offset  int    // byte offset where the problem was found
	Pointer string // RFC 6901 pointer of the value being read ("" for the root)
	Detail  string // kind-specific: what was expected, the offending escape
	Key     string // DuplicateKey: the repeated key
	Limit   int    // limit kinds: the limit that was passed
	Size    int    // TooLarge: the document's size
}

func (e *Error) Error() string {
	at := " at byte " + strconv.Itoa(e.Offset)
	if e.Pointer != "" {
		at += " (" + e.Pointer + ")"
	}
	switch e.Kind {
	case Empty:
		return "empty document"
	case Truncated:
		return "input ends" + at + " while expecting " + e.Detail
	case Syntax:
		return "invalid JSON" + at + ": " + e.Detail
	case TrailingData:
		if e.Detail != "" {
			return "unexpected " + e.Detail + at
		}
		return "unexpected data after the value" + at
	case DuplicateKey:
		return "duplicate key " + strconv.Quote(e.Key) + at
	case NumberOutOfRange:
		return "number out of the range of a float64" + at
	case InvalidUTF8:
		return "invalid UTF-8" + at
	case LoneSurrogate:
		return "lone surrogate escape " + e.Detail + at
	case TooLarge:
		return "document of " + strconv.Itoa(e.Size) + " bytes is over the limit of " + strconv.Itoa(e.Limit)
	case TooDeep:
		return "nesting deeper than " + strconv.Itoa(e.Limit) + at
	case StringTooLong:
		return "string longer than " + strconv.Itoa(e.Limit) + " bytes" + at
	case NumberTooLong:
		return "number longer than " + strconv.Itoa(e.Limit) + " characters" + at
	case ExponentTooLarge:
		return "number exponent beyond ±" + strconv.Itoa(e.Limit) + at
	case TooManyElements:
		return "more than " + strconv.Itoa(e.Limit) + " " + e.Detail + at
	}
	return "invalid JSON" + at
}
