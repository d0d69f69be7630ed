package promises

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool/toolanthropic"
	"github.com/toolbelt-go/tool/toolanthropic/anthropictest"
	"github.com/toolbelt-go/tool/toolgemini"
	"github.com/toolbelt-go/tool/toolgemini/geminitest"
	"github.com/toolbelt-go/tool/toolopenai"
	"github.com/toolbelt-go/tool/toolopenai/openaitest"
)

// providerFrontends are the provider loops, each on its official SDK
// against Toolbelt's offline stand-in for the provider's API: the model
// makes the call, the adapter runs it, and the next request carries the
// result the model reads.
func providerFrontends() []frontend {
	return []frontend{
		{name: "OpenAI Chat Completions", callIDs: true, call: openaiChat},
		{name: "OpenAI Responses", callIDs: true, call: openaiResponses},
		{name: "Anthropic Messages", callIDs: true, call: anthropicMessages},
		{name: "Gemini generateContent", callIDs: true, call: geminiGenerate},
	}
}

func openaiChat(t *testing.T, w *world, id, name, args string) outcome {
	srv := openaitest.NewServer(openaitest.Calls(openaitest.Call{ID: id, Name: name, Arguments: args}), openaitest.Text("done"))
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	ai := toolopenai.New(w.a, nil).WithSession(w.session)
	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Tools: ai.ChatTools(),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")}}
	resp, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, ai.RunChat(ctx, struct{}{}, resp.Choices[0].Message)...)
	if _, err := client.Chat.Completions.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	outs := srv.Requests()[1].Outputs
	if len(outs) != 1 {
		return outcome{results: len(outs)}
	}
	return outcome{results: 1, text: outs[0].Text}
}

func openaiResponses(t *testing.T, w *world, id, name, args string) outcome {
	srv := openaitest.NewServer(openaitest.Calls(openaitest.Call{ID: id, Name: name, Arguments: args}), openaitest.Text("done"))
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	ai := toolopenai.New(w.a, nil).WithSession(w.session)
	params := responses.ResponseNewParams{Model: openai.ChatModelGPT5_5, Tools: ai.ResponseTools(),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("go")}}
	resp, err := client.Responses.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	params.PreviousResponseID = openai.String(resp.ID)
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: ai.RunResponse(ctx, struct{}{}, resp)}
	if _, err := client.Responses.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	outs := srv.Requests()[1].Outputs
	if len(outs) != 1 {
		return outcome{results: len(outs)}
	}
	return outcome{results: 1, text: outs[0].Text}
}

func anthropicMessages(t *testing.T, w *world, id, name, args string) outcome {
	srv := anthropictest.NewServer(anthropictest.Calls(anthropictest.Call{ID: id, Name: name, Input: args}), anthropictest.Text("done"))
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	ai := toolanthropic.New(w.a, nil).WithSession(w.session)
	params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Tools: ai.Tools(),
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("go"))}}
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, ai.Run(ctx, struct{}{}, msg)...)
	if _, err := client.Messages.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	outs := srv.Requests()[1].Outputs
	if len(outs) != 1 {
		return outcome{results: len(outs)}
	}
	return outcome{results: 1, isError: outs[0].IsError, text: outs[0].Text}
}

func geminiGenerate(t *testing.T, w *world, id, name, args string) outcome {
	srv := geminitest.NewServer(geminitest.Calls(geminitest.Call{ID: id, Name: name, Args: args}), geminitest.Text("done"))
	defer srv.Close()
	client, ctx := srv.Client(), context.Background()
	ai := toolgemini.New(w.a, nil).WithSession(w.session)
	contents := []*genai.Content{genai.NewContentFromText("go", genai.RoleUser)}
	config := &genai.GenerateContentConfig{Tools: ai.Tools()}
	resp, err := client.Models.GenerateContent(ctx, "gemini-3-flash", contents, config)
	if err != nil {
		t.Fatal(err)
	}
	contents = append(contents, ai.Run(ctx, struct{}{}, resp)...)
	if _, err := client.Models.GenerateContent(ctx, "gemini-3-flash", contents, config); err != nil {
		t.Fatal(err)
	}
	outs := srv.Requests()[1].Outputs
	if len(outs) != 1 {
		return outcome{results: len(outs)}
	}
	var r struct{ Output, Error string }
	_ = json.Unmarshal(outs[0].Response, &r)
	if r.Error != "" {
		return outcome{results: 1, isError: true, text: r.Error}
	}
	return outcome{results: 1, text: r.Output}
}
