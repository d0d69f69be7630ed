package tooleino_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooleino"
	"github.com/toolbelt-go/tool/tooleino/einotest"
)

type WeatherArgs struct {
	City string `json:"city" jsonschema:"description=City name,minLength=1"`
}

// A registry's tools given to an Eino ChatModelAgent, under Eino's Runner.
// The model here is scripted (einotest); any Eino chat model will do. A
// call whose arguments the schema refuses comes back to the model as a
// retry hint, and the run goes on.
func ExampleNew() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in WeatherArgs) (string, error) { return "21°C and sunny in " + in.City, nil }))
	tools, err := tooleino.New(reg, nil).Tools()
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	model := einotest.NewModel(
		einotest.Calls(einotest.Call{ID: "call-1", Name: "weather", Arguments: `{"town":"Lisbon"}`}),
		einotest.Calls(einotest.Call{ID: "call-2", Name: "weather", Arguments: `{"city":"Lisbon"}`}),
		einotest.Text("It is sunny in Lisbon."))
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "assistant", Description: "Answers questions about the weather.", Model: model,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
	})
	if err != nil {
		panic(err)
	}
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent})
	events := runner.Query(tooleino.WithSession(ctx, "conv-1"), "Weather in Lisbon?")
	for {
		event, ok := events.Next()
		if !ok {
			break
		}
		if event.Output != nil && event.Output.MessageOutput != nil {
			printMessage(event.Output.MessageOutput.Message)
		}
	}
	// Output:
	// assistant: weather {"town":"Lisbon"}
	// tool: Invalid arguments for weather (2 problems):
	// - /city: missing required key "city" (string)
	// - /town: unknown key "town"; allowed keys: city
	// Required keys: city.
	// Expected shape: {"city": "<string>"}
	// Fix the arguments and call weather again.
	// assistant: weather {"city":"Lisbon"}
	// tool: 21°C and sunny in Lisbon
	// assistant: It is sunny in Lisbon.
}

type DeleteArgs struct {
	Path string `json:"path" jsonschema:"minLength=1"`
}

// Approval through Eino's interrupt and resume: the run stops with the
// question (what Eino's UIs and checkpoints already show), and the host
// resumes it with the person's answer, from the checkpoint, here or in
// another process sharing the registry's keyring.
func ExampleApprover() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "delete", Description: "Deletes a file.", Safety: tool.SafetyDestructive},
		func(_ context.Context, in DeleteArgs) (string, error) { return "deleted " + in.Path, nil }))
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: tooleino.Approver()}))
	tools, _ := tooleino.New(reg, nil).Tools()

	ctx := tooleino.WithSession(context.Background(), "conv-1")
	model := einotest.NewModel(
		einotest.Calls(einotest.Call{ID: "call-1", Name: "delete", Arguments: `{"path":"build/"}`}),
		einotest.Text("Deleted."))
	agent, _ := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "assistant", Description: "Cleans up.", Model: model,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
	})
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: newStore()})

	print := func(events *adk.AsyncIterator[*adk.AgentEvent]) (asked []tooleino.Asked) {
		for {
			event, ok := events.Next()
			if !ok {
				return asked
			}
			if event.Output != nil && event.Output.MessageOutput != nil {
				printMessage(event.Output.MessageOutput.Message)
			}
			if event.Action != nil && event.Action.Interrupted != nil {
				asked = tooleino.Questions(event.Action.Interrupted.InterruptContexts)
				for _, a := range asked {
					fmt.Println("interrupted:", a.Question)
				}
			}
		}
	}
	asked := print(runner.Query(ctx, "Clean the build.", adk.WithCheckPointID("conv-1")))

	// Later, the person's answer: the resume data of the question's interrupt.
	events, err := runner.ResumeWithParams(ctx, "conv-1", &adk.ResumeParams{Targets: map[string]any{
		asked[0].ID: tool.Decision{Kind: tool.DecisionAllowOnce},
	}})
	if err != nil {
		panic(err)
	}
	print(events)
	// Output:
	// assistant: delete {"path":"build/"}
	// interrupted: approve delete {"path":"build/"} (destructive)?
	// tool: deleted build/
	// assistant: Deleted.
}

// printMessage prints a message of the run: the model's calls, a tool's
// result, the model's answer.
func printMessage(msg *schema.Message) {
	for _, c := range msg.ToolCalls {
		fmt.Printf("%s: %s %s\n", msg.Role, c.Function.Name, c.Function.Arguments)
	}
	if msg.Content != "" {
		fmt.Printf("%s: %s\n", msg.Role, msg.Content)
	}
}

// store is a checkpoint store in memory; a host keeps checkpoints where
// its replicas reach them (a database, Redis).
type store struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newStore() *store { return &store{m: map[string][]byte{}} }

func (s *store) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *store) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = b
	return nil
}
