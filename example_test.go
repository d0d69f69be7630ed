package tool_test

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/toolbelt-go/tool"
)

type WeatherArgs struct {
	City  string `json:"city" jsonschema:"description=City name,minLength=1"`
	Units string `json:"units,omitempty" jsonschema:"enum=metric,enum=imperial,default=metric"`
}

type Weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

func ExampleNew() {
	weather := tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city."},
		func(ctx context.Context, in WeatherArgs) (Weather, error) {
			return Weather{City: in.City, TempC: 21.5}, nil
		})
	fmt.Println(string(weather.Definition().InputSchema))
	res, _ := weather.Run(context.Background(), []byte(`{"city":"Lisbon"}`))
	fmt.Println(res.Text())
	// Output:
	// {"properties":{"city":{"type":"string","minLength":1,"description":"City name"},"units":{"type":"string","enum":["metric","imperial"],"default":"metric"}},"additionalProperties":false,"type":"object","required":["city"]}
	// {"city":"Lisbon","temp_c":21.5}
}

func ExampleNewRegistry() {
	type Session struct{ User string }
	whoami := tool.NewFor(tool.Definition{Name: "whoami", Description: "The current user's name."},
		func(ctx context.Context, call *tool.Call[*Session], _ struct{}) (string, error) {
			return call.State.User, nil
		})
	reg := tool.NewRegistry[*Session](nil)
	if err := reg.Add(whoami); err != nil {
		panic(err)
	}
	for _, d := range reg.Definitions() {
		fmt.Println(d.Name, string(d.InputSchema))
	}
	res := reg.Call(context.Background(), &Session{User: "ana"}, tool.Request{ID: "1", Name: "whoami"})
	fmt.Println(res.Text())
	// Output:
	// whoami {"type":"object","properties":{},"additionalProperties":false}
	// ana
}

func ExampleRegistry_Call() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "weather", Description: "Current weather for a city."},
		func(ctx context.Context, in WeatherArgs) (Weather, error) {
			return Weather{City: in.City, TempC: 21.5}, nil
		}))
	ctx := context.Background()
	for _, args := range []string{`{"city":"Lisbon"}`, `{"city":"Lisbon","units":"kelvin"}`, `{"city":"Lis`} {
		res := reg.Call(ctx, struct{}{}, tool.Request{ID: "call_1", Name: "weather", Args: []byte(args)})
		fmt.Printf("[%s] %s\n", res.Status, res.Text())
	}
	res := reg.Call(ctx, struct{}{}, tool.Request{ID: "call_2", Name: "Weather"})
	fmt.Printf("[%s] %s\n", res.Status, res.Text())
	// Output:
	// [ok] {"city":"Lisbon","temp_c":21.5}
	// [invalid] Invalid arguments for weather:
	// - /units: must be one of "metric", "imperial", got string "kelvin"
	// Required keys: city.
	// Expected shape: {"city": "<string>", "units": "metric"}
	// Fix the arguments and call weather again.
	// [invalid] Your arguments for weather were cut off: the JSON ends after 12 bytes inside /city, while the rest of a string was expected. Send the complete arguments again; if a value is very long, split the work into smaller calls.
	// Required keys: city.
	// Expected shape: {"city": "<string>"}
	// Fix the arguments and call weather again.
	// [unknown_tool] Error: there is no tool named "Weather" (names are case-sensitive). Did you mean "weather"? Available tools: weather.
}

func ExampleChain() {
	logging := func(name string) tool.Middleware[struct{}] {
		return func(next tool.Handler[struct{}]) tool.Handler[struct{}] {
			return func(ctx context.Context, call *tool.Call[struct{}]) *tool.Result {
				fmt.Println("enter", name)
				defer fmt.Println("leave", name)
				return next(ctx, call)
			}
		}
	}
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.New(tool.Definition{Name: "noop", Description: "Does nothing."},
		func(context.Context, struct{}) (string, error) { fmt.Println("run"); return "done", nil }))
	reg.Use(tool.Chain(logging("outer"), logging("inner")))
	reg.Call(context.Background(), struct{}{}, tool.Request{Name: "noop"})
	// Output:
	// enter outer
	// enter inner
	// run
	// leave inner
	// leave outer
}

// A policy decides from the call's class, tier and requirement.
func ExampleAskForWritesPolicy() {
	p := tool.AskForWritesPolicy()
	for _, in := range []tool.PolicyInput{
		{Tool: "read_file", Safety: tool.SafetyReadOnly},
		{Tool: "edit_file", Safety: tool.SafetyMutating},
		{Tool: "status", Safety: tool.SafetyMutating, Tier: tool.TierObserve},
		{Tool: "read_file", Safety: tool.SafetyReadOnly, Requirement: tool.Requirement{Mode: tool.RequireScoped, Scope: "/etc/"}},
	} {
		fmt.Println(in.Tool, in.Safety, "->", p.Decide(in), "| non-interactive ->", tool.NonInteractive(p).Decide(in))
	}
	// Output:
	// read_file read-only -> allow | non-interactive -> allow
	// edit_file mutating -> ask | non-interactive -> deny
	// status mutating -> allow | non-interactive -> allow
	// read_file read-only -> ask | non-interactive -> deny
}

