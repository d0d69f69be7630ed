package dialect

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Target is the schema dialect of one model provider's tool definitions.
type Target uint8

const (
	// OpenAI is a function's parameters in OpenAI's function calling with
	// strict off (Chat Completions and the Responses API). Any JSON Schema
	// object is accepted; the schema is sent as it is.
	OpenAI Target = iota + 1
	// OpenAIStrict is a function's parameters with strict on: OpenAI's
	// Structured Outputs subset. Every property is required, an optional
	// one becomes nullable, every object has additionalProperties false,
	// and keywords outside the subset move to descriptions. A schema that
	// cannot be made strict falls back to OpenAI.
	OpenAIStrict
	// Anthropic is a tool's input_schema in Anthropic's Messages API: JSON
	// Schema as it is, with no anyOf, oneOf or allOf at the top level.
	Anthropic
	// Gemini is a function declaration's parameters in the Gemini API: the
	// Schema object, a subset of OpenAPI 3.0 (google.golang.org/genai's
	// Schema, in its JSON form). A schema it cannot express (a free-form
	// map, a value of any type, a recursive type, a tuple) falls back to
	// GeminiJSON.
	Gemini
	// GeminiJSON is a function declaration's parametersJsonSchema: the
	// JSON Schema subset the Gemini API documents for it.
	GeminiJSON
)

var targetNames = [...]string{OpenAI: "openai", OpenAIStrict: "openai-strict", Anthropic: "anthropic", Gemini: "gemini", GeminiJSON: "gemini-json"}

// String returns the target's name: "openai", "openai-strict", "anthropic",
// "gemini" or "gemini-json".
func (t Target) String() string {
	if int(t) < len(targetNames) && targetNames[t] != "" {
		return targetNames[t]
	}
	return "Target(" + strconv.Itoa(int(t)) + ")"
}

// fallback is the target a schema is sent in when it cannot be put in t.
func (t Target) fallback() Target {
	switch t {
	case OpenAIStrict:
		return OpenAI
	case Gemini:
		return GeminiJSON
	}
	return 0
}

// Action is what a conversion did to a keyword.
type Action uint8

const (
	// Moved: the keyword was dropped and what it says was added to the
	// description (Warning.Note), so the model still knows it. The tool's
	// own schema still enforces it when the call arrives.
	Moved Action = iota + 1
	// Rewritten: the keyword was replaced by an equivalent form the target
	// accepts (an optional key made required and nullable, a const made a
	// one-value enum, a reference inlined).
	Rewritten
	// Dropped: the keyword was removed with nothing in its place, because it
	// constrains nothing the model sends (an annotation, a comment,
	// additionalProperties false where the target has no such keyword).
	Dropped
	// Fallback: the schema could not be put in the target's form at all and
	// was converted for the fallback target instead (Converted.Target);
	// Warning.Note says why.
	Fallback
)

var actionNames = [...]string{Moved: "moved to the description", Rewritten: "rewritten", Dropped: "dropped", Fallback: "fallback"}

