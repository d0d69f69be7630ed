package tool

import (
	"context"
	"errors"

	"github.com/toolbelt-go/tool/internal/linediff"
	"github.com/toolbelt-go/tool/internal/text"
)

// Preview is what an approver is shown of a call before it runs. In the
// preview an approver gets, every string has control, bidirectional and
// zero-width characters written as escapes (\x1b, \u202e), and a run of
// backslashes the tool wrote before text that reads as an escape is
// doubled (the six characters \u202e are written \\u202e), so that what
// an approver reads says exactly what the tool wrote.
type Preview struct {
	// Title is a one-line heading ("Edit main.go").
	Title string
	// Summary says what the call will do, in a sentence or a command line.
	Summary string
	// Edits are file changes the call will make, old and new content.
	Edits []Edit
	// Locations are the files, URLs or resources the call touches.
	Locations []string
	// Basic is set when the tool gave no preview (or its Describe failed)
	// and this one was made from the arguments.
	Basic bool
}

// Edit is one file change in a [Preview].
type Edit struct {
	Path     string
	Old, New string
}

// Diff renders the edit as a line diff: "- " removed, "+ " added, two
// spaces for context, "@@ line N" before each hunk.
func (e Edit) Diff() string { return linediff.Unified(e.Old, e.New) }

// Describer is implemented by a tool that can show the approver what a call
// will do before it runs: a diff for a file edit, the command for a shell
// tool. Describe may read (the old file) but not change anything. An error
// or panic never fails the call: the approver gets a basic preview instead.
// [CallInfoFrom] gives Describe's ctx the call it describes.
type Describer interface {
	Describe(ctx context.Context, args any) (Preview, error)
}

// DescriberFor is Describer for tools that need the host state to show
// what a call will do (the session's workspace, to read the file an edit
// changes). It gets the call, whose arguments are validated
// ([Call.Value]); it must not change it. A tool that implements both is
// described by DescribeFor.
type DescriberFor[C any] interface {
	DescribeFor(ctx context.Context, call *Call[C]) (Preview, error)
}

var errNoDescriber = errors.New("tool: no preview")

// Bounds of what the approver is shown.
const (
	maxPreviewLine = 1 << 10
	maxPreviewText = 256 << 10
	maxLocations   = 100
)

// describe builds the call's preview. It never fails: a tool without a
// Describer, or whose Describe errs or panics, gets a basic preview made
// from its arguments. Every string is made safe to show (see visible).
func describe[C any](ctx context.Context, rt *runtimeConfig, call *Call[C], argsText string) Preview {
	def := call.Definition()
	// The arguments are shown as JSON text, made visible already (JSON's
	// own escapes tell a real U+202E from the text \u202e).
	basic := Preview{Title: def.DisplayName(), Basic: true}
	withArgs := func(p Preview) Preview {
		p.Summary = argsText
		return p
	}
	// The tree is built here, on the call's goroutine: the describer only
	// reads it.
	var run func(ctx context.Context) (Preview, error)
	if d, ok := As[DescriberFor[C]](call.Tool()); ok {
		call.tree()
		run = func(ctx context.Context) (Preview, error) { return d.DescribeFor(ctx, call) }
	} else if d, ok := As[Describer](call.Tool()); ok {
		v := call.tree()
		run = func(ctx context.Context) (Preview, error) { return d.Describe(ctx, v) }
	} else {
		return withArgs(basic.visible())
	}
	type answer struct {
		p   Preview
		err error
	}
	// The describer may keep memory per session, as the tool does.
	ctx = context.WithValue(ctx, callInfoKey{}, call.info())
	ans, outcome := callHook(ctx, rt, func(ctx context.Context) answer {
		p, err := run(ctx)
		return answer{p, err}
	})
	p := ans.p
	if outcome != hookOK || ans.err != nil {
		return withArgs(basic.visible())
	}
	if p.Title == "" {
		p.Title = def.DisplayName()
	}
	return p.visible()
}

// visible returns the preview with control, bidirectional and zero-width
// characters shown as escapes, so what the approver reads is what the bytes
// say, and every field bounded. The escapes read back exactly: a run of
// backslashes the tool wrote before text that reads as an escape is
// doubled, so that a real U+202E (\u202e) and the six characters \u202e
// (\\u202e) never look the same.
func (p Preview) visible() Preview {
	p.Title = text.Bound(text.VisibleExact(p.Title, true), maxPreviewLine)
	p.Summary = text.Bound(text.VisibleExact(p.Summary, false), maxPreviewText)
	if len(p.Edits) > 0 {
		edits := make([]Edit, len(p.Edits))
		for i, e := range p.Edits {
			edits[i] = Edit{
				Path: text.Bound(text.VisibleExact(e.Path, true), maxPreviewLine),
				Old:  text.Bound(text.VisibleExact(e.Old, false), maxPreviewText),
				New:  text.Bound(text.VisibleExact(e.New, false), maxPreviewText),
			}
		}
		p.Edits = edits
	}
	if len(p.Locations) > 0 {
		locs := make([]string, 0, min(len(p.Locations), maxLocations))
		for _, l := range p.Locations[:min(len(p.Locations), maxLocations)] {
			locs = append(locs, text.Bound(text.VisibleExact(l, true), maxPreviewLine))
		}
		p.Locations = locs
	}
	return p
}
