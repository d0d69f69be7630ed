package geminitest_test

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	toolgemini "github.com/toolbelt-go/tool/toolgemini"
	"github.com/toolbelt-go/tool/toolgemini/geminitest"
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

	srv := geminitest.NewServer(
		geminitest.Calls(geminitest.Call{Name: "weather", Args: `{"city":"Lisbon"}`}),
		geminitest.Text("It is sunny in Lisbon."))
	defer srv.Close()
	client, ai, ctx := srv.Client(), toolgemini.New(reg, nil), context.Background()
	config, contents := &genai.GenerateContentConfig{Tools: ai.Tools()}, genai.Text("Weather in Lisbon?")
	for {
		resp, err := client.Models.GenerateContent(ctx, "gemini-3-flash", contents, config)
		if err != nil {
			panic(err)
		}
		contents = append(contents, ai.Run(ctx, struct{}{}, resp)...)
		if len(resp.FunctionCalls()) == 0 {
			fmt.Println(resp.Text())
			break
		}
	}
	fmt.Println(string(srv.Requests()[1].Outputs[0].Response))
	// Output:
	// It is sunny in Lisbon.
	// {"output":"Sunny in Lisbon."}
}