// String describes the action in a few words.
func (a Action) String() string {
	if int(a) < len(actionNames) && actionNames[a] != "" {
		return actionNames[a]
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// A Warning says what a conversion changed in a schema: which keyword, at
// which subschema, what it did, and what text it left in the description.
type Warning struct {
	// Tool is the tool whose schema this is; adapters set it, Convert
	// leaves it empty.
	Tool string
	// Target is the target the schema was converted for.
	Target Target
	// Pointer is the JSON pointer (RFC 6901) to the subschema in the input
	// schema, "" for the root.
	Pointer string
	// Keyword is the keyword dropped or rewritten; "" when the warning is
	// about the whole subschema (a Fallback).
	Keyword string
	// Action is what happened to it.
	Action Action
	// Note is, for Moved, the sentence added to the description; for
	// Rewritten, what the keyword became; for a Fallback, why.
	Note string
}

// String renders the warning on one line:
//
//	search: openai-strict: /properties/query: minLength moved to the description: "At least 1 character."
func (w Warning) String() string {
	s := ""
	if w.Tool != "" {
		s = w.Tool + ": "
	}
	if w.Target != 0 {
		s += w.Target.String() + ": "
	}
	ptr := w.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	s += ptr + ": "
	switch {
	case w.Action == Fallback:
		s += "sent as " + w.Target.fallback().String() + ": " + w.Note
	case w.Keyword != "":
		s += w.Keyword + " " + w.Action.String()
		if w.Note != "" {
			s += ": " + strconv.Quote(w.Note)
		}
	default:
		s += w.Action.String()
		if w.Note != "" {
			s += ": " + w.Note
		}
	}
	return s
}

// MarshalJSON writes the warning with its target and action as names, for
// logs and golden files.
func (w Warning) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Tool    string `json:"tool,omitempty"`
		Target  string `json:"target,omitempty"`
		Pointer string `json:"pointer"`
		Keyword string `json:"keyword,omitempty"`
		Action  string `json:"action"`
		Note    string `json:"note,omitempty"`
	}{w.Tool, nameOrEmpty(w.Target), w.Pointer, w.Keyword, w.Action.String(), w.Note})
}

func nameOrEmpty(t Target) string {
	if t == 0 {
		return ""
	}
	return t.String()
}

// Converted is a schema put in a target's form.
type Converted struct {
	// Target is the form Schema is in: the target asked for or, when the
	// schema could not be put in that form, its fallback (OpenAIStrict
	// falls back to OpenAI, Gemini to GeminiJSON). The warnings then
	// include one Fallback saying why.
	Target Target
	// Schema is the converted schema. It passes Check for Target.
	Schema json.RawMessage
	// Warnings lists every keyword dropped or rewritten, subschema by
	// subschema, depth first.
	Warnings []Warning
}

// ErrNotObjectSchema is returned by Convert for a schema whose root is not
// an object schema with "type": "object", which no provider accepts as a
// tool's parameters.
var ErrNotObjectSchema = errors.New(`dialect: the schema root must be a JSON object with "type": "object"`)

// Convert puts a tool's input schema (JSON Schema, draft 2020-12, as a
// Registry accepts it) in the form target accepts. It never loses a
// constraint silently: what the target cannot express is either rewritten
// into an equivalent form or moved into the description of the subschema
// that held it, and each change is reported as a Warning. The input is not
// modified.
//
// The error is non-nil only when schema is not JSON, nests deeper than 256
// levels, or its root is not an object schema (ErrNotObjectSchema).
func Convert(schema json.RawMessage, target Target) (Converted, error) {
	root, err := parse(schema)
	if err != nil {
		return Converted{}, fmt.Errorf("dialect: the schema is not valid JSON: %w", err)
	}
	if t, _ := root.str("type"); root.kind != kObject || t != "object" {
		return Converted{}, ErrNotObjectSchema
	}
	switch target {
	case OpenAI:
		return Converted{Target: OpenAI, Schema: root.marshal()}, nil
	case OpenAIStrict:
		return convertStrict(root), nil
	case Anthropic:
		return convertAnthropic(root), nil
	case Gemini:
		return convertGemini(root), nil
	case GeminiJSON:
		return convertGeminiJSON(root), nil
	}
	return Converted{}, fmt.Errorf("dialect: unknown target %v", target)
}

// warnings collects the warnings of one conversion.
type warnings struct {
	target Target
	list   []Warning
}

func (w *warnings) add(ptr, keyword string, a Action, note string) {
	w.list = append(w.list, Warning{Target: w.target, Pointer: ptr, Keyword: keyword, Action: a, Note: note})
}

// fallback converts root for t's fallback target, with one Fallback warning
// first, at ptr, saying why.
func fallback(root *node, t Target, ptr, why string) Converted {
	var c Converted
	switch t.fallback() {
	case OpenAI:
		c = Converted{Target: OpenAI, Schema: root.marshal()}
	case GeminiJSON:
		c = convertGeminiJSON(root)
	}
	w := Warning{Target: t, Pointer: ptr, Action: Fallback, Note: why}
	c.Warnings = append([]Warning{w}, c.Warnings...)
	return c
}
