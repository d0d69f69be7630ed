// Package dialect puts a tool's JSON Schema in the form each model
// provider accepts, and checks schemas against each provider's documented
// subset. It is what the provider adapters (toolopenai, toolanthropic,
// toolgemini) export tools with; it has no dependencies, so it can serve any
// other client too.
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
// still reads it. Every change is a Warning naming the keyword, the JSON
// pointer of its subschema, what was done and the text left behind. The
// tool's own schema still validates every call in full, whatever the model
// was shown.
//
// # Strict mode and null
//
// OpenAI's strict mode requires every property, so an optional key becomes
// required and nullable, and a strict model sends null for every optional
// key it does not use. The registry reads such a null as "absent" (and
// then fills the default) when the request has tool.Request.NullMeansAbsent
// set, which the OpenAI adapter sets for every tool it exported strict. A
// schema that cannot be made strict (a free-form map, a value of any type,
// a tuple, an allOf that does not merge, one over OpenAI's size limits) is
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
