package toolgemini_test

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
	toolgemini "github.com/toolbelt-go/tool/toolgemini"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name,minLength=1"`
}

// Gemini's calls come without IDs here: the answers go back in the calls'
// order, by name.
func ExampleAdapter_Run() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in WeatherArgs) (string, error) { return "21°C and sunny in " + in.City, nil }))
	ai := toolgemini.New(reg, nil)

	// The model's response, as client.Models.GenerateContent returns it.
	var resp genai.GenerateContentResponse
	_ = json.Unmarshal([]byte(`{"responseId":"r1","candidates":[{"content":{"role":"model","parts":[
		{"functionCall":{"name":"weather","args":{"city":"Lisbon"}}},
		{"functionCall":{"name":"wether","args":{"city":"Porto"}}}]}}]}`), &resp)

	turn := ai.Run(context.Background(), struct{}{}, &resp)
	fmt.Println(turn[0].Role, "then", turn[1].Role)
	for _, p := range turn[1].Parts {
		b, _ := json.Marshal(p.FunctionResponse)
		fmt.Println(string(b))
	}
	// Output:
	// model then user
	// {"name":"weather","response":{"output":"21°C and sunny in Lisbon"}}
	// {"name":"wether","response":{"error":"Error: there is no tool named \"wether\" (names are case-sensitive). Did you mean \"weather\"? Available tools: weather."}}
}
