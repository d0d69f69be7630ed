// Package toolanthropic connects a tool.Registry to Anthropic's official
// Go SDK (github.com/anthropics/anthropic-sdk-go/v2) and its Messages API.
// It returns and takes the SDK's own types, so what it gives goes straight
// into a request. It is built and tested against
// github.com/anthropics/anthropic-sdk-go/v2 v2.15.0; the SDK's v1 line
// (frozen at v1.84.0) is not supported, its types being other types.
//
// The package is named toolanthropic, not anthropic, so that it reads well
// next to the SDK's package at the call site: toolanthropic.New beside
// anthropic.NewClient.
//
// # One turn
//
//	ai := toolanthropic.New(reg, nil)
//	params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Messages: msgs, Tools: ai.Tools()}
//	for {
//		msg, err := client.Messages.New(ctx, params)
//		if err != nil {
//			return err
//		}
//		params.Messages = append(params.Messages, ai.Run(ctx, state, msg)...)
//		if msg.StopReason != anthropic.StopReasonToolUse {
//			return nil // msg.Content holds the answer
//		}
//	}
//
// Run runs every tool_use block of the turn through the registry with
// CallBatch (read-only calls in parallel, the others alone and in order)
// and returns the model's message followed by one user message with a
// tool_result block per call, in the calls' order, as the API requires.
// Every call is answered: an unknown tool or invalid arguments get the
// registry's retry hint, with is_error set.
//
// # The pieces
//
// Tools exports the registry's definitions; Requests turns tool_use blocks
// into tool.Requests; Results turns results into the user message that
// answers them. Use them to add a step of your own between the calls and
// the registry.
//
// # Testing the loop offline
//
// Package anthropictest runs a local stand-in for the Messages API that
// answers with the tool_use blocks a test scripts, refuses what the real
// API refuses, and records what the loop sent: a full turn tested in
// about ten lines.
//
// # Schemas and results
//
// Anthropic takes a tool's input schema as JSON Schema, so it is sent as
// the registry holds it, except what the API refuses: anyOf, oneOf and
// allOf at the top level (an allOf is merged in, the others are said in
// the description), and property names outside ^[a-zA-Z0-9_.-]{1,64}$,
// which are renamed and mapped back in the calls (see package dialect).
// Warnings lists what changed, each with a Severity.
//
// With Options.Strict, tools go with Anthropic's strict tool use, the
// API holding the model's calls to the schema, as far as each schema and
// the per-request limits on strict tools allow; the others go non-strict,
// and Warnings says why.
//
// A result's text blocks, images (JPEG, PNG, GIF, WebP) and embedded PDFs
// and text files go to the model as Anthropic's own content blocks; other
// blocks are named in brackets. The result's host view (Status, Err) is
// never sent.
package toolanthropic
