// Package toolopenai connects a tool.Registry to OpenAI's official Go SDK
// (github.com/openai/openai-go/v3), for Chat Completions and the Responses
// API. It returns and takes the SDK's own types, so what it gives goes
// straight into a request. It is built and tested against
// github.com/openai/openai-go/v3 v3.98.0.
//
// The package is named toolopenai, not openai, so that it reads well next
// to the SDK's package at the call site: toolopenai.New beside
// openai.NewClient.
//
// # One turn
//
//	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
//	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Messages: msgs, Tools: ai.ChatTools()}
//	for {
//		resp, err := client.Chat.Completions.New(ctx, params)
//		if err != nil {
//			return err
//		}
//		msg := resp.Choices[0].Message
//		params.Messages = append(params.Messages, ai.RunChat(ctx, state, msg)...)
//		if len(msg.ToolCalls) == 0 {
//			return nil // msg.Content is the answer
//		}
//	}
//
// RunChat runs every call of the turn through the registry with CallBatch
// (read-only calls in parallel, the others alone and in order) and returns
// the model's message followed by one tool message per call, in the order
// the API requires. Every call is answered: an unknown tool, arguments cut
// off by the token limit or of the wrong type each get the registry's
// retry hint.
//
// For the Responses API, ResponseTools and RunResponse do the same, with
// the turns chained by PreviousResponseID. With store: false there is
// nothing to chain to: set Options.Stateless, and RunResponse returns the
// response's own items before the outputs, for an input that carries the
// whole conversation.
//
// # Testing the loop offline
//
// Package openaitest runs a local stand-in for the API that answers with
// the tool calls a test scripts, refuses what the real API refuses, and
// records what the loop sent: a full turn tested in about ten lines.
//
// # The pieces
//
// ChatTools and ResponseTools export the registry's definitions;
// ChatRequests and ResponseRequests turn the model's calls into
// tool.Requests; ChatResults and ResponseResults turn results into the
// messages that answer them. Use them to add a step of your own between
// the calls and the registry (logging, a deferred approval).
//
// # Strict mode
//
// With Options.Strict, each tool is exported in OpenAI's strict mode when
// its schema allows (see package dialect): optional keys become required
// and nullable, and keywords strict mode lacks (minLength, default, …) move
// into the descriptions. The nulls a strict model then sends for the keys
// it does not use reach the registry with tool.Request.NullMeansAbsent, so
// they mean "absent" and defaults apply, while the tool's own schema still
// validates every call in full. A tool whose schema cannot be strict (a
// free-form map, a value of any type) is sent with strict false; Warnings
// lists it, with every keyword moved or rewritten, each with a Severity
// (filter on dialect.Lossy to see only what loses meaning). Strict or not,
// a root OpenAI refuses (an anyOf, an enum) is said in the description
// instead.
//
// # Results
//
// A Chat Completions tool message carries text: the result's text blocks,
// structured output as its JSON, and a note in brackets for an image. The
// Responses API carries images (PNG, JPEG, WebP, GIF) and PDFs too. The
// result's host view (Status, Err) is never sent.
package toolopenai
