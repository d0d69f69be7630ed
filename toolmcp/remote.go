package toolmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// RemoteOptions configure [RemoteTools] and [AddRemoteTools]. A nil
// *RemoteOptions means the defaults.
type RemoteOptions struct {
	// Prefix is put before every remote tool's name ("github_"), to keep
	// the tools of several servers, and the host's own, apart. The remote
	// server is still called by the tool's own name.
	Prefix string
	// TrustAnnotations says the server's annotations may lower a tool's
	// safety class. MCP has clients treat annotations as untrusted unless
	// the server is trusted, so by default a remote readOnlyHint is
	// ignored: a tool is Destructive unless it says destructiveHint false,
	// then Network unless it says openWorldHint false, then Mutating (the
	// MCP defaults for a tool that is not read-only), and the approval
	// policy asks about it. Set it for servers you run or trust: a tool
	// that says readOnlyHint is then ReadOnly, runs without asking under
	// the default policy, and runs in parallel in a batch.
	TrustAnnotations bool
	// Timeout is each remote tool's Definition.Timeout. Zero means the
	// registry's default.
	Timeout time.Duration
}

// RemoteError is the host-side cause of a remote tool's result the server
// marked isError; the model sees the server's content.
type RemoteError struct {
	Tool    string // the tool's name on the server
	Message string // the text of the server's result
}

func (e *RemoteError) Error() string {
	return "mcp: remote tool " + e.Tool + " reported an error: " + cut(e.Message, 512)
}

// RemoteTools returns the tools of the server that cs is connected to as
// [tool.AnyTool]s, so that a registry puts them behind its own preflight
// (against the server's input schema), approval, deadlines, output caps and
// events. Calling one calls the server's tool over cs: the server's
// progress notifications become [tool.ReportProgress] (when the client was
// made with [NewClient] or has [ClientMiddleware]; the SDK client may hand
// the last ones over after the result, when the call has ended and they
// are dropped), cancelling the call
// cancels the remote request (the SDK sends notifications/cancelled), and
// a result the server marks isError becomes an error result
// (StatusFailed, with a [*RemoteError]).
//
// Each tool's definition comes from the server's: name (after Prefix),
// title, description (one is made up when the server gives none), input
// and output schemas, and a safety class from the annotations (see
// [RemoteOptions.TrustAnnotations]). A tool whose definition cannot be
// used is still returned, and the registry refuses it, by name, when it is
// added (it implements [tool.DefinitionChecker]); [AddRemoteTools] adds
// the others regardless.
//
// The list is read once: call again after the server's
// notifications/tools/list_changed to pick up new tools.
func RemoteTools(ctx context.Context, cs *sdk.ClientSession, opts *RemoteOptions) ([]tool.AnyTool, error) {
	var o RemoteOptions
	if opts != nil {
		o = *opts
	}
	server := "the MCP server"
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil && r.ServerInfo.Name != "" {
		server = "the MCP server " + r.ServerInfo.Name
	}
	var tools []tool.AnyTool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp: listing the tools of %s: %w", server, err)
		}
		tools = append(tools, newRemoteTool(cs, t, server, o))
	}
	return tools, nil
}

// AddRemoteTools adds the tools of the server that cs is connected to to
// reg (see [RemoteTools]), one at a time, so that a tool the registry
// refuses (a schema that does not compile, or refers to files or the
// network; a name it does not accept) is left out without the others. It
// returns the names it added, and an error that names every tool it left
// out and why ([errors.Join] of the registry's errors).
func AddRemoteTools[C any](ctx context.Context, reg *tool.Registry[C], cs *sdk.ClientSession, opts *RemoteOptions) (added []string, err error) {
	tools, err := RemoteTools(ctx, cs, opts)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, t := range tools {
		if err := reg.Add(t); err != nil {
			errs = append(errs, err)
			continue
		}
		added = append(added, t.Definition().Name)
	}
	return added, errors.Join(errs...)
}

// remoteTool is one tool of a connected server.
type remoteTool struct {
	cs      *sdk.ClientSession
	name    string // on the server
	def     tool.Definition
	problem error
}

func newRemoteTool(cs *sdk.ClientSession, t *sdk.Tool, server string, o RemoteOptions) *remoteTool {
	rt := &remoteTool{cs: cs, name: t.Name}
	d := tool.Definition{
		Name:        o.Prefix + t.Name,
		Title:       t.Title,
		Description: t.Description,
		Timeout:     o.Timeout,
	}
	if d.Description == "" {
		d.Description = "Tool " + t.Name + " of " + server + "."
	}
	var errs []error
	var err error
	if d.InputSchema, err = schemaJSON(t.InputSchema); err != nil {
		errs = append(errs, fmt.Errorf("input schema: %w", err))
	}
	if t.OutputSchema != nil {
		if d.OutputSchema, err = schemaJSON(t.OutputSchema); err != nil {
			errs = append(errs, fmt.Errorf("output schema: %w", err))
		}
	}
	if a := t.Annotations; a != nil {
		if d.Title == "" {
			d.Title = a.Title
		}
		d.Idempotent = a.IdempotentHint
	}
	d.Safety = remoteSafety(t.Annotations, o.TrustAnnotations)
	rt.def = d
	if len(errs) > 0 {
		rt.problem = fmt.Errorf("mcp: remote tool %q of %s: %w", t.Name, server, errors.Join(errs...))
	}
	return rt
}

// schemaJSON is the JSON of a schema as the SDK decoded it. A missing input
// schema means any object, as MCP's own default does.
func schemaJSON(s any) (json.RawMessage, error) {
	if s == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// remoteSafety maps a remote tool's annotations to a safety class with
// MCP's defaults for absent hints: not read-only, destructive, open-world.
// The most severe class that applies wins: Destructive, then Network, then
// Mutating. readOnlyHint counts only when trusted.
func remoteSafety(a *sdk.ToolAnnotations, trusted bool) tool.Safety {
	if a == nil {
		return tool.SafetyDestructive
	}
	switch {
	case trusted && a.ReadOnlyHint:
		return tool.SafetyReadOnly
	case a.DestructiveHint == nil || *a.DestructiveHint:
		return tool.SafetyDestructive
	case a.OpenWorldHint == nil || *a.OpenWorldHint:
		return tool.SafetyNetwork
	default:
		return tool.SafetyMutating
	}
}

func (t *remoteTool) Definition() tool.Definition { return t.def }

// CheckDefinition reports a definition that could not be read from the
// server's, so that the registry refuses the tool by name.
func (t *remoteTool) CheckDefinition() error { return t.problem }

// Run calls the tool on the server with the arguments the registry
// validated.
func (t *remoteTool) Run(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	params := &sdk.CallToolParams{Name: t.name, Arguments: args}
	token, release := routeProgress(t.cs, func(p *sdk.ProgressNotificationParams) {
		tool.ReportProgress(ctx, tool.Progress{Message: p.Message, Done: p.Progress, Total: p.Total})
	})
	defer release()
	params.SetProgressToken(token)
	res, err := t.cs.CallTool(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, &tool.Error{Message: "the MCP server could not run " + t.name + ": " + err.Error(), Cause: err}
	}
	out := &tool.Result{Content: fromSDKContent(res.Content)}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			out.Structured = b
		}
	}
	if res.IsError {
		out.IsError = true
		out.Status = tool.StatusFailed
		out.Err = &RemoteError{Tool: t.name, Message: out.Text()}
	}
	return out, nil
}
