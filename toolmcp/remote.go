package toolmcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/tool"
)

// RemoteOptions configure [RemoteTools] and [AddRemoteTools]. A nil
// *RemoteOptions means the defaults.
//
// Everything a remote server sends is untrusted: its tools' names,
// titles, descriptions and schemas are put in front of the model on every
// turn, so they are escaped and bounded here, and a tool whose definition
// is over a bound is left out, named, with the bound to raise.
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
	// MaxTools bounds the tools read from the server; the list is cut
	// there, with an error that says so. Zero means 500.
	MaxTools int
	// MaxPages bounds the pages of tools/list read: a server that answers
	// every page with a new cursor is not read until the caller's deadline.
	// Zero means 50.
	MaxPages int
	// MaxDescription bounds each description a tool brings: its own, and
	// those of its schemas' properties. A longer one is cut, with a note
	// that says its size in bytes and how many of them were left out.
	// (Titles are cut at 256 bytes.) Zero means 4 KiB.
	MaxDescription int
	// MaxSchemaBytes bounds a tool's input schema, which the model reads
	// on every turn, as JSON after the descriptions in it are cut; a tool
	// with a larger one is left out. Zero means 64 KiB.
	MaxSchemaBytes int
	// MaxOutputSchemaBytes bounds a tool's output schema, as JSON after
	// the descriptions in it are cut. No output schema is sent to a model:
	// it describes the tool's structured result, for the host (and for
	// the clients of an MCP server that serves the registry with
	// [AddTools], which may check results against it), and nothing in
	// toolmcp or the registry validates a result against it. So an output
	// schema that cannot be kept (over this bound, nested past the
	// guard's bounds, with a hidden character in its data, or one the
	// registry does not compile) is left out, never the tool: the tool
	// is kept without it, and the error of [RemoteTools] notes it. Zero
	// means 256 KiB.
	MaxOutputSchemaBytes int
	// MaxEnumValues bounds the values of any enum in a tool's input
	// schema; a tool with a larger one is left out. Zero means 256.
	MaxEnumValues int
}

// Defaults of [RemoteOptions].
const (
	DefaultMaxTools       = 500
	DefaultMaxPages       = 50
	DefaultMaxDescription = 4 << 10
	DefaultMaxSchemaBytes = 64 << 10
	DefaultMaxEnumValues  = 256

	DefaultMaxOutputSchemaBytes = 256 << 10
)

// maxTitle bounds a remote tool's title, a short label.
const maxTitle = 256