// A coding agent's usual policy: reads run, writes are asked about, and
// deleting is refused without asking. The class is per call, so one shell
// tool's commands land on all three.
func ExampleDenyDestructivePolicy() {
	type ShellArgs struct {
		Command string `json:"command"`
	}
	shell := tool.WithApprovalHooks(tool.New(tool.Definition{Name: "shell", Description: "Runs a command."},
		func(_ context.Context, in ShellArgs) (string, error) { return "ran " + in.Command, nil }),
		tool.ApprovalHooks[ShellArgs]{Classify: func(in ShellArgs) tool.Safety {
			switch strings.Fields(in.Command)[0] {
			case "ls", "cat":
				return tool.SafetyReadOnly
			case "rm":
				return tool.SafetyDestructive
			}
			return tool.SafetyMutating
		}})
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(shell)
	reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{
		Policy: tool.DenyDestructivePolicy(),
		Approver: tool.ApproverFunc(func(_ context.Context, ar tool.ApprovalRequest) (tool.Decision, error) {
			fmt.Println("  asked about", ar.ArgsText)
			return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
		}),
	}))
	for _, command := range []string{"ls", "go test ./...", "rm -rf build"} {
		fmt.Println(command)
		res := reg.Call(context.Background(), struct{}{}, tool.Request{Name: "shell", Args: []byte(`{"command":"` + command + `"}`)})
		fmt.Println("  ->", res.Status, res.Text())
	}
	// Output:
	// ls
	//   -> ok ran ls
	// go test ./...
	//   asked about {"command":"go test ./..."}
	//   -> ok ran go test ./...
	// rm -rf build
	//   -> denied The call to shell was not allowed to run: the session's policy does not allow destructive calls to this tool. It did not run. Do not repeat it unchanged; change the approach or ask the user.
}

// An approver sees the validated arguments and a preview, and decides.
func ExampleApproval() {
	type args struct {
		Command string `json:"command"`
	}
	shell := tool.New(tool.Definition{Name: "shell", Description: "Runs a command.", Safety: tool.SafetyMutating},
		func(_ context.Context, in args) (string, error) { return "ran " + in.Command, nil })
	approver := tool.ApproverFunc(func(_ context.Context, req tool.ApprovalRequest) (tool.Decision, error) {
		fmt.Println("asked:", req.Tool, string(req.Args))
		if strings.Contains(string(req.Args), "rm") {
			return tool.Decision{Kind: tool.DecisionDeny, Reason: "do not delete files"}, nil
		}
		return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
	})
	r := tool.NewRegistry[struct{}](nil)
	r.MustAdd(shell)
	r.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Approver: approver}))
	for _, cmd := range []string{"make test", "rm -rf /"} {
		res := r.Call(context.Background(), struct{}{}, tool.Request{Name: "shell", Args: []byte(`{"command":"` + cmd + `"}`)})
		fmt.Println(res.Status)
	}
	// Output:
	// asked: shell {"command":"make test"}
	// ok
	// asked: shell {"command":"rm -rf /"}
	// denied
}

// A tool with host state gets typed approval hooks too: here the session's
// working directory decides what a path means, for the question and for
// what the person is shown.
func ExampleWithApprovalHooksFor() {
	type Session struct{ Dir string }
	type RemoveArgs struct {
		Path string `json:"path"`
	}
	resolve := func(dir, p string) string {
		if path.IsAbs(p) {
			return p
		}
		return path.Join(dir, p)
	}
	remove := tool.NewFor(tool.Definition{Name: "remove", Description: "Removes a file.", Safety: tool.SafetyDestructive},
		func(_ context.Context, call *tool.Call[*Session], in RemoveArgs) (string, error) {
			return "removed " + resolve(call.State.Dir, in.Path), nil
		})
	remove = tool.WithApprovalHooksFor(remove, tool.ApprovalHooksFor[*Session, RemoveArgs]{
		Require: func(call *tool.Call[*Session], in RemoveArgs) tool.Requirement {
			if path.IsAbs(in.Path) {
				return tool.Requirement{Mode: tool.RequireAskAlways, Reason: "outside " + call.State.Dir}
			}
			return tool.Requirement{Mode: tool.RequireScoped, Reason: "inside the working directory", Scope: call.State.Dir}
		},
		Describe: func(_ context.Context, call *tool.Call[*Session], in RemoveArgs) (tool.Preview, error) {
			return tool.Preview{Title: "rm " + resolve(call.State.Dir, in.Path)}, nil
		},
	})
	reg := tool.NewRegistry[*Session](nil)
	reg.MustAdd(remove)
	reg.Use(tool.Approval(&tool.ApprovalOptions[*Session]{
		Approver: tool.ApproverFunc(func(_ context.Context, ar tool.ApprovalRequest) (tool.Decision, error) {
			fmt.Printf("asked: %s (%s, %s)\n", ar.Preview.Title, ar.Requirement.Mode, ar.Requirement.Reason)
			return tool.Decision{Kind: tool.DecisionAllowOnce}, nil
		}),
	}))
	s := &Session{Dir: "/home/ann/notes"}
	for _, p := range []string{"draft.md", "/etc/hosts"} {
		res := reg.Call(context.Background(), s, tool.Request{Name: "remove", Args: []byte(`{"path":"` + p + `"}`)})
		fmt.Println(res.Text())
	}
	// Output:
	// asked: rm /home/ann/notes/draft.md (scoped, inside the working directory)
	// removed /home/ann/notes/draft.md
	// asked: rm /etc/hosts (ask_always, outside /home/ann/notes)
	// removed /etc/hosts
}
