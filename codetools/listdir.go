package codetools

import (
	"context"
	"errors"
	"io/fs"
	"sort"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/workspace"
)

// ListDirArgs are the arguments of list_dir.
type ListDirArgs struct {
	Path string `json:"path,omitempty" jsonschema:"default=." jsonschema_description:"The directory to list, relative to the workspace root"`
	tool.PageArgs
}

// DirListing is one page of a directory listing.
type DirListing struct {
	Path    string     `json:"path"`
	Entries []DirEntry `json:"entries"`
	// Total counts the directory's entries, on every page.
	Total int `json:"total"`
}

// DirEntry is one entry of a listing.
type DirEntry struct {
	Name string `json:"name"`
	// Type is file, dir, symlink, fifo, socket, device or other.
	Type string `json:"type"`
	// Size is set for files.
	Size int64 `json:"size,omitempty"`
}

// defaultDirPage is the page size when the model asks for none.
const defaultDirPage = 100

const listDirDescription = `Lists a directory of the workspace, sorted by name: each entry's name, type (file, dir, symlink, …) and, for files, size in bytes.
Long directories come in pages: call again with the next_cursor of the answer, the other arguments unchanged, for the next page. Protected files (.git, .env, keys) are not listed.`

func (ts *Toolset) listDir() tool.AnyTool {
	def := tool.Definition{Name: "list_dir", Title: "List a directory", Description: listDirDescription,
		Safety: tool.SafetyReadOnly, Idempotent: true}
	return tool.NewPaginated(def, func(ctx context.Context, in ListDirArgs, page tool.Page) (DirListing, []byte, error) {
		if in.Path == "" {
			in.Path = "."
		}
		shown, err := ts.ws.Check(in.Path, workspace.Read)
		if err != nil {
			return DirListing{}, nil, err
		}
		ents, err := ts.ws.ReadDir(in.Path)
		if errors.Is(err, workspace.ErrTooLarge) {
			// readHint's is for a file.
			return DirListing{}, nil, withHint(err, "list a subdirectory, or find the names you need with find (pattern and path)")
		}
		if err != nil {
			return DirListing{}, nil, readHint(err)
		}
		// The cursor holds the last name shown: a page starts after it, so
		// entries added or removed between pages shift nothing.
		start := 0
		if page.State != nil {
			after := string(page.State)
			start = sort.Search(len(ents), func(i int) bool { return ents[i].Name() > after })
		}
		size := page.Size
		if size <= 0 {
			size = defaultDirPage
		}
		end := min(start+size, len(ents))
		out := DirListing{Path: shown, Entries: make([]DirEntry, 0, end-start), Total: len(ents)}
		for _, e := range ents[start:end] {
			if err := ctx.Err(); err != nil {
				return DirListing{}, nil, err
			}
			out.Entries = append(out.Entries, entryOf(e))
		}
		if end < len(ents) {
			return out, []byte(ents[end-1].Name()), nil
		}
		return out, nil, nil
	})
}

func entryOf(e fs.DirEntry) DirEntry {
	d := DirEntry{Name: e.Name(), Type: typeName(e.Type())}
	if e.Type().IsRegular() {
		if fi, err := e.Info(); err == nil {
			d.Size = fi.Size()
		}
	}
	return d
}

func typeName(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "other"
}
