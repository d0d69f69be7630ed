package tooladk_test

import (
	"context"
	"fmt"

	adktool "google.golang.org/adk/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooladk"
	"github.com/toolbelt-go/tool/tooladk/adktest"
)

type CityArgs struct {
	City string `json:"city" jsonschema:"description=City name,minLength=1"`
}

// A registry's tools in an ADK agent: the model's calls run through the
// registry's pipeline, and a bad call comes back as the retry hint.
func ExampleNew() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in CityArgs) (string, error) { return "21°C and sunny in " + in.City, nil }))
	tools := tooladk.New(reg, nil)

	// An llmagent with tools among its Toolsets, run by ADK's runner; the
	// model here is scripted (adktest), offline.
	r := adktest.NewRunner(adktest.Config{Toolsets: []adktool.Toolset{tools}})
	turn, err := r.Run(context.Background(),
		adktest.Call("c1", "weather", `{"city":"Lisbon"}`),
		adktest.Call("c2", "weather", `{"city":""}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(turn.Response("c1")["output"])
	fmt.Println(turn.Response("c2")["error"])
	// Output:
	// 21°C and sunny in Lisbon
	// Invalid arguments for weather:
	// - /city: must be at least 1 character long, got 0
	// Required keys: city.
	// Expected shape: {"city": "<string>"}
	// Fix the arguments and call weather again.
}

type PathArgs struct {
	Path string `json:"path" jsonschema:"minLength=1"`
}

// A destructive call asked about through ADK's tool confirmation: ADK's
// UIs show the adk_request_confirmation call, and the user's answer runs
// the call with the arguments the question showed.
func ExampleApprover() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "delete_file", Description: "Delete a file.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in PathArgs) (string, error) { return "deleted " + in.Path, nil }))
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooladk.Approver()}))

	r := adktest.NewRunner(adktest.Config{Toolsets: []adktool.Toolset{tooladk.New(reg, nil)}})
	ctx := context.Background()
	turn, err := r.Run(ctx, adktest.Call("c1", "delete_file", `{"path":"notes.txt"}`))
	if err != nil {
		panic(err)
	}
	question, _, err := adktest.Question(turn.Confirmation())
	if err != nil {
		panic(err)
	}
	fmt.Println(question.Hint)
	fmt.Println("--")
	fmt.Println(turn.Response("c1")["error"])

	// The user confirms: a FunctionResponse to the confirmation call.
	turn, err = r.Confirm(ctx, turn.Confirmation(), true, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(turn.Response("c1")["output"])
	// Output:
	// Allow delete_file to run? It is destructive (it may lose data).
	//
	// Arguments: {"path":"notes.txt"}
	// --
	// The call to delete_file needs the user's approval, which has been asked for. It has not run yet.
	// deleted notes.txt
}
