package anthropictest_test

import (
	"context"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolbelt-go/tool"
	toolanthropic "github.com/toolbelt-go/tool/toolanthropic"
	"github.com/toolbelt-go/tool/toolanthropic/anthropictest"
)

type WeatherArgs struct {
	City string `json:"city"`
}

func weather(_ context.Context, in WeatherArgs) (string, error) {
	return "Sunny in " + in.City + ".", nil
}

// An offline test of one full turn: the model calls a tool, the loop runs
// it, the model answers; the server checks every tool_use was answered and
// records what the loop sent.
func Example() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather."}, weather))

	srv := anthropictest.NewServer(
		anthropictest.Calls(anthropictest.Call{Name: "weather", Input: `{"city":"Lisbon"}`}),
		anthropictest.Text("It is sunny in Lisbon."))
	defer srv.Close()
	client, ai, ctx := srv.Client(), toolanthropic.New(reg, nil), context.Background()
	params := anthropic.MessageNewParams{Model: anthropic.ModelClaudeSonnet5_5, MaxTokens: 1024, Tools: ai.Tools(),
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Lisbon?"))}}
	for {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			panic(err)
		}
		params.Messages = append(params.Messages, ai.Run(ctx, struct{}{}, msg)...)
		if msg.StopReason != anthropic.StopReasonToolUse {
			fmt.Println(msg.Content[0].Text)
			break
		}
	}
	fmt.Println(srv.Requests()[1].Outputs[0].Text)
	// Output:
	// It is sunny in Lisbon.
	// Sunny in Lisbon.
}
