package einotest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/adk"
	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooleino"
)

// RunConfig is one turn of an agent, for [Run].
type RunConfig struct {
	// Tools are the agent's tools ([tooleino.Adapter.Tools]).
	Tools []einotool.BaseTool
	// ResumeTools are the tools of the agent that resumes the run after
	// an approval question: another replica's, whose registry shares the
	// keyring and the stores of the first. Nil means Tools.
	ResumeTools []einotool.BaseTool
	// UnknownTool, if set, answers calls of tools the agent was not given
	// ([tooleino.Adapter.UnknownTool]).
	UnknownTool func(ctx context.Context, name, input string) (string, error)
	// Model is the scripted model. Nil means one that makes Call and then
	// answers "done".
	Model *Model
	// Call is the call the default model makes.
	Call Call
	// Session is the run's session ([tooleino.WithSession]).
	Session string
	// Answer answers each approval question the run is interrupted with
	// (the person, behind the host's UI); the run is then resumed with the
	// decision, from its checkpoint. Nil leaves the run interrupted: Run
	// returns the questions in RunResult.Waiting.
	Answer func(*tooleino.Question) tool.Decision
	// Streaming runs the agent in streaming mode.
	Streaming bool
	// Store keeps the run's checkpoints. Nil means one in memory, new
	// for the run.
	Store compose.CheckPointStore
	// CheckPointID names the run's checkpoint. "" means a new one.
	CheckPointID string
}

// RunResult is what came of a turn.
type RunResult struct {
	// Outputs are the tool results the model was given, in order.
	Outputs []Output
	// Questions are the approval questions the run was interrupted with,
	// in order, each with its interrupt's ID.
	Questions []tooleino.Asked
	// Waiting are the questions the run still waits on (RunConfig.Answer
	// was nil).
	Waiting []tooleino.Asked
	// Final is the text the agent ended its turn with.
	Final string
	// Events are the events of the run and of its resumes, in order.
	Events []*adk.AgentEvent
	// Store and CheckPointID are where the run's checkpoint is, to resume
	// it again.
	Store        compose.CheckPointStore
	CheckPointID string
}

// maxResumes bounds the resumes of one turn: an edit asked about again
// is one more.
const maxResumes = 8

var checkpoints atomic.Int64