func (o *RemoteOptions) withDefaults() RemoteOptions {
	var r RemoteOptions
	if o != nil {
		r = *o
	}
	for _, f := range []struct {
		v   *int
		def int
	}{{&r.MaxTools, DefaultMaxTools}, {&r.MaxPages, DefaultMaxPages}, {&r.MaxDescription, DefaultMaxDescription},
		{&r.MaxSchemaBytes, DefaultMaxSchemaBytes}, {&r.MaxOutputSchemaBytes, DefaultMaxOutputSchemaBytes}, {&r.MaxEnumValues, DefaultMaxEnumValues}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	return r
}

// ErrNotGuarded is the error of [RemoteTools] for a session that was not
// connected through [Guard].
var ErrNotGuarded = errors.New("toolmcp: the session was not connected through toolmcp.Guard, so what the server sends is not bounded before the SDK reads it; " +
	"connect with client.Connect(ctx, toolmcp.Guard(transport, nil), nil)")

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
// events. cs must have been connected through [Guard] (else
// [ErrNotGuarded]), which bounds what the server sends before the SDK
// reads it.
//
// Calling one calls the server's tool over cs: the server's progress
// notifications become [tool.ReportProgress] (when the client was made
// with [NewClient] or has [ClientMiddleware]; the SDK client may hand the
// last ones over after the result, when the call has ended and they are
// dropped), cancelling the call cancels the remote request (the SDK sends
// notifications/cancelled), and a result the server marks isError becomes
// an error result (StatusFailed, with a [*RemoteError]). A result is cut
// as [Guard] says, then as the registry cuts any tool's output.
//
// Each tool's definition comes from the server's: name (after Prefix),
// title and description (escaped as the registry escapes what a model
// reads, and cut to the bounds of opts; one is made up when the server
// gives none), input and output schemas (the descriptions in them escaped
// and cut too; an output schema that cannot be kept is left out, with a
// note in the error, and the tool kept without it: see
// [RemoteOptions.MaxOutputSchemaBytes]), and a safety class from the
// annotations (see [RemoteOptions.TrustAnnotations]). A tool whose
// definition cannot be used is still returned, and the registry refuses
// it, by name and with the reason, when it is added (it implements
// [tool.DefinitionChecker]); [AddRemoteTools] adds the others regardless.
// Such a tool: one the guard could not read within its bounds, one whose
// input schema is over the bounds of opts or does not compile, or holds a
// control, invisible or reordering character in a key or value (data the
// tool takes as it is, which cannot be escaped as a description is).
//
// A tool the server runs only as a task (execution.taskSupport
// "required", which only a [Guard]ed transport reads) is called as one,
// on a session of protocol 2026-07-28 or later (earlier ones had another
// form of tasks, SEP-1686, which toolmcp does not follow: there it is
// left out):
// the call declares the tasks extension (SEP-2663) and follows the task
// until it ends, with tasks/get (the session's client must come from
// [NewClient]); cancelling the call cancels the task (tasks/cancel).
// A question the task asks is relayed, once, to the client following this
// call when the call itself runs as a task ([tool.AskInput]), and
// otherwise cancels the task; so does a read of the task that fails three
// times in a row. Its Definition's Task is TaskMay.
//
// The list is read once, at most MaxPages pages and MaxTools tools: when
// it is cut there, or the server repeats a page's cursor, or a page after
// the first fails, RemoteTools returns the tools read so far with an error
// that says what was not read. Call it again after the server's
// notifications/tools/list_changed to pick up new tools.
func RemoteTools(ctx context.Context, cs *sdk.ClientSession, opts *RemoteOptions) ([]tool.AnyTool, error) {
	o := opts.withDefaults()
	server := "the MCP server"
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil && r.ServerInfo.Name != "" {
		server = "the MCP server " + strconv.Quote(cut(r.ServerInfo.Name, 64))
	}
	var (
		tools []tool.AnyTool
		notes []error
		seen  = map[[sha256.Size]byte]bool{}
	)
	cursor := ""
	for page := 1; ; page++ {
		if page > o.MaxPages {
			notes = append(notes, fmt.Errorf("mcp: %s lists its tools on more than %d pages; the first %d pages were read, the rest left out (raise RemoteOptions.MaxPages to read more)",
				server, o.MaxPages, o.MaxPages))
			break
		}
		res, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			err = fmt.Errorf("mcp: listing the tools of %s (page %d): %w", server, page, err)
			if page == 1 {
				return nil, err
			}
			notes = append(notes, err)
			break
		}
		if _, ok := res.Meta[metaGuarded]; !ok {
			return nil, ErrNotGuarded
		}
		if n, ok := res.Meta[metaToolsOut].(float64); ok && n > 0 {
			notes = append(notes, fmt.Errorf("mcp: %d tools on page %d of %s were left out: the page is over toolmcp.GuardOptions.MaxMessageBytes", int(n), page, server))
		}
		for _, t := range res.Tools {
			if len(tools) == o.MaxTools {
				notes = append(notes, fmt.Errorf("mcp: %s lists more than %d tools; the first %d were read, the rest left out (raise RemoteOptions.MaxTools to read more)",
					server, o.MaxTools, o.MaxTools))
				return tools, errors.Join(notes...)
			}
			rt := newRemoteTool(cs, t, server, o)
			if rt.note != nil {
				notes = append(notes, rt.note)
			}
			tools = append(tools, rt)
		}
		if res.NextCursor == "" {
			break
		}
		key := sha256.Sum256([]byte(res.NextCursor))
		if seen[key] {
			notes = append(notes, fmt.Errorf("mcp: %s gave a page cursor of tools/list it had given before; the list was read up to there", server))
			break
		}
		seen[key] = true
		cursor = res.NextCursor
	}
	return tools, errors.Join(notes...)
}

// AddRemoteTools adds the tools of the server that cs is connected to to
// reg (see [RemoteTools]), one at a time, so that a tool the registry
// refuses (a definition over the bounds, a schema that does not compile,
// or refers to files or the network; a name it does not accept; a tool
// that runs only as a task) is left out without the others. It returns
// the names it added, and an error that names every tool it left out and
// why, every output schema it left out of a tool it added, and what of
// the list was not read ([errors.Join] of them).
func AddRemoteTools[C any](ctx context.Context, reg *tool.Registry[C], cs *sdk.ClientSession, opts *RemoteOptions) (added []string, err error) {
	tools, err := RemoteTools(ctx, cs, opts)
	if err != nil && len(tools) == 0 {
		return nil, err
	}
	errs := []error{err}
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
	problem error // why the tool cannot be used
	note    error // what was left out of a tool that can (its output schema)
	task    bool  // the server runs it only as a task (task_remote.go)
}

