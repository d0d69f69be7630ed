// Package toolslog logs tool calls with log/slog: one record per call, with
// the tool, the call ID, the session, the status, the duration and the host
// view's error, at a level that follows the status.
//
// It comes in two forms, which see different calls; use one of them.
//
//   - [Middleware] logs the calls that reach the middlewares (those that
//     passed preflight), with the call's context, so a handler can add what
//     the context carries (a trace ID, a request ID), and, if asked, the
//     arguments as they were validated.
//   - [Observer] logs every call, including those preflight refused, calls
//     to unknown tools and calls cancelled before they started, without a
//     context (events carry none) and without arguments.
//
// Arguments are not logged unless [Options.Arguments] is set: a model
// writes them, and they may hold secrets it was given.
package toolslog

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/internal/text"
)

// Options configure the logger. A nil *Options, or a zero field, means the
// documented default.
type Options struct {
	// Level gives the level of a call's record from its result. Nil means
	// [DefaultLevel].
	Level func(*tool.Result) slog.Level
	// Message is every record's message. Empty means "tool call".
	Message string
	// Arguments adds the arguments, as validated (canonical JSON, schema
	// defaults filled in), under "args", cut to MaxArgumentBytes (only
	// [Middleware] sees them), and logs the whole validation message of a
	// call preflight refused, which quotes what the model sent. Off by
	// default, since arguments may hold secrets: the error of a refused
	// call then names only where the problems are and what kind they are.
	Arguments bool
	// MaxArgumentBytes bounds the logged arguments. Zero means 2048.
	MaxArgumentBytes int
}

// DefaultLevel is the default level of a call's record: Info for calls that
// succeeded, were denied, cancelled or are awaiting approval (the normal
// course of a conversation), Warn for calls the model got wrong (invalid
// arguments, an unknown tool) and calls that failed or timed out, Error
// for a tool that panicked or was abandoned because it ignored its context
// (bugs to fix).
func DefaultLevel(res *tool.Result) slog.Level {
	switch {
	case res.Status == tool.StatusPanicked, errors.Is(res.Err, tool.ErrAbandoned):
		return slog.LevelError
	case res.Status == tool.StatusInvalid, res.Status == tool.StatusUnknownTool,
		res.Status == tool.StatusFailed, res.Status == tool.StatusTimedOut:
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// Bounds on what one record holds, so a tool or a model cannot flood the
// log through it.
const (
	defaultMaxArgs = 2048
	maxErrorText   = 2048
	maxStack       = 16 << 10
)

// logger is what both forms share.
type logger struct {
	l       *slog.Logger
	level   func(*tool.Result) slog.Level
	msg     string
	args    bool
	maxArgs int
}

func newLogger(l *slog.Logger, o *Options) *logger {
	lg := &logger{l: l, level: DefaultLevel, msg: "tool call", maxArgs: defaultMaxArgs}
	if lg.l == nil {
		lg.l = slog.Default()
	}
	if o == nil {
		return lg
	}
	if o.Level != nil {
		lg.level = o.Level
	}
	if o.Message != "" {
		lg.msg = o.Message
	}
	lg.args = o.Arguments
	if o.MaxArgumentBytes > 0 {
		lg.maxArgs = o.MaxArgumentBytes
	}
	return lg
}

// log writes res's record. args is nil where the arguments are not known.
func (lg *logger) log(ctx context.Context, res *tool.Result, session string, dur time.Duration, args []byte) {
	level := lg.level(res)
	if !lg.l.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 9)
	attrs = append(attrs, slog.String("tool", res.Tool), slog.String("call_id", res.CallID))
	if session != "" {
		attrs = append(attrs, slog.String("session", session))
	}
	attrs = append(attrs, slog.String("status", res.Status.String()), slog.Duration("duration", dur))
	if res.Err != nil {
		attrs = append(attrs, slog.String("error", errorText(res.Err, lg.args)))
		var pe *tool.PanicError
		if errors.As(res.Err, &pe) && len(pe.Stack) > 0 {
			attrs = append(attrs, slog.String("stack", text.Bound(string(pe.Stack), maxStack)))
		}
	}
	if res.Truncated > 0 {
		attrs = append(attrs, slog.Int("truncated_bytes", res.Truncated))
	}
	if lg.args && args != nil {
		attrs = append(attrs, slog.String("args", text.Bound(string(args), lg.maxArgs)))
	}
	lg.l.LogAttrs(ctx, level, lg.msg, attrs...)
}

// errorText is the host view's error for a record, bounded. The message of
// a call preflight refused quotes what was sent; unless arguments may be
// logged, it is replaced by where the problems are and their kinds.
func errorText(err error, withArgs bool) string {
	var ae *tool.ArgsError
	if withArgs || !errors.As(err, &ae) {
		return text.Bound(err.Error(), maxErrorText)
	}
	var b strings.Builder
	b.WriteString("invalid arguments:")
	for i, p := range ae.Problems {
		if i > 0 {
			b.WriteByte(',')
		}
		ptr := p.Pointer
		if ptr == "" {
			ptr = "/"
		}
		b.WriteString(" " + text.Cut(ptr, 128) + " " + p.Code)
	}
	if more := ae.Total - len(ae.Problems); more > 0 {
		b.WriteString(", and " + strconv.Itoa(more) + " more")
	}
	return text.Bound(b.String(), maxErrorText)
}

// Middleware returns a middleware that logs each call that reaches it to l
// (nil means slog.Default()) when the call ends, with the call's context.
// Add it first ([tool.Registry.Use]) so that it times and sees what the
// other middlewares do, approval included. opts may be nil.
//
// The duration is the time the call spent in the middleware, which is the
// pipeline's but for lookup and preflight; the call's Result is not yet
// final there (the registry fills in the call's total duration after).
func Middleware[C any](l *slog.Logger, opts *Options) tool.Middleware[C] {
	lg := newLogger(l, opts)
	return func(next tool.Handler[C]) tool.Handler[C] {
		return func(ctx context.Context, call *tool.Call[C]) *tool.Result {
			start := time.Now()
			res := next(ctx, call)
			if res == nil {
				return res
			}
			// The registry fills these in after the middlewares, and makes
			// the status agree with IsError; the record needs them now.
			r := *res
			r.Tool, r.CallID = call.Name, call.ID
			if r.Status == tool.StatusOK && r.IsError {
				r.Status = tool.StatusFailed
			}
			lg.log(ctx, &r, call.Session, time.Since(start), call.Args())
			return res
		}
	}
}

// Observer returns an observer that logs every call to l (nil means
// slog.Default()) when it finishes: pass it as
// [tool.RegistryOptions.Observer]. Events carry no context and no
// arguments: records are logged with context.Background() and
// [Options.Arguments] has no effect. opts may be nil.
func Observer(l *slog.Logger, opts *Options) tool.Observer {
	lg := newLogger(l, opts)
	return tool.ObserverFunc(func(e tool.Event) {
		if e.Kind == tool.EventFinished && e.Result != nil {
			lg.log(context.Background(), e.Result, "", e.Result.Duration, nil)
		}
	})
}