// Run runs one turn of an agent offline: an Eino ChatModelAgent under
// Eino's Runner, with a scripted model, over the tools given. Each time
// the run is interrupted with approval questions ([tooleino.Approver]),
// Answer answers them and the run is resumed with the decisions, as a
// host's UI would (on an agent over ResumeTools, when set), until the
// agent ends its turn. An error is the run's own (Eino's), or a turn that
// did not end.
func Run(ctx context.Context, cfg RunConfig) (*RunResult, error) {
	ctx, r, err := start(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	var res RunResult
	asked, err := res.consume(r.Query(ctx, "go", adk.WithCheckPointID(cfg.CheckPointID)))
	return res.answer(ctx, cfg, asked, err)
}

// Resume resumes a run that waits on approval questions (one that [Run]
// returned with RunResult.Waiting, or whose checkpoint cfg.Store keeps
// under cfg.CheckPointID) with answers: the resume data of each question's
// interrupt ID, a [tool.Decision] (anything else is the host's mistake,
// which tooleino reports as the run's error). With no answers, the run is
// resumed without any (Runner.Resume), and every question is asked again.
// It then goes on as Run does. cfg.Model must hold the turns the model
// has left.
func Resume(ctx context.Context, cfg RunConfig, answers map[string]any) (*RunResult, error) {
	if cfg.Store == nil || cfg.CheckPointID == "" {
		return nil, errors.New("einotest: Resume needs the Store and the CheckPointID of the run")
	}
	cfg.Tools = resumeTools(cfg)
	ctx, r, err := start(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	var iter *adk.AsyncIterator[*adk.AgentEvent]
	if len(answers) == 0 {
		iter, err = r.Resume(ctx, cfg.CheckPointID)
	} else {
		iter, err = r.ResumeWithParams(ctx, cfg.CheckPointID, &adk.ResumeParams{Targets: answers})
	}
	if err != nil {
		return nil, err
	}
	var res RunResult
	asked, err := res.consume(iter)
	return res.answer(ctx, cfg, asked, err)
}

// start fills cfg's defaults, and returns the run's context and the
// runner over cfg.Tools.
func start(ctx context.Context, cfg *RunConfig) (context.Context, *adk.Runner, error) {
	if cfg.Model == nil {
		cfg.Model = NewModel(Calls(cfg.Call), Text("done"))
	}
	if cfg.Store == nil {
		cfg.Store = &memoryStore{m: map[string][]byte{}}
	}
	if cfg.CheckPointID == "" {
		cfg.CheckPointID = fmt.Sprintf("einotest-%d", checkpoints.Add(1))
	}
	ctx = tooleino.WithSession(ctx, cfg.Session)
	r, err := newRunner(ctx, cfg.Tools, *cfg)
	return ctx, r, err
}

// answer answers the questions asked and resumes the run, until it ends
// without one.
func (r *RunResult) answer(ctx context.Context, cfg RunConfig, asked []tooleino.Asked, err error) (*RunResult, error) {
	for round := 0; err == nil && len(asked) > 0; round++ {
		if cfg.Answer == nil {
			r.Waiting = asked
			break
		}
		if round == maxResumes {
			err = fmt.Errorf("einotest: the turn was interrupted %d times", round+1)
			break
		}
		targets := map[string]any{}
		for _, a := range asked {
			targets[a.ID] = cfg.Answer(a.Question)
		}
		var runner *adk.Runner
		if runner, err = newRunner(ctx, resumeTools(cfg), cfg); err != nil {
			break
		}
		var iter *adk.AsyncIterator[*adk.AgentEvent]
		if iter, err = runner.ResumeWithParams(ctx, cfg.CheckPointID, &adk.ResumeParams{Targets: targets}); err != nil {
			break
		}
		asked, err = r.consume(iter)
	}
	r.Outputs = cfg.Model.Outputs()
	r.Store, r.CheckPointID = cfg.Store, cfg.CheckPointID
	return r, err
}

func resumeTools(cfg RunConfig) []einotool.BaseTool {
	if cfg.ResumeTools != nil {
		return cfg.ResumeTools
	}
	return cfg.Tools
}

func newRunner(ctx context.Context, tools []einotool.BaseTool, cfg RunConfig) (*adk.Runner, error) {
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "agent",
		Description: "An agent that calls tools.",
		Model:       cfg.Model,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools, UnknownToolsHandler: cfg.UnknownTool}},
	})
	if err != nil {
		return nil, err
	}
	return adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: cfg.Streaming, CheckPointStore: cfg.Store}), nil
}

// consume reads a run's events to the end, and returns the approval
// questions it was interrupted with.
func (r *RunResult) consume(iter *adk.AsyncIterator[*adk.AgentEvent]) ([]tooleino.Asked, error) {
	var (
		asked []tooleino.Asked
		errs  []error
	)
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		r.Events = append(r.Events, ev)
		if ev.Err != nil {
			errs = append(errs, ev.Err)
			continue
		}
		if out := ev.Output; out != nil && out.MessageOutput != nil {
			msg, err := out.MessageOutput.GetMessage()
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out.MessageOutput.Message, out.MessageOutput.IsStreaming = msg, false
			if msg != nil && msg.Role == schema.Assistant && len(msg.ToolCalls) == 0 {
				r.Final = msg.Content
			}
		}
		if a := ev.Action; a != nil && a.Interrupted != nil {
			qs := tooleino.Questions(a.Interrupted.InterruptContexts)
			if len(qs) == 0 {
				errs = append(errs, errors.New("einotest: the run was interrupted by something other than an approval question"))
			}
			r.Questions = append(r.Questions, qs...)
			asked = append(asked, qs...)
		}
	}
	return asked, errors.Join(errs...)
}

// memoryStore is a checkpoint store in memory.
type memoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memoryStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memoryStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = b
	return nil
}
