package main

import (
	"context"
	"errors"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	toolanthropic "github.com/toolbelt-go/tool/toolanthropic"
	toolgemini "github.com/toolbelt-go/tool/toolgemini"
	toolopenai "github.com/toolbelt-go/tool/toolopenai"
)

// The three functions below are the whole agent loop a program writes, one
// per provider: the tools out, the calls in, the results back, until the
// model answers.

const maxTurns = 10

var errTooManyTurns = errors.New("the model was still calling tools after 10 turns")

func askOpenAI(ctx context.Context, client openai.Client, reg *tool.Registry[struct{}], question string) (string, error) {
	ai := toolopenai.New(reg, &toolopenai.Options{Strict: true})
	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT5_5,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)},
		Tools:    ai.ChatTools(),
	}
	for range maxTurns {
		resp, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			return "", err
		}
		msg := resp.Choices[0].Message
		params.Messages = append(params.Messages, ai.RunChat(ctx, struct{}{}, msg)...)
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
	}
	return "", errTooManyTurns
}

func askAnthropic(ctx context.Context, client anthropic.Client, reg *tool.Registry[struct{}], question string) (string, error) {
	ai := toolanthropic.New(reg, nil)
	params := anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet5_5,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(question))},
		Tools:     ai.Tools(),
	}
	for range maxTurns {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			return "", err
		}
		params.Messages = append(params.Messages, ai.Run(ctx, struct{}{}, msg)...)
		if msg.StopReason != anthropic.StopReasonToolUse {
			answer := ""
			for _, block := range msg.Content {
				answer += block.Text
			}
			return answer, nil
		}
	}
	return "", errTooManyTurns
}

func askGemini(ctx context.Context, client *genai.Client, reg *tool.Registry[struct{}], question string) (string, error) {
	ai := toolgemini.New(reg, nil)
	config := &genai.GenerateContentConfig{Tools: ai.Tools()}
	contents := genai.Text(question)
	for range maxTurns {
		resp, err := client.Models.GenerateContent(ctx, "gemini-3-flash", contents, config)
		if err != nil {
			return "", err
		}
		contents = append(contents, ai.Run(ctx, struct{}{}, resp)...)
		if len(resp.FunctionCalls()) == 0 {
			return resp.Text(), nil
		}
	}
	return "", errTooManyTurns
}
