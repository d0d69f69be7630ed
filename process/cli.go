package process

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/internal/text"
)

// ArgsMode is how a [CLI] tool passes the model's arguments to its
// program.
type ArgsMode uint8

const (
	// ArgsAsJSON writes the arguments, as one JSON object, to the
	// program's standard input.
	ArgsAsJSON ArgsMode = iota
	// ArgsAsFlags turns each top-level argument into a command-line flag
	// (see [CLI.Flags]) or a positional argument (see [CLI.Positional]).
	ArgsAsFlags
)

// CLI describes an existing command-line program to expose as a tool,
// with [NewCLI]. The host declares what the model sees: the Definition,
// with its InputSchema, is required, and the arguments are validated
// against it before the program runs.
type CLI struct {
	// Definition is the tool's definition; Name, Description and
	// InputSchema are required. Its Timeout bounds the program.
	Definition tool.Definition
	// Path is the program, and Args the arguments it always gets, before
	// any from the model.
	Path string
	Args []string
	// Dir is the program's working directory; empty means the host's.
	Dir string
	// Env is the program's environment. Nil means [MinimalEnv]: the
	// host's PATH, HOME, locale and a few more, none of its other
	// variables, so a program cannot echo the host's secrets to the model.
	// Name what else it needs with process.MinimalEnv("GOPATH"), or pass
	// os.Environ() to hand it everything.
	Env []string
	// Mode says how the arguments reach the program.
	Mode ArgsMode
	// Flags maps an argument's name to its flag, in ArgsAsFlags mode: an
	// argument not listed becomes "--name". Strings and numbers are passed
	// as "--flag=value", so a value can never be read as another flag; true
	// passes "--flag" alone, false and null nothing; an array passes the
	// flag once per element. Objects are refused: take them as JSON.
	//
	// Only the properties the InputSchema declares become flags, and in
	// ArgsAsFlags mode the schema must say "additionalProperties": false at
	// its top level (NewCLI's tool is refused at registration otherwise):
	// a key the model makes up must never turn into a flag such as
	// "--exec". A declared name that is not a plain flag name (letters,
	// digits, '_', '-' and '.', not starting with '-') must be listed in
	// Flags or Positional.
	Flags map[string]string
	// Positional lists the arguments passed, in this order, after "--" and
	// the flags, in ArgsAsFlags mode; an array argument passes each element.
	Positional []string
	// KillGrace and PipeWait are as in [Command].
	KillGrace, PipeWait time.Duration

	declared []string // the schema's top-level properties, in flags mode
}

// NewCLI returns a tool that runs the program of c once per call, under
// [Run]: the call's timeout and cancellation stop the program and all it
// started. What the program writes to stdout is the result; when it exits
// with a nonzero status, or a signal ends it, the result is an error that
// quotes the tail of its stderr, where programs say what went wrong.
// Output is kept within the Definition's MaxOutputBytes (or the default),
// head and tail, like any result. Errors name the tool, never the
// program's path on the host.
//
// A CLI that cannot work (no Path, an unknown Mode, in ArgsAsFlags mode a
// schema that allows undeclared properties or Flags and Positional names
// it does not declare) is refused by [tool.Registry.Add].
func NewCLI(c CLI) tool.AnyTool {
	c.Args, c.Env = slices.Clone(c.Args), slices.Clone(c.Env)
	c.Positional = slices.Clone(c.Positional)
	c.Flags = maps.Clone(c.Flags)
	def := c.Definition
	var err error
	switch {
	case c.Path == "":
		err = errors.New("NewCLI needs CLI.Path")
	case c.Mode > ArgsAsFlags:
		err = fmt.Errorf("NewCLI: unknown ArgsMode %d", c.Mode)
	case c.Mode == ArgsAsFlags:
		c.declared, err = flagProperties(&c)
	}
	t := tool.NewRaw(def, func(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
		if err != nil {
			return nil, tool.Internal(err)
		}
		return c.run(ctx, args)
	})
	if err != nil {
		return &cliError{AnyTool: t, err: err}
	}
	return t
}

// cliError carries a construction error to Registry.Add.
type cliError struct {
	tool.AnyTool
	err error
}

func (e *cliError) Unwrap() any            { return e.AnyTool }
func (e *cliError) CheckDefinition() error { return e.err }

// maxStderrTail bounds the stderr quoted in an error result.
const maxStderrTail = 2 << 10

