package dialect

// OpenAI's function calling with strict off takes a function's parameters
// as JSON Schema and sends it to the model as it is, with one rule of its
// own at the root: "schema must have type 'object' and not have
// 'oneOf'/'anyOf'/'allOf'/'enum'/'const'/'not' at the top level" (the
// API's 400 invalid_function_parameters; Chat Completions and the
// Responses API alike). Below the root every keyword is accepted.

// openAIRoot are the keywords OpenAI refuses at the top level.
var openAIRoot = []string{"allOf", "anyOf", "oneOf", "enum", "const", "not"}

func convertOpenAI(root *node) Converted {
	w := warnings{target: OpenAI}
	out := fixRoot(root.clone(), &w, openAIRoot)
	return Converted{Target: OpenAI, Schema: out.marshal(), Warnings: w.list}
}

// fixRoot takes the keywords a provider refuses at the top level out of
// out: an allOf whose branches merge is merged in, anything else is said
// in the root's description.
func fixRoot(out *node, w *warnings, refused []string) *node {
	if out.has("allOf") {
		if m, ok := mergeAllOf(out); ok {
			w.add("", "allOf", Rewritten, "merged into the root")
			out = m
		}
	}
	var notes []string
	for _, k := range refused {
		if !out.has(k) {
			continue
		}
		n := rootNote(out, k)
		if n == "" {
			w.add("", k, Dropped, "")
		} else {
			notes = w.moved(notes, "", k, n)
		}
		out.del(k)
	}
	describe(out, notes...)
	return out
}

// rootNote says in a sentence what a keyword refused at the root asked.
func rootNote(s *node, k string) string {
	switch k {
	case "anyOf", "oneOf":
		return rootAlternatives(s, k)
	}
	return note(s, k)
}
