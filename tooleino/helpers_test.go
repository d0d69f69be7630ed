package tooleino_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	einotool "github.com/cloudwego/eino/components/tool"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/keyring"
	"github.com/toolbelt-go/tool/tooleino"
	"github.com/toolbelt-go/tool/tooleino/einotest"
)

// host is a host as it builds its registry: a search tool, a shell tool
// that records what it ran (ls reads, rm deletes, anything else writes),
// the approver it chose, and what every call ended as (its observer).
type host struct {
	t   *testing.T
	reg *tool.Registry[struct{}]

	mu       sync.Mutex
	ran      []string
	searched []searchArgs
	finished []*tool.Result
}

type hostOptions struct {
	approver tool.Approver
	policy   tool.Policy
	timeout  time.Duration
	reg      *tool.RegistryOptions
	store    tool.ApprovalStore
}

func newHost(t *testing.T, o hostOptions) *host {
	t.Helper()
	h := &host{t: t}
	opts := tool.RegistryOptions{}
	if o.reg != nil {
		opts = *o.reg
	}
	opts.Observer = tool.ObserverFunc(func(e tool.Event) {
		if e.Kind == tool.EventFinished {
			h.mu.Lock()
			h.finished = append(h.finished, e.Result)
			h.mu.Unlock()
		}
	})
	h.reg = tool.NewRegistry[struct{}](&opts)
	h.reg.MustAdd(h.search(), h.shell())
	policy := o.policy
	if policy == nil {
		policy = tool.AskForWritesPolicy()
	}
	h.reg.Use(tool.Approval(&tool.ApprovalOptions[struct{}]{Policy: policy, Approver: o.approver, Timeout: o.timeout, Store: o.store}))
	return h
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"minLength=1,maxLength=200,description=Text to search for"`
	Path  string `json:"path,omitempty" jsonschema:"pattern=^[a-zA-Z0-9_./-]*$"`
	Lang  string `json:"lang,omitempty" jsonschema:"enum=go,enum=rust"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=500"`
}

func (h *host) search() tool.AnyTool {
	return tool.New(tool.Definition{Name: "search", Description: "Searches the code base.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in searchArgs) (string, error) {
			h.mu.Lock()
			h.searched = append(h.searched, in)
			h.mu.Unlock()
			return "found " + in.Query + " in main.go", nil
		})
}

type shellArgs struct {
	Command string `json:"command" jsonschema:"minLength=1"`
}

func (h *host) shell() tool.AnyTool {
	return tool.WithApprovalHooks(tool.New(tool.Definition{Name: "shell", Description: "Runs a command.", Safety: tool.SafetyMutating},
		func(_ context.Context, in shellArgs) (string, error) {
			h.mu.Lock()
			h.ran = append(h.ran, in.Command)
			h.mu.Unlock()
			return "ran " + in.Command, nil
		}), tool.ApprovalHooks[shellArgs]{Classify: classify})
}

func classify(in shellArgs) tool.Safety {
	switch first, _, _ := strings.Cut(in.Command, " "); first {
	case "ls", "cat":
		return tool.SafetyReadOnly
	case "rm":
		return tool.SafetyDestructive
	}
	return tool.SafetyMutating
}

// commands is what the shell tool ran, in order.
func (h *host) commands() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.ran...)
}

// searches is how many times the search tool ran.
func (h *host) searches() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.searched)
}

// results is every call's result, as the host's observer saw it.
func (h *host) results() []*tool.Result {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*tool.Result(nil), h.finished...)
}

// last is the last call's result.
func (h *host) last() *tool.Result {
	rs := h.results()
	if len(rs) == 0 {
		h.t.Fatal("no call finished")
	}
	return rs[len(rs)-1]
}

// tools is the registry's tools as Eino's.
func (h *host) tools(opts *tooleino.Options[struct{}]) []einotool.BaseTool {
	h.t.Helper()
	ts, err := tooleino.New(h.reg, opts).Tools()
	if err != nil {
		h.t.Fatal(err)
	}
	return ts
}

// run runs one turn of an agent over the host's tools, the model making
// the calls of the first turn, then answering "done".
func (h *host) run(cfg einotest.RunConfig, calls ...einotest.Call) *einotest.RunResult {
	h.t.Helper()
	if cfg.Tools == nil {
		cfg.Tools = h.tools(nil)
	}
	if cfg.Model == nil {
		cfg.Model = einotest.NewModel(einotest.Calls(calls...), einotest.Text("done"))
	}
	if cfg.Session == "" {
		cfg.Session = "conv-1"
	}
	res, err := einotest.Run(context.Background(), cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

func allow() tool.Decision { return tool.Decision{Kind: tool.DecisionAllowOnce} }

func answer(d tool.Decision) func(*tooleino.Question) tool.Decision {
	return func(*tooleino.Question) tool.Decision { return d }
}

func call(id, name, args string) einotest.Call {
	return einotest.Call{ID: id, Name: name, Arguments: args}
}

func shellCall(id, command string) einotest.Call {
	b, _ := json.Marshal(shellArgs{Command: command})
	return call(id, "shell", string(b))
}

func sharedKeys(t *testing.T) *keyring.Keyring {
	t.Helper()
	k, err := keyring.FromSecret([]byte("tooleino tests: a secret the replicas share"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}
