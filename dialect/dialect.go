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
	// Schema as it is, with no anyOf, oneOf or allOf at the top level and
	// property names of at most 64 letters, digits, '_', '.' and '-'.
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
	// AnthropicStrict is a tool's input_schema with strict tool use on
	// (Anthropic's structured outputs): every object closed with
	// additionalProperties false, no recursion, and keywords outside the
	// documented subset moved to descriptions. Optional keys stay
	// optional. A schema that cannot be made strict falls back to
	// Anthropic.
	AnthropicStrict
)

var targetNames = [...]string{OpenAI: "openai", OpenAIStrict: "openai-strict", Anthropic: "anthropic", Gemini: "gemini",
	GeminiJSON: "gemini-json", AnthropicStrict: "anthropic-strict"}

// String returns the target's name: "openai", "openai-strict", "anthropic",
// "anthropic-strict", "gemini" or "gemini-json".
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
	case AnthropicStrict:
		return Anthropic
	}
	return 0
}

// Strict reports whether t is a strict form: one the provider holds the
// model's calls to (OpenAIStrict, AnthropicStrict).
func (t Target) Strict() bool { return t == OpenAIStrict || t == AnthropicStrict }

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
	// Renamed: a property name (Warning.Keyword "properties") or the tool's
	// name (Keyword "name") is one the provider refuses, so it is sent
	// under another name (Warning.Note) and the model's calls are mapped
	// back to the tool's own names (Exporter.Request).
	Renamed
	// LeftOut: the tool is not sent at all, because the provider would
	// refuse it and with it the whole request; Warning.Note says why.
	LeftOut
)

var actionNames = [...]string{Moved: "moved to the description", Rewritten: "rewritten", Dropped: "dropped", Fallback: "fallback",
	Renamed: "renamed", LeftOut: "left out"}