func (c *CLI) run(ctx context.Context, args json.RawMessage) (*tool.Result, error) {
	cmd := Command{Path: c.Path, Args: slices.Clone(c.Args), Dir: c.Dir, Env: c.Env,
		MaxOutputBytes: c.Definition.MaxOutputBytes, KillGrace: c.KillGrace, PipeWait: c.PipeWait}
	switch c.Mode {
	case ArgsAsJSON:
		if len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage(`{}`)
		}
		cmd.Stdin = bytes.NewReader(args)
	case ArgsAsFlags:
		argv, err := c.argv(args)
		if err != nil {
			return nil, err
		}
		cmd.Args = append(cmd.Args, argv...)
	}
	name := c.Definition.Name
	res, err := Run(ctx, cmd)
	if err != nil {
		if errors.Is(err, ErrStopped) || ctx.Err() != nil {
			return nil, err // a timeout or a cancel, which the pipeline reports
		}
		return nil, &tool.Error{Message: name + " could not run its program; this is a problem with the tool's setup on the host, not with your arguments",
			Cause: err}
	}
	switch {
	case res.Signal != "":
		return nil, &tool.Error{Message: fmt.Sprintf("%s was ended by a signal (%s)%s", name, res.Signal, stderrTail(res)),
			Cause: fmt.Errorf("%s: signal %s", c.Path, res.Signal)}
	case res.ExitCode != 0:
		return nil, &tool.Error{Message: fmt.Sprintf("%s exited with status %d%s", name, res.ExitCode, stderrTail(res)),
			Cause: fmt.Errorf("%s: exit status %d", c.Path, res.ExitCode)}
	}
	out := res.Stdout
	if out == "" {
		out = "(" + name + " succeeded with no output)"
	}
	return tool.TextResult(out), nil
}

func stderrTail(res *Result) string {
	s := strings.TrimSpace(res.Stderr)
	if s == "" {
		return "; it wrote nothing to stderr"
	}
	if len(s) > maxStderrTail {
		s = "…" + text.Tail(s, maxStderrTail)
	}
	return ". The end of its stderr:\n" + s
}

// argv turns validated arguments into flags and positional arguments.
func (c *CLI) argv(args json.RawMessage) ([]string, error) {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if len(bytes.TrimSpace(args)) > 0 {
		if err := d.Decode(&m); err != nil {
			return nil, fmt.Errorf("tool %s: arguments are not an object: %w", c.Definition.Name, err)
		}
	}
	var flags, positional []string
	for _, k := range c.declared { // sorted; a key the schema does not declare is never passed
		if _, ok := m[k]; !ok || slices.Contains(c.Positional, k) {
			continue
		}
		flag := c.Flags[k]
		if flag == "" {
			flag = "--" + k
		}
		vals, err := cliValues(k, m[k])
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", c.Definition.Name, err)
		}
		for _, v := range vals {
			switch {
			case v.flag == flagOn:
				flags = append(flags, flag)
			case v.flag == flagOff:
			default:
				flags = append(flags, flag+"="+v.text)
			}
		}
	}
	for _, k := range c.Positional {
		v, ok := m[k]
		if !ok {
			continue
		}
		vals, err := cliValues(k, v)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", c.Definition.Name, err)
		}
		for _, v := range vals {
			if v.flag == notBool {
				positional = append(positional, v.text)
			}
		}
	}
	if len(positional) > 0 {
		flags = append(append(flags, "--"), positional...)
	}
	return flags, nil
}

// cliValue is one command-line value: text, or a boolean switch.
type cliValue struct {
	text string
	flag boolFlag
}

type boolFlag uint8

const (
	notBool boolFlag = iota
	flagOn
	flagOff
)

// cliValues renders one argument's value as command-line values.
func cliValues(name string, v any) ([]cliValue, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case bool:
		if v {
			return []cliValue{{flag: flagOn}}, nil
		}
		return []cliValue{{flag: flagOff}}, nil
	case string:
		if strings.ContainsRune(v, 0) {
			return nil, fmt.Errorf("argument %q contains a NUL character (\\u0000), which cannot be passed on a command line; send it without", name)
		}
		return []cliValue{{text: v}}, nil
	case json.Number:
		return []cliValue{{text: v.String()}}, nil
	case []any:
		var out []cliValue
		for _, e := range v {
			switch e.(type) {
			case []any, map[string]any:
				return nil, fmt.Errorf("argument %q: nested values cannot be passed as flags", name)
			}
			s, err := cliValues(name, e)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("argument %q is an object, which cannot be passed as flags; use ArgsAsJSON", name)
}
