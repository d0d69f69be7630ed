// Package dialect puts a tool's JSON Schema in the form each model
// provider accepts, checks schemas against each provider's documented
// rules, and exports a registry's tools for one provider: what the
// provider adapters (toolopenai, toolanthropic, toolgemini) are built on,
// so that they keep only the mapping to their SDK's types. It depends on
// the standard library and the root package tool only, so it can serve
// any other client too.
//
// # Exporting
//
// An Exporter keeps a registry's tools converted for one target: each
// tool converted once, and again only when its definition changes; names
// a provider refuses renamed so that they clash with nothing; limits that
// span all the tools of a request kept to; every warning tagged with its
// tool. Request maps a call of the model back to the registry's terms:
//
//	x := dialect.NewExporter(reg, dialect.OpenAIStrict)
//	for _, t := range x.Tools() {
//		// t.Name, t.Description, t.Schema, t.Target.Strict()
//	}
//	req := x.Request(call.ID, call.Name, call.Arguments) // a tool.Request
//
// # Converting
//
// Convert takes an input schema as a Registry accepts it (JSON Schema,
// draft 2020-12, with an object at the root) and a Target:
//
//	c, err := dialect.Convert(def.InputSchema, dialect.OpenAIStrict)
//	// c.Schema is what to send; c.Target says whether it is strict
//	// (OpenAIStrict) or had to be sent non-strict (OpenAI);
//	// c.Warnings lists every change.
//
// A conversion never loses a constraint silently. A keyword the target does
// not support is rewritten into an equivalent form when there is one (an
// integer's exclusiveMinimum 0 becomes minimum 1 for Gemini, a const
// becomes a one-value enum, a reference is inlined); otherwise it is
// dropped and what it said is added to the description of the subschema
// that held it ("At least 1 character.", "Default: 20."), so the model
// still reads it. A property name the provider refuses is renamed
// (Converted.Renamed says how), and a shape a provider refuses at the root
// (an anyOf, an enum) is said in words. Every change is a Warning naming
// the keyword, the JSON pointer of its subschema, what was done, the text
// left behind, and a Severity: Info for a change of form, Notice for a
// constraint now in words, Lossy for a tool sent in a weaker form than
// asked (not strict), Severe for a tool not sent at all. The tool's own
// schema still validates every call in full, whatever the model was shown.
//
// # Strict mode and null
//
// OpenAI's strict mode requires every property, so an optional key becomes
// required and nullable, and a strict model sends null for every optional
// key it does not use. The registry reads such a null as "absent" (and
// then fills the default) when the request has tool.Request.NullMeansAbsent
// set, which Exporter.Request sets for every tool sent strict. Anthropic's
// strict tool use (AnthropicStrict) keeps optional keys optional. A schema
// that cannot be made strict (a free-form map, a value of any type, a
// tuple, an allOf that does not merge, one over a provider's limits) is
// sent non-strict, with a Fallback warning that says why.
//
// # Checking
//
// Check tests a schema against a target's rules, implemented apart from the
// conversions so that each checks the other: the output of Convert passes
// Check for the target it reports, and the tests and fuzz targets hold it
// to that. The comments of each target's file cite where each rule is
// documented.
package dialect