// String describes the action in a few words.
func (a Action) String() string {
	if int(a) < len(actionNames) && actionNames[a] != "" {
		return actionNames[a]
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// Severity says how much a change matters to what the model can do with a
// tool, so that the few warnings that lose meaning stand out among the
// many that only move a constraint into words. Filter with
// w.Severity >= dialect.Lossy to see only those.
type Severity uint8

const (
	// Info: the form changed and nothing else (an equivalent rewrite, an
	// annotation dropped, a reference inlined).
	Info Severity = iota + 1
	// Notice: the model is told a constraint in words instead of by the
	// schema (minLength moved to the description), is offered a key under
	// another name, or is offered less than the tool accepts (an open
	// object closed). Every call the model makes under the schema it is
	// sent still means what the tool's schema says, and the tool's schema
	// still checks it.
	Notice
	// Lossy: the tool is sent in a weaker form than the one asked for (not
	// strict, or as parametersJsonSchema), so the provider no longer holds
	// the model to the schema, or part of the schema reaches the model in
	// no form at all.
	Lossy
	// Severe: the tool is not sent at all.
	Severe
)

var severityNames = [...]string{Info: "info", Notice: "notice", Lossy: "lossy", Severe: "severe"}

// String returns "info", "notice", "lossy" or "severe".
func (s Severity) String() string {
	if int(s) < len(severityNames) && severityNames[s] != "" {
		return severityNames[s]
	}
	return "Severity(" + strconv.Itoa(int(s)) + ")"
}

// defaultSeverity is what an action usually costs: a rewrite or a drop
// nothing, words instead of a keyword a notice, a fallback a loss.
func (a Action) defaultSeverity() Severity {
	switch a {
	case Moved, Renamed:
		return Notice
	case Fallback:
		return Lossy
	case LeftOut:
		return Severe
	}
	return Info
}

// A Warning says what a conversion changed in a schema: which keyword, at
// which subschema, what it did, and what text it left in the description.
type Warning struct {
	// Tool is the tool whose schema this is; an Exporter sets it, Convert
	// leaves it empty.
	Tool string
	// Target is the target the schema was converted for.
	Target Target
	// Severity says how much the change matters (see Severity).
	Severity Severity
	// Pointer is the JSON pointer (RFC 6901) to the subschema in the input
	// schema, "" for the root.
	Pointer string
	// Keyword is the keyword dropped or rewritten; "" when the warning is
	// about the whole subschema (a Fallback).
	Keyword string
	// Action is what happened to it.
	Action Action
	// Note is, for Moved, the sentence added to the description; for
	// Rewritten and Renamed, what the keyword or name became; for a
	// Fallback or LeftOut, why.
	Note string
}

// String renders the warning on one line, severity first:
//
//	notice: search: openai-strict: /properties/query: minLength moved to the description: "At least 1 character."
func (w Warning) String() string {
	s := ""
	if w.Severity != 0 {
		s = w.Severity.String() + ": "
	}
	if w.Tool != "" {
		s += w.Tool + ": "
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
	case w.Action == LeftOut:
		s += "left out: " + w.Note
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

// MarshalJSON writes the warning with its target, severity and action as
// names, for logs and golden files.
func (w Warning) MarshalJSON() ([]byte, error) {
	sev := ""
	if w.Severity != 0 {
		sev = w.Severity.String()
	}
	return json.Marshal(struct {
		Tool     string `json:"tool,omitempty"`
		Target   string `json:"target,omitempty"`
		Severity string `json:"severity,omitempty"`
		Pointer  string `json:"pointer"`
		Keyword  string `json:"keyword,omitempty"`
		Action   string `json:"action"`
		Note     string `json:"note,omitempty"`
	}{w.Tool, nameOrEmpty(w.Target), sev, w.Pointer, w.Keyword, w.Action.String(), w.Note})
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
	// falls back to OpenAI, AnthropicStrict to Anthropic, Gemini to
	// GeminiJSON). The warnings then include one Fallback saying why.
	Target Target
	// Schema is the converted schema. It passes Check for Target.
	Schema json.RawMessage
	// Warnings lists every keyword dropped or rewritten, subschema by
	// subschema, depth first.
	Warnings []Warning
	// Renamed maps each property name the target refuses, as it is sent,
	// to its name in the input schema. It is nil when no name changed. A
	// call made under Schema names those keys as they are sent; put them
	// back before the tool's own schema reads the call (the Exporter does).
	Renamed map[string]string

	refused string // why no form of the target can express the schema
}

// ErrCannotExpress is wrapped by Convert's error, with the reason, for a
// schema that no form of the target can express: the tool cannot be sent
// to that provider (an Exporter leaves it out and says why).
var ErrCannotExpress = errors.New("dialect: the target cannot express the schema")

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
// levels, its root is not an object schema (ErrNotObjectSchema), or no
// form of the target can express it (ErrCannotExpress: Gemini, a
// reference that leads back to itself through no property).
func Convert(schema json.RawMessage, target Target) (Converted, error) {
	root, err := parse(schema)
	if err != nil {
		return Converted{}, fmt.Errorf("dialect: the schema is not valid JSON: %w", err)
	}
	if t, _ := root.str("type"); root.kind != kObject || t != "object" {
		return Converted{}, ErrNotObjectSchema
	}
	var c Converted
	switch target {
	case OpenAI:
		c = convertOpenAI(root)
	case OpenAIStrict:
		c = convertStrict(root)
	case Anthropic:
		c = convertAnthropic(root)
	case AnthropicStrict:
		c = convertAnthropicStrict(root)
	case Gemini:
		c = convertGemini(root)
	case GeminiJSON:
		c = convertGeminiJSON(root)
	default:
		return Converted{}, fmt.Errorf("dialect: unknown target %v", target)
	}
	if c.refused != "" {
		return Converted{}, fmt.Errorf("%w as %v: %s", ErrCannotExpress, c.Target, c.refused)
	}
	return c, nil
}

// warnings collects the warnings of one conversion.
type warnings struct {
	target Target
	list   []Warning
}

// add records a change with the severity its action usually has. A
// keyword that moves to a description is recorded with moved instead.
func (w *warnings) add(ptr, keyword string, a Action, note string) {
	w.addSeverity(a.defaultSeverity(), ptr, keyword, a, note)
}

// moved records that keyword moved to the description in sentence, and
// returns sentences with it: the caller adds those to the description, so
// the warning's Note is, by construction, the sentence the model reads.
func (w *warnings) moved(sentences []string, ptr, keyword, sentence string) []string {
	w.addSeverity(Moved.defaultSeverity(), ptr, keyword, Moved, sentence)
	return append(sentences, sentence)
}

func (w *warnings) addSeverity(s Severity, ptr, keyword string, a Action, note string) {
	w.list = append(w.list, Warning{Target: w.target, Severity: s, Pointer: ptr, Keyword: keyword, Action: a, Note: note})
}

// fallback converts root for t's fallback target, with one Fallback warning
// first, at ptr, saying why.
func fallback(root *node, t Target, ptr, why string) Converted {
	var c Converted
	switch t.fallback() {
	case OpenAI:
		c = convertOpenAI(root)
	case Anthropic:
		c = convertAnthropic(root)
	case GeminiJSON:
		c = convertGeminiJSON(root)
	}
	w := Warning{Target: t, Severity: Lossy, Pointer: ptr, Action: Fallback, Note: why}
	c.Warnings = append([]Warning{w}, c.Warnings...)
	return c
}
