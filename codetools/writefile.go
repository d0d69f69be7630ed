package codetools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/workspace"
)

// WriteFileArgs are the arguments of write_file.
type WriteFileArgs struct {
	Path      string `json:"path" jsonschema:"minLength=1" jsonschema_description:"The file to write, relative to the workspace root; missing directories are created"`
	Content   string `json:"content" jsonschema_description:"The whole content of the file"`
	Overwrite bool   `json:"overwrite,omitempty" jsonschema_description:"Replace the file if it exists. Read it with read_file first: a file that changed since is not replaced"`
}

const writeFileDescription = `Creates a file with the given content, or replaces a whole file when overwrite is set (read it first; to change part of a file, edit_file is better).
Without overwrite an existing file is left alone. The user sees the content, or for a replaced file the diff, and may refuse it.`

// writePlan is a write worked out but not made.
type writePlan struct {
	shown  string
	old    string
	exists bool
}

func (ts *Toolset) writeFile() tool.AnyTool {
	def := tool.Definition{Name: "write_file", Title: "Write a file", Description: writeFileDescription, Safety: tool.SafetyMutating}
	t := tool.New(def, func(ctx context.Context, in WriteFileArgs) (string, error) {
		p, err := ts.planWrite(ctx, in)
		if err != nil {
			return "", err
		}
		if p.exists {
			err = ts.ws.WriteFile(in.Path, []byte(in.Content))
		} else {
			err = ts.ws.CreateFile(in.Path, []byte(in.Content)) // never replaces one made meanwhile
		}
		if err != nil {
			return "", existsHint(err)
		}
		ts.reads.remember(session(ctx), p.shown, []byte(in.Content))
		if p.exists {
			return fmt.Sprintf("Replaced %s: %s, was %s.", p.shown, size(in.Content), size(p.old)), nil
		}
		return fmt.Sprintf("Created %s: %s.", p.shown, size(in.Content)), nil
	})
	return tool.WithApprovalHooks(t, tool.ApprovalHooks[WriteFileArgs]{
		// Classify may not look at the disk, so replacing is what the
		// model asks for, not what it finds: a write without overwrite
		// never replaces a file.
		Classify: func(in WriteFileArgs) tool.Safety {
			if in.Overwrite {
				return tool.SafetyDestructive
			}
			return tool.SafetyMutating
		},
		Describe: func(ctx context.Context, in WriteFileArgs) (tool.Preview, error) {
			p, err := ts.planWrite(ctx, in)
			if err != nil {
				return tool.Preview{Title: "Write " + in.Path, Summary: "This write will be refused: " + messageOf(err), Locations: []string{in.Path}}, nil
			}
			title, summary := "Create "+p.shown, "New file, "+size(in.Content)+"."
			if p.exists {
				title, summary = "Replace "+p.shown, "Replaces the whole file ("+size(p.old)+") with "+size(in.Content)+"."
			}
			return tool.Preview{Title: title, Summary: summary, Edits: []tool.Edit{{Path: p.shown, Old: p.old, New: in.Content}},
				Locations: []string{p.shown}}, nil
		},
	})
}

func (ts *Toolset) planWrite(ctx context.Context, in WriteFileArgs) (writePlan, error) {
	shown, err := ts.ws.Check(in.Path, workspace.Write)
	if err != nil {
		return writePlan{}, err
	}
	data, err := ts.ws.ReadFile(in.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return writePlan{shown: shown}, nil
	case err != nil:
		return writePlan{}, readHint(err)
	case !in.Overwrite:
		return writePlan{}, existsHint(&tool.Error{Message: fmt.Sprintf("%s already exists", shown), Cause: fs.ErrExist})
	}
	if err := ts.fresh(ctx, shown, data); err != nil {
		return writePlan{}, err
	}
	return writePlan{shown: shown, old: string(data), exists: true}, nil
}

func existsHint(err error) error {
	if errors.Is(err, fs.ErrExist) {
		return withHint(err, "to change part of it, use edit_file; to replace it whole, read it with read_file, then call write_file with overwrite true")
	}
	return err
}

func size(s string) string {
	lines := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		lines++
	}
	return plural(lines, "line") + ", " + plural(len(s), "byte")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
