package toolopenai_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"

	"github.com/toolbelt-go/tool"
	toolopenai "github.com/toolbelt-go/tool/toolopenai"
)

type WeatherArgs struct {
	City  string `json:"city" jsonschema:"description=City name,minLength=1"`
	Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial,default=metric"`
}

func weatherRegistry() *tool.Registry[struct{}] {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in WeatherArgs) (string, error) {
			return "21°C and sunny in " + in.City + " (" + in.Units + ")", nil
		}))
	return reg
}

// A strict model sends null for the optional units; the registry reads it
// as absent and the default applies.
func ExampleAdapter_RunChat() {
	ai := toolopenai.New(weatherRegistry(), &toolopenai.Options{Strict: true})

	// The model's message, as client.Chat.Completions.New returns it.
	var msg openai.ChatCompletionMessage
	_ = json.Unmarshal([]byte(`{"role":"assistant","content":null,"tool_calls":[
		{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Lisbon\",\"units\":null}"}},
		{"id":"call_2","type":"function","function":{"name":"wether","arguments":"{}"}}]}`), &msg)

	for _, m := range ai.RunChat(context.Background(), struct{}{}, msg) {
		switch {
		case m.OfAssistant != nil:
			fmt.Println("assistant:", len(m.OfAssistant.ToolCalls), "tool calls")
		case m.OfTool != nil:
			fmt.Println(m.OfTool.ToolCallID+":", m.OfTool.Content.OfString.Value)
		}
	}
	// Output:
	// assistant: 2 tool calls
	// call_1: 21°C and sunny in Lisbon (metric)
	// call_2: Error: there is no tool named "wether" (names are case-sensitive). Did you mean "weather"? Available tools: weather.
}

// In strict mode the optional units is required and nullable, and the
// minLength strict mode lacks is in the description.
func ExampleAdapter_ChatTools() {
	ai := toolopenai.New(weatherRegistry(), &toolopenai.Options{Strict: true})
	b, _ := json.Marshal(ai.ChatTools())
	fmt.Println(string(b))
	for _, w := range ai.Warnings() {
		fmt.Println(w)
	}
	// Output:
	// [{"function":{"name":"weather","strict":true,"description":"Current weather for a city.","parameters":{"additionalProperties":false,"properties":{"city":{"type":"string","description":"City name. At least 1 character."},"units":{"type":["string","null"],"enum":["metric","imperial",null],"description":"Default: \"metric\"."}},"required":["city","units"],"type":"object"}},"type":"function"}]
	// notice: weather: openai-strict: /properties/city: minLength moved to the description: "At least 1 character."
	// notice: weather: openai-strict: /properties/units: default moved to the description: "Default: \"metric\"."
	// info: weather: openai-strict: (root): required rewritten: "optional keys made required and nullable (null means absent): units"
}
