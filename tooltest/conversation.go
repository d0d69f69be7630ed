package tooltest

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolbelt-go/tool"
)

// A Conversation drives several calls through one registry, as one
// conversation of a model would: every call has its own ID and the
// conversation's session, so page cursors and cut output can be followed.
//
//	c := tooltest.NewConversation(t, reg, state, nil)
//	first := c.Call("list_dir", `{"path":"."}`)
//	second := c.NextPage(first)           // follows next_cursor
//	whole := c.ReadAll(c.Call("build", `{}`)) // reads back what the cap cut
//
// Its methods fail the test (t.Fatalf) when what they follow is not there.
// It is safe for concurrent use.
type Conversation[C any] struct {
	// Registry is the registry the calls go through.
	Registry *tool.Registry[C]
	// State is passed to every call.
	State C
	// Session is the conversation's session, "tooltest-" and a number
	// unless Options.Session says otherwise.
	Session string

	t   testing.TB
	ctx context.Context

	mu   sync.Mutex
	sent map[*tool.Result]tool.Request
}

var sessionSeq atomic.Uint64

// NewConversation starts a conversation with r.
func NewConversation[C any](t testing.TB, r *tool.Registry[C], state C, opts *Options) *Conversation[C] {
	o := opts.orDefaults()
	if o.Session == "" {
		o.Session = "tooltest-conversation-" + strconv.FormatUint(sessionSeq.Add(1), 10)
	}
	return &Conversation[C]{Registry: r, State: state, Session: o.Session, t: t, ctx: o.Context, sent: map[*tool.Result]tool.Request{}}
}

// Call makes one call in the conversation.
func (c *Conversation[C]) Call(name, args string) *tool.Result {
	c.t.Helper()
	req := tool.Request{ID: nextID(), Name: name, Args: json.RawMessage(args), Session: c.Session}
	res := c.Registry.Call(c.ctx, c.State, req)
	c.mu.Lock()
	c.sent[res] = req
	c.mu.Unlock()
	return res
}

// NextPage calls the tool that gave res again, with the same arguments and
// the next_cursor of res: the next page of a paginated tool.
func (c *Conversation[C]) NextPage(res *tool.Result) *tool.Result {
	c.t.Helper()
	c.mu.Lock()
	req, ok := c.sent[res]
	c.mu.Unlock()
	if !ok {
		c.t.Fatalf("tooltest: NextPage needs a result of this conversation's Call")
	}
	var page struct {
		NextCursor string `json:"next_cursor"`
	}
	if len(res.Structured) == 0 || json.Unmarshal(res.Structured, &page) != nil || page.NextCursor == "" {
		c.t.Fatalf("tooltest: the result has no next_cursor\n%s", ModelView(res))
	}
	var args map[string]any
	if err := json.Unmarshal(req.Args, &args); err != nil || args == nil {
		args = map[string]any{}
	}
	args["cursor"] = page.NextCursor
	b, _ := json.Marshal(args)
	return c.Call(req.Name, string(b))
}

// readOutputCursor finds the cursor read_output is to be called with in a
// cut result's marker or in read_output's own trailer.
var readOutputCursor = regexp.MustCompile(`call ` + tool.ReadOutputTool + ` with \{"cursor":"([A-Za-z0-9_-]+)"\}`)

// ReadAll returns the text of res with every part the output cap cut read
// back through read_output, in order: the whole output, as the tool wrote
// it (escaped for the model). The registry needs a spill store
// (RegistryOptions.Spill). A result that was not cut is returned as is.
func (c *Conversation[C]) ReadAll(res *tool.Result) string {
	c.t.Helper()
	txt := res.Text()
	loc := readOutputCursor.FindStringSubmatchIndex(txt)
	if loc == nil {
		return txt
	}
	// The marker is a line of its own between the head and the tail.
	start := strings.LastIndex(txt[:loc[0]], "\n[…")
	end := strings.Index(txt[loc[1]:], "…]\n")
	if start < 0 || end < 0 {
		c.t.Fatalf("tooltest: cannot find the cut marker in\n%s", ModelView(res))
	}
	head, tail := txt[:start], txt[loc[1]+end+len("…]\n"):]
	var b strings.Builder
	b.WriteString(head)
	cursor := txt[loc[2]:loc[3]]
	for cursor != "" {
		part := c.Call(tool.ReadOutputTool, `{"cursor":"`+cursor+`"}`)
		if part.Status != tool.StatusOK {
			c.t.Fatalf("tooltest: read_output failed\n%s", ModelView(part))
		}
		ptxt := part.Text()
		trailer := strings.LastIndex(ptxt, "\n[bytes ")
		if trailer < 0 {
			c.t.Fatalf("tooltest: read_output gave no trailer\n%s", ModelView(part))
		}
		b.WriteString(ptxt[:trailer])
		cursor = ""
		if m := readOutputCursor.FindStringSubmatch(ptxt[trailer:]); m != nil {
			cursor = m[1]
		}
	}
	b.WriteString(tail)
	return b.String()
}
