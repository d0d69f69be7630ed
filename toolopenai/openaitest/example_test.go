package openaitest_test

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"

	"github.com/toolbelt-go/tool"
	toolopenai "github.com/toolbelt-go/tool/toolopenai"
	"github.com/toolbelt-go/tool/toolopenai/openaitest"
)

type WeatherArgs struct {
	City string `json:"city"`
}

func weather(_ context.Context, in WeatherArgs) (string, error) {
	return "Sunny in " + in.City + ".", nil
}

// An offline test of one full turn: the model calls a tool, the loop runs
// it, the model answers; the server checks every call was answered and
// records what the loop sent.
func Example() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather."}, weather))

	srv := openaitest.NewServer(
		openaitest.Calls(openaitest.Call{Name: "weather", Arguments: `{"city":"Lisbon"}`}),
		openaitest.Text("It is sunny in Lisbon."))
	defer srv.Close()
	client, ai, ctx := srv.Client(), toolopenai.New(reg, &toolopenai.Options{Strict: true}), context.Background()
	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT5_5, Tools: ai.ChatTools(),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Lisbon?")}}
	for {
		resp, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			panic(err)
		}
		params.Messages = append(params.Messages, ai.RunChat(ctx, struct{}{}, resp.Choices[0].Message)...)
		if len(resp.Choices[0].Message.ToolCalls) == 0 {
			fmt.Println(resp.Choices[0].Message.Content)
			break
		}
	}
	fmt.Println(srv.Requests()[1].Outputs[0].Text)
	// Output:
	// It is sunny in Lisbon.
	// Sunny in Lisbon.
}
