package toolanthropic_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolbelt-go/tool"
	toolanthropic "github.com/toolbelt-go/tool/toolanthropic"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name,minLength=1"`
}

func ExampleAdapter_Run() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in WeatherArgs) (string, error) { return "21°C and sunny in " + in.City, nil }))
	ai := toolanthropic.New(reg, nil)

	// The model's message, as client.Messages.New returns it.
	var msg anthropic.Message
	_ = json.Unmarshal([]byte(`{"role":"assistant","stop_reason":"tool_use","content":[
		{"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Lisbon"}},
		{"type":"tool_use","id":"toolu_2","name":"wether","input":{"city":"Porto"}}]}`), &msg)

	turn := ai.Run(context.Background(), struct{}{}, &msg)
	fmt.Println(role(turn[0]), "then", role(turn[1]))
	for _, b := range turn[1].OfUser.Content {
		r := b.OfToolResult
		fmt.Printf("%s error=%v: %s\n", r.ToolUseID, r.IsError.Value, r.Content[0].OfText.Text)
	}
	// Output:
	// assistant then user
	// toolu_1 error=false: 21°C and sunny in Lisbon
	// toolu_2 error=true: Error: there is no tool named "wether" (names are case-sensitive). Did you mean "weather"? Available tools: weather.
}

func role(m anthropic.MessageParam) string {
	if m.OfAssistant != nil {
		return "assistant"
	}
	return "user"
}
