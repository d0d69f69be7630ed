// Package toolanthropic connects a tool.Registry to Anthropic's official
// Go SDK (github.com/anthropics/anthropic-sdk-go) and its Messages API. It
// returns and takes the SDK's own types, so what it gives goes straight
// into a request.
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
// # Schemas and results
//
// Anthropic takes a tool's input schema as JSON Schema, so it is sent as
// the registry holds it, except anyOf, oneOf and allOf at the top level,
// which the API refuses: an allOf is merged in, the others are said in the
// description (see package dialect), and Warnings lists what changed.
//
// A result's text blocks, images (JPEG, PNG, GIF, WebP) and embedded PDFs
// and text files go to the model as Anthropic's own content blocks; other
// blocks are named in brackets. The result's host view (Status, Err) is
// never sent.
package toolanthropic
