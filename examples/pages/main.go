// Pages shows the two ways a tool's long output reaches a model in parts.
//
// list_files is paginated: it lists 10,000 files a page at a time, and the
// model follows next_cursor, an opaque cursor the registry signs, from page
// to page. build_log prints a megabyte; the registry cuts it to 4 KiB,
// keeps what it cut in a spill store, and the model reads the rest with the
// read_output tool, cursor by cursor. A forged cursor and one reused with
// other arguments are refused with a message that tells the model what to
// do.
//
//	go run ./examples/pages
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/toolbelt-go/tool"
)

// ListArgs are the arguments of list_files.
type ListArgs struct {
	Dir string `json:"dir" jsonschema:"description=Directory to list"`
	tool.PageArgs
}

const fileCount = 10_000

// listFiles pages through a directory of fileCount generated files. Its
// page state is the offset of the next page: the registry signs it into
// the cursor, so the model can neither forge nor alter it.
func listFiles() tool.AnyTool {
	return tool.NewPaginated(tool.Definition{Name: "list_files", Description: "Lists the files of a directory, a page at a time.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in ListArgs, page tool.Page) ([]string, []byte, error) {
			off := 0
			if page.State != nil {
				off = int(binary.BigEndian.Uint64(page.State))
			}
			size := page.Size
			if size == 0 {
				size = 100
			}
			end := min(off+size, fileCount)
			files := make([]string, 0, end-off)
			for i := off; i < end; i++ {
				files = append(files, fmt.Sprintf("%s/file%05d.go", in.Dir, i))
			}
			if end == fileCount {
				return files, nil, nil
			}
			return files, binary.BigEndian.AppendUint64(nil, uint64(end)), nil
		})
}

// BuildArgs are the arguments of build_log.
type BuildArgs struct {
	Target string `json:"target" jsonschema:"description=What to build"`
}

// buildLog prints a megabyte of build log; the error is near the end,
// where a cut that kept only the head would lose it.
func buildLog() tool.AnyTool {
	return tool.New(tool.Definition{Name: "build_log", Description: "Builds a target and returns its full log.", Safety: tool.SafetyReadOnly},
		func(_ context.Context, in BuildArgs) (string, error) {
			var b strings.Builder
			for i := range 15_000 {
				fmt.Fprintf(&b, "[%05d] compiling %s/pkg%04d.go ... ok\n", i, in.Target, i)
			}
			b.WriteString("error: undefined: frobnicate (pkg1234.go:42)\n")
			return b.String(), nil
		})
}

func newRegistry() *tool.Registry[struct{}] {
	r := tool.NewRegistry[struct{}](&tool.RegistryOptions{MaxOutputBytes: 4 << 10, Spill: tool.NewMemorySpillStore(0)})
	r.MustAdd(listFiles(), buildLog())
	return r
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

var cursorRE = regexp.MustCompile(`read_output with \{"cursor":"([^"]+)"\}`)

func run(ctx context.Context, w io.Writer) error {
	r := newRegistry()
	call := func(name, args string) *tool.Result {
		return r.Call(ctx, struct{}{}, tool.Request{ID: "c", Name: name, Session: "demo", Args: json.RawMessage(args)})
	}

	// The model pages through the directory, 100 files a page: a page must
	// fit the 4 KiB output cap.
	fmt.Fprintln(w, "== list_files, page by page")
	var page struct {
		Results []string `json:"results"`
		Next    string   `json:"next_cursor"`
	}
	seen, pages, firstCursor := 0, 0, ""
	args := `{"dir":"src","page_size":100}`
	for {
		res := call("list_files", args)
		if res.IsError {
			return fmt.Errorf("page %d: %s", pages+1, res.Text())
		}
		page.Next = ""
		if err := json.Unmarshal(res.Structured, &page); err != nil {
			return err
		}
		seen += len(page.Results)
		pages++
		if pages == 1 {
			firstCursor = page.Next
		}
		if page.Next == "" {
			break
		}
		args = `{"dir":"src","page_size":100,"cursor":"` + page.Next + `"}`
	}
	fmt.Fprintf(w, "%d files in %d pages, the last one %s\n", seen, pages, page.Results[len(page.Results)-1])

	fmt.Fprintln(w, "\n== cursors the model should not send")
	res := call("list_files", `{"dir":"src","cursor":"0"}`)
	fmt.Fprintf(w, "invented:    %s\n", res.Text())
	res = call("list_files", `{"dir":"tests","cursor":"`+firstCursor+`"}`)
	fmt.Fprintf(w, "other args:  %s\n", res.Text())

	// The model builds, gets the head and the tail of the log, and reads
	// the part that was cut, 4 KiB at a time.
	fmt.Fprintln(w, "\n== build_log, cut and read on")
	res = call("build_log", `{"target":"cmd/app"}`)
	fmt.Fprintf(w, "first answer: %d bytes (%d cut), ends with: %s", len(res.Text()), res.Truncated, lastLine(res.Text()))
	reads, read := 0, 0
	for {
		m := cursorRE.FindStringSubmatch(res.Text())
		if m == nil {
			break
		}
		res = call(tool.ReadOutputTool, `{"cursor":"`+m[1]+`"}`)
		if res.IsError {
			return fmt.Errorf("read_output: %s", res.Text())
		}
		reads++
		read += strings.LastIndex(res.Text(), "\n[bytes ")
	}
	fmt.Fprintf(w, "read_output: %d calls read the %d cut bytes; the last one says %s", reads, read, lastLine(res.Text()))
	return nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:] + "\n"
}
