// Package toolgemini connects a tool.Registry to Google's Gen AI Go SDK
// (google.golang.org/genai), for the Gemini API. It returns and takes the
// SDK's own types, so what it gives goes straight into a request. It is
// built and tested against google.golang.org/genai v1.77.0.
//
// The package is named toolgemini, not genai or gemini, so that it reads
// well next to the SDK's package at the call site: toolgemini.New beside
// genai.NewClient.
//
// # One turn
//
//	ai := toolgemini.New(reg, nil)
//	config := &genai.GenerateContentConfig{Tools: ai.Tools()}
//	for {
//		resp, err := client.Models.GenerateContent(ctx, "gemini-3-flash", contents, config)
//		if err != nil {
//			return err
//		}
//		contents = append(contents, ai.Run(ctx, state, resp)...)
//		if len(resp.FunctionCalls()) == 0 {
//			return nil // resp.Text() is the answer
//		}
//	}
//
// Run runs every FunctionCall of the turn through the registry with
// CallBatch (read-only calls in parallel, the others alone and in order)
// and returns the model's content followed by a user content with one
// FunctionResponse per call, in the calls' order. Every call is answered:
// an unknown tool or invalid arguments get the registry's retry hint as
// {"error": …}.
//
// Gemini may send calls without IDs. Requests then makes IDs from the
// response's ID and the call's position (random ones when the response has
// no ID either, so that records never answer a new turn with an old one's
// results), and Results leaves them out again, so the answers match the
// calls by position and name.
//
// Gemini's API carries numbers as 64-bit floats: an integer of magnitude
// 2^53 or more, where the tool takes an integer, may arrive changed. Run
// answers such a call with an error that says so rather than run it with
// a number the model did not write (see Refused).
//
// # Testing the loop offline
//
// Package geminitest runs a local stand-in for generateContent that
// answers with the function calls a test scripts, refuses what the real
// API refuses, and records what the loop sent: a full turn tested in
// about ten lines.
//
// # Schemas
//
// A tool's parameters are sent as the Schema object (a subset of OpenAPI
// 3.0; see package dialect): types in Gemini's names, null as nullable,
// references inlined, property order in propertyOrdering, and keywords the
// Schema object lacks moved into the descriptions. A schema it cannot
// express (a free-form map, a value of any type, a recursive type) is
// sent as parametersJsonSchema instead; Options.JSONSchema sends every
// tool that way. A function or parameter name Gemini refuses is renamed,
// and the calls are mapped back; a tool no form can express (a recursion
// through no property) is left out. Warnings lists every change, each
// with a Severity.
package toolgemini