func newRemoteTool(cs *sdk.ClientSession, t *sdk.Tool, server string, o RemoteOptions) *remoteTool {
	rt := &remoteTool{cs: cs, name: t.Name}
	d := tool.Definition{
		Name:        o.Prefix + t.Name,
		Title:       boundText(tool.EscapeModelText(t.Title), maxTitle, "title"),
		Description: boundText(tool.EscapeModelText(t.Description), o.MaxDescription, "description"),
		Timeout:     o.Timeout,
	}
	if d.Description == "" {
		d.Description = tool.EscapeModelText(cut("Tool "+t.Name+" of "+server+".", 256))
	}
	var errs []error
	if reason, _ := t.Meta[metaRefused].(string); reason != "" {
		errs = append(errs, errors.New(reason))
	}
	if ts, _ := t.Meta[metaTaskSupport].(string); ts == "required" {
		if err := followsTasks(cs); err != nil {
			errs = append(errs, err)
		}
		rt.task, d.Task = true, tool.TaskMay // followed as a task (task_remote.go), and long: may run as one here too
	}
	var err error
	if d.InputSchema, err = remoteSchema(t.InputSchema, o, false); err != nil {
		errs = append(errs, fmt.Errorf("input schema: %w", err))
	}
	if reason, _ := t.Meta[metaOutputSchemaOut].(string); reason != "" {
		err = errors.New(reason)
	} else if t.OutputSchema != nil {
		if d.OutputSchema, err = remoteSchema(t.OutputSchema, o, true); err == nil {
			err = outputSchemaCompiles(d.OutputSchema)
		}
	}
	if err != nil {
		d.OutputSchema = nil
		rt.note = fmt.Errorf("mcp: remote tool %s of %s: its output schema was left out, and the tool kept without it (no output schema is sent to a model): %w",
			strconv.QuoteToASCII(cut(t.Name, 64)), server, err)
	}
	if a := t.Annotations; a != nil {
		if d.Title == "" {
			d.Title = boundText(tool.EscapeModelText(a.Title), maxTitle, "title")
		}
		d.Idempotent = a.IdempotentHint
	}
	d.Safety = remoteSafety(t.Annotations, o.TrustAnnotations)
	rt.def = d
	if len(errs) > 0 {
		rt.problem = fmt.Errorf("mcp: remote tool %s of %s left out: %w", strconv.QuoteToASCII(cut(t.Name, 64)), server, errors.Join(errs...))
	}
	return rt
}

// boundText returns s cut to max bytes, with a note that says how long
// the server's what is and how much of it was left out.
func boundText(s string, max int, what string) string {
	if len(s) <= max {
		return s
	}
	note := func(left string) string {
		return " [… the MCP server's " + what + " is " + byteSize(len(s)) + "; the last " + left + " were left out to fit " + byteSize(max) + "]"
	}
	// The note is longest when it says the count in bytes, at most as
	// many digits as the whole length.
	room := max - len(note(strconv.Itoa(len(s))+" bytes"))
	if room <= 0 {
		return prefix(s, max) // a bound too small to say it in
	}
	kept := prefix(s, room)
	return kept + note(byteSize(len(s)-len(kept)))
}

// prefix returns the longest prefix of s of at most n bytes that ends on
// a character boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:max(n, 0)]
}

// outputSchemaCompiles reports why the registry would refuse out as a
// tool's output schema (a schema that does not compile, or refers to
// files or the network), so that it is left out rather than the tool.
func outputSchemaCompiles(out json.RawMessage) error {
	probe := tool.NewRaw(tool.Definition{Name: "probe", Description: "An output schema's probe.", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: out},
		func(context.Context, json.RawMessage) (*tool.Result, error) { return nil, nil })
	err := tool.NewRegistry[struct{}](nil).Add(probe)
	if de := (*tool.DefinitionError)(nil); errors.As(err, &de) {
		return errors.New(strings.TrimPrefix(de.Problem, "output schema: "))
	}
	return err
}

// remoteSchema is the JSON of a tool's schema as the SDK decoded it, with
// its descriptions and titles escaped and cut, and checked against the
// bounds of o: those of an input schema, or of an output schema (no enum
// bound: a model reads none of it). A missing input schema means any
// object, as MCP's own default does.
func remoteSchema(s any, o RemoteOptions, output bool) (json.RawMessage, error) {
	if s == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	// A copy of its own, with numbers as written, to change.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var problem error
	walkSchema(v, func(m map[string]any) {
		// $comment is an annotation as description is, for the model to
		// read too (a provider may be sent it as it is).
		for _, k := range []string{"description", "title", "$comment"} {
			if str, ok := m[k].(string); ok {
				limit := o.MaxDescription
				if k == "title" {
					limit = maxTitle
				}
				m[k] = boundText(tool.EscapeModelText(str), limit, k)
			}
		}
		if e, ok := m["enum"].([]any); ok && len(e) > o.MaxEnumValues && problem == nil && !output {
			problem = fmt.Errorf("an enum of %d values, over the %d a remote tool may bring (RemoteOptions.MaxEnumValues)", len(e), o.MaxEnumValues)
		}
	})
	if problem != nil {
		return nil, problem
	}
	if found := hiddenText(v, ""); found != "" {
		return nil, fmt.Errorf("%s holds characters a model would read raw (controls, or invisible or reordering ones); descriptions are escaped, but keys and values (enum, const, default, examples) are data the tool takes as they are, and escaping them would change what it accepts", found)
	}
	if b, err = json.Marshal(v); err != nil {
		return nil, err
	}
	if output && len(b) > o.MaxOutputSchemaBytes {
		return nil, fmt.Errorf("%s of JSON, over the %s a remote tool's output schema may take (RemoteOptions.MaxOutputSchemaBytes)", byteSize(len(b)), byteSize(o.MaxOutputSchemaBytes))
	}
	if !output && len(b) > o.MaxSchemaBytes {
		return nil, fmt.Errorf("%s of JSON, over the %s a remote tool's input schema may take (RemoteOptions.MaxSchemaBytes)", byteSize(len(b)), byteSize(o.MaxSchemaBytes))
	}
	return b, nil
}

// hiddenText finds, in v at the JSON pointer at, a key or string that
// still holds what [tool.EscapeModelText] would escape (a control,
// bidirectional, zero-width or tag character) once the annotations are
// escaped: there it is data, which cannot be escaped without changing
// what the tool accepts. It says what and where, shown escaped and cut,
// or returns "" when there is none.
func hiddenText(v any, at string) string {
	shown := func(s string) string { return strconv.Quote(cut(s, 64)) } // Quote escapes them all
	switch v := v.(type) {
	case string:
		if tool.EscapeModelText(v) != v {
			return "the value " + shown(v) + " at " + pointer(at)
		}
	case []any:
		for i, e := range v {
			if found := hiddenText(e, at+"/"+strconv.Itoa(i)); found != "" {
				return found
			}
		}
	case map[string]any:
		// In order, so that the same tool is refused with the same words.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if tool.EscapeModelText(k) != k {
				return "the key " + shown(k) + " at " + pointer(at)
			}
			if found := hiddenText(v[k], at+"/"+pointerToken(k)); found != "" {
				return found
			}
		}
	}
	return ""
}

// pointer is a JSON pointer as the error shows it.
func pointer(at string) string {
	if at == "" {
		return "the schema's top level"
	}
	return at
}

// pointerToken escapes a key as a JSON pointer's token (RFC 6901).
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// walkSchema calls visit for every schema object in v: v itself, and the
// subschemas of its keywords (draft 2020-12 and draft-07), so that only
// annotations are changed, never data (a default, a const, an example).
func walkSchema(v any, visit func(map[string]any)) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	visit(m)
	for k, sub := range m {
		switch k {
		case "items", "additionalProperties", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else",
			"unevaluatedItems", "unevaluatedProperties", "contentSchema":
			walkSchema(sub, visit)
			if list, ok := sub.([]any); ok { // items as an array (draft-07)
				for _, s := range list {
					walkSchema(s, visit)
				}
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if list, ok := sub.([]any); ok {
				for _, s := range list {
					walkSchema(s, visit)
				}
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
			if named, ok := sub.(map[string]any); ok {
				for _, s := range named {
					walkSchema(s, visit)
				}
			}
		}
	}
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
	if t.task {
		return t.runTask(ctx, args)
	}
	params := &sdk.CallToolParams{Name: t.name, Arguments: args}
	token, release := routeProgress(t.cs, func(p *sdk.ProgressNotificationParams) {
		tool.ReportProgress(ctx, tool.Progress{Message: tool.EscapeModelText(cut(p.Message, maxPartialLog)), Done: p.Progress, Total: p.Total})
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
