package toolmcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The keys the guard writes into a remote tool's _meta, for [RemoteTools]
// to read; a server's own values under them are dropped.
const (
	metaPrefix = "io.github.toolbelt-go/"
	// metaGuarded marks a tools/list result that came through a guard.
	metaGuarded = metaPrefix + "guarded"
	// metaRefused is why the guard could not keep a tool's definition.
	metaRefused = metaPrefix + "refused"
	// metaTaskSupport is the tool's execution.taskSupport, which the SDK's
	// Tool type has no field for.
	metaTaskSupport = metaPrefix + "taskSupport"
	// metaToolsOut counts the tools of a page left out because the page is
	// over the size a message may take.
	metaToolsOut = metaPrefix + "toolsLeftOut"
	// metaOutputSchemaOut is why the guard left out a tool's output
	// schema, and kept the tool: no model reads an output schema, so one
	// that does not fit costs the tool nothing else.
	metaOutputSchemaOut = metaPrefix + "outputSchemaLeftOut"
)

// limits are a guard's bounds, from [GuardOptions].
type limits struct {
	resultBytes  int // content kept of one tools/call result
	resultBlocks int // content blocks kept of one result
	messageBytes int // any message, a tools/list page included
	depth        int // nesting of any value in a message, and of a tool in a list
}

// fieldBytes bounds a field of a content block that is neither its text
// nor its data (a type, a URI, annotations).
const fieldBytes = 64 << 10

func isLimit(err error) bool { return errors.Is(err, errOverBudget) || errors.Is(err, errTooDeep) }

// member is one member of an object being rebuilt.
type member struct {
	key string
	raw []byte
}

func writeObject(w *bytes.Buffer, members []member) {
	w.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			w.WriteByte(',')
		}
		writeJSONString(w, m.key)
		w.WriteByte(':')
		w.Write(m.raw)
	}
	w.WriteByte('}')
}

// message reads one message (a JSON-RPC message, or a batch of them) and
// writes to w what the guard lets through: the message within its bounds,
// or, for a response that cannot be kept, an error response to the same
// request; nothing, for anything else that cannot be kept. An error is
// returned only when the stream cannot be read on.
func (l *limits) message(s *jsonScanner, w *bytes.Buffer) error {
	s.n = 0
	c, err := s.peek()
	if err != nil {
		return err // io.EOF between messages: the stream ended
	}
	s.markHead()
	err = l.messageAt(s, w, c)
	if syn := (*syntaxError)(nil); errors.As(err, &syn) {
		return &notJSON{head: string(s.head[:s.headLen]), headCut: s.headCut, at: s.n, err: syn}
	}
	return err
}

// messageAt reads the message whose first byte is c.
func (l *limits) messageAt(s *jsonScanner, w *bytes.Buffer, c byte) error {
	switch c {
	case '{':
		return l.single(s, w)
	case '[':
		// A batch is one message: its members share the bounds of one, and
		// those past them are dropped (a response among them is not
		// answered: its request ends at its deadline).
		w.WriteByte('[')
		n := 0
		err := s.array(func(int) error {
			room := l.messageBytes - w.Len()
			if room <= 0 {
				return s.skipValue()
			}
			in := *l
			in.messageBytes, in.resultBytes = room, min(l.resultBytes, room)
			var m bytes.Buffer
			if err := in.single(s, &m); err != nil {
				return err
			}
			if m.Len() > 0 {
				if n > 0 {
					w.WriteByte(',')
				}
				n++
				w.Write(m.Bytes())
			}
			return nil
		})
		if err == nil && n == 0 {
			w.Reset()
			return nil
		}
		w.WriteByte(']')
		return err
	default:
		return s.skipValue() // not a message; the SDK would refuse it anyway
	}
}

// single reads one JSON-RPC message (an object, else it is dropped).
func (l *limits) single(s *jsonScanner, w *bytes.Buffer) error {
	if c, err := s.peek(); err != nil {
		return eof(err)
	} else if c != '{' {
		return s.skipValue()
	}
	var (
		members   []member
		id        []byte
		isRequest bool
		size      int
		problem   error
	)
	err := s.object(func(key string) error {
		var buf bytes.Buffer
		var err error
		switch {
		case key == "method":
			isRequest = true
			err = s.copyValue(&buf, fieldBytes, 1)
		case key == "id":
			err = s.copyValue(&buf, 256, 1)
		case problem != nil:
			return s.skipValue()
		case key == "result":
			if c, _ := s.peek(); c == '{' {
				err = l.result(s, &buf)
				break
			}
			fallthrough
		default:
			err = s.copyValue(&buf, l.messageBytes-size, l.depth)
		}
		if isLimit(err) {
			if problem == nil {
				problem = fmt.Errorf("its %q is %w", key, err)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if key == "id" {
			id = buf.Bytes()
		}
		size += buf.Len()
		members = append(members, member{key, buf.Bytes()})
		return nil
	})
	if err != nil {
		return err
	}
	if problem == nil {
		writeObject(w, members)
		return nil
	}
	if isRequest || id == nil {
		return nil // a request or notification of the server's: dropped
	}
	b, _ := json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
		"toolmcp: the MCP server's response was not read: %v (the bounds are %s and %d levels; see toolmcp.GuardOptions)",
		problem, byteSize(l.messageBytes), l.depth)})
	writeObject(w, []member{{"jsonrpc", []byte(`"2.0"`)}, {"id", id}, {"error", b}})
	return nil
}

// result reads the result of a response. A tools/list page and a
// tools/call result are read member by member, each part in its own
// bounds: one bad tool, or a huge result, costs only itself.
func (l *limits) result(s *jsonScanner, w *bytes.Buffer) error {
	var (
		members  []member
		size     int
		tools    bool
		toolsOut int
		note     contentNote
		problem  error
	)
	err := s.object(func(key string) error {
		if problem != nil {
			return s.skipValue()
		}
		var buf bytes.Buffer
		c, err := s.peek()
		if err != nil {
			return eof(err)
		}
		switch {
		case key == "tools" && c == '[':
			tools = true
			toolsOut, err = l.tools(s, &buf)
		case key == "content" && c == '[':
			err = l.content(s, &buf, &note)
		case key == "structuredContent":
			if err = s.copyValue(&buf, l.resultBytes, l.depth); isLimit(err) {
				note.structured = true
				return nil
			}
		default:
			err = s.copyValue(&buf, l.messageBytes-size, l.depth)
		}
		if isLimit(err) {
			problem = fmt.Errorf("%q is %w", key, err)
			return nil
		}
		if err != nil {
			return err
		}
		size += buf.Len()
		members = append(members, member{key, buf.Bytes()})
		return nil
	})
	if err != nil {
		return err
	}
	if problem != nil {
		return problem
	}
	members = taskMeta(members) // a CreateTaskResult's task, which the SDK would drop (task_remote.go)
	if tools {
		add := map[string]any{metaGuarded: true}
		if toolsOut > 0 {
			add[metaToolsOut] = toolsOut
		}
		members = withMeta(members, add)
	}
	if text := note.String(l); text != "" {
		prependNote(members, text)
	}
	writeObject(w, members)
	return nil
}

// withMeta returns members with add merged into their _meta object (one
// is added if there is none, and one that is not an object is replaced),
// the server's own keys under the guard's prefix dropped. A _meta given
// twice is merged into one, in order: the SDK's decoder merges the
// objects of a repeated member, so a second _meta would otherwise bring
// back the keys dropped from the first.
func withMeta(members []member, add map[string]any) []member {
	meta := map[string]json.RawMessage{}
	i := -1
	kept := members[:0]
	for _, m := range members {
		if m.key != "_meta" {
			kept = append(kept, m)
			continue
		}
		// A _meta that is not an object counts for nothing; null, which
		// Unmarshal takes as a nil map, once reached the assignment below
		// and panicked in the guard's reader (a server's task handle or
		// tools/list page with "_meta": null brought its client down).
		var one map[string]json.RawMessage
		if json.Unmarshal(m.raw, &one) == nil {
			maps.Copy(meta, one)
		}
		if i < 0 {
			i = len(kept)
			kept = append(kept, m)
		}
	}
	members = kept
	for k := range meta {
		if strings.HasPrefix(k, metaPrefix) {
			delete(meta, k)
		}
	}
	for k, v := range add {
		meta[k], _ = json.Marshal(v)
	}
	raw, _ := json.Marshal(meta)
	if i < 0 {
		if len(add) == 0 {
			return members
		}
		return append(members, member{"_meta", raw})
	}
	members[i].raw = raw
	return members
}

// toolCost is the least a tool of a list page counts for against the
// page's size: the SDK decodes each tool, then encodes its input schema and
// decodes it again to check it, at a cost of tens of KiB whatever the
// tool's size, so a page of millions of empty tools ("{}", 3 bytes each)
// would cost it minutes and gigabytes. At this cost a page of the default
// size keeps 8,192 tools.
const toolCost = 1 << 10

// tools reads the tools of a tools/list page. A tool that cannot be kept
// within the bounds is written as a stub that keeps its name and says why,
// so that RemoteTools can name it; once the page is over its size, the
// tools that follow are counted, not kept.
func (l *limits) tools(s *jsonScanner, w *bytes.Buffer) (out int, err error) {
	w.WriteByte('[')
	n := 0
	err = s.array(func(int) error {
		// Each tool kept counts as at least toolCost bytes: what the SDK
		// spends on a tool is not in proportion to its bytes.
		room := l.messageBytes - max(w.Len(), n*toolCost)
		if room <= 0 {
			out++
			return s.skipValue()
		}
		var t bytes.Buffer
		if err := l.tool(s, &t, room); err != nil {
			return err
		}
		if t.Len() == 0 {
			return nil
		}
		if n > 0 {
			w.WriteByte(',')
		}
		n++
		w.Write(t.Bytes())
		return nil
	})
	w.WriteByte(']')
	return out, err
}

// tool reads one tool of a list within room bytes.
func (l *limits) tool(s *jsonScanner, w *bytes.Buffer, room int) error {
	if c, err := s.peek(); err != nil {
		return eof(err)
	} else if c != '{' {
		return s.skipValue() // not a tool; the SDK would drop it
	}
	var (
		members     []member
		name        string
		taskSupport string
		problem     string
		outputOut   string // why the output schema was left out
		size        int
	)
	err := s.object(func(key string) error {
		switch key {
		case "name":
			if c, _ := s.peek(); c == '"' {
				v, total, err := s.str(256)
				if err != nil {
					return err
				}
				name = string(v)
				if total > len(v) {
					problem = "its name is " + byteSize(total) + " long"
				}
				var buf bytes.Buffer
				writeJSONString(&buf, name)
				members = append(members, member{key, buf.Bytes()})
				return nil
			}
		case "execution":
			var buf bytes.Buffer
			if err := s.copyValue(&buf, fieldBytes, 2); err != nil {
				if isLimit(err) {
					return nil
				}
				return err
			}
			// Read by exact names, as MCP's keys are (encoding/json into a
			// struct would take "TASKSUPPORT" for taskSupport).
			var e map[string]json.RawMessage
			_ = json.Unmarshal(buf.Bytes(), &e)
			var ts string
			if json.Unmarshal(e["taskSupport"], &ts) == nil {
				taskSupport = ts
			}
			members = append(members, member{key, buf.Bytes()})
			return nil
		}
		if problem != "" {
			return s.skipValue()
		}
		var buf bytes.Buffer
		err := s.copyValue(&buf, room-size, l.depth)
		why := ""
		switch {
		case errors.Is(err, errTooDeep):
			why = fmt.Sprintf("its %s nests deeper than %d levels", keyWords(key), l.depth)
		case errors.Is(err, errOverBudget):
			why = fmt.Sprintf("its %s does not fit in the %s a tools/list page may take", keyWords(key), byteSize(l.messageBytes))
		case err != nil:
			return err
		}
		switch {
		case why != "" && key == "outputSchema":
			outputOut = why // the tool is kept without it
			return nil
		case why != "":
			problem = why
			return nil
		}
		size += buf.Len()
		members = append(members, member{key, buf.Bytes()})
		return nil
	})
	if err != nil {
		return err
	}
	if problem != "" {
		var buf bytes.Buffer
		writeJSONString(&buf, name)
		members = []member{{"name", buf.Bytes()}, {"inputSchema", []byte(`{"type":"object"}`)}}
		members = withMeta(members, map[string]any{metaRefused: problem})
	} else {
		add := map[string]any{}
		if taskSupport != "" {
			add[metaTaskSupport] = taskSupport
		}
		if outputOut != "" {
			add[metaOutputSchemaOut] = outputOut
		}
		members = withMeta(members, add)
	}
	writeObject(w, members)
	return nil
}

func keyWords(key string) string {
	switch key {
	case "inputSchema":
		return "input schema"
	case "outputSchema":
		return "output schema"
	}
	return strconv.Quote(key)
}

// contentNote counts what content reads and leaves out of a result, for
// the note that says so. A result with no content member gets no note.
type contentNote struct {
	kept, blocksOut int
	textOut         int   // bytes of text left out of blocks that were kept
	bytesOut        int64 // bytes of the blocks left out, as sent
	structured      bool  // structuredContent left out
}

func (n *contentNote) String(l *limits) string {
	if n.blocksOut == 0 && n.textOut == 0 && !n.structured {
		return ""
	}
	var parts []string
	if n.textOut > 0 {
		parts = append(parts, byteSize(n.textOut)+" of text")
	}
	if n.blocksOut > 0 {
		parts = append(parts, fmt.Sprintf("%d more content blocks (%s)", n.blocksOut, byteSize(int(min(n.bytesOut, 1<<62)))))
	}
	if n.structured {
		parts = append(parts, "its structured content")
	}
	return fmt.Sprintf("[This result is incomplete: the MCP server sent more than this host accepts from a remote tool (%s in at most %d blocks), so %s of it were left out.]",
		byteSize(l.resultBytes), l.resultBlocks, strings.Join(parts, ", "))
}

// prependNote puts a text block first in the content member of a result,
// where the registry's own cut of the result keeps it.
func prependNote(members []member, text string) {
	var block bytes.Buffer
	block.WriteString(`[{"type":"text","text":`)
	writeJSONString(&block, text)
	block.WriteByte('}')
	for i, m := range members {
		if m.key != "content" {
			continue
		}
		rest := bytes.TrimPrefix(m.raw, []byte("["))
		if len(rest) > 1 {
			block.WriteByte(',')
		}
		members[i].raw = append(block.Bytes(), rest...)
		return
	}
}

// content reads the content blocks of a tools/call result: text is kept up
// to the result's budget, cut on a character boundary where it runs out;
// a block whose data (an image, audio, a blob) does not fit is left out,
// as are blocks past the count allowed. What was left out is counted in
// note; nothing of it is held.
func (l *limits) content(s *jsonScanner, w *bytes.Buffer, note *contentNote) error {
	budget := l.resultBytes
	w.WriteByte('[')
	err := s.array(func(int) error {
		start := s.n
		if note.kept >= l.resultBlocks {
			note.blocksOut++
			err := s.skipValue()
			note.bytesOut += s.n - start
			return err
		}
		var b bytes.Buffer
		kept, err := l.block(s, &b, &budget, note)
		if err != nil {
			return err
		}
		if !kept {
			note.blocksOut++
			note.bytesOut += s.n - start
			return nil
		}
		if note.kept > 0 {
			w.WriteByte(',')
		}
		note.kept++
		w.Write(b.Bytes())
		return nil
	})
	w.WriteByte(']')
	return err
}

// block reads one content block, spending *budget on its text and data.
// It reports whether the block was kept.
func (l *limits) block(s *jsonScanner, w *bytes.Buffer, budget *int, note *contentNote) (bool, error) {
	if c, err := s.peek(); err != nil {
		return false, eof(err)
	} else if c != '{' {
		return false, s.skipValue()
	}
	var members []member
	keep := true
	err := s.object(func(key string) error {
		if !keep {
			return s.skipValue()
		}
		var buf bytes.Buffer
		c, err := s.peek()
		if err != nil {
			return eof(err)
		}
		switch {
		case key == "text" && c == '"':
			v, total, err := s.str(*budget)
			if err != nil {
				return err
			}
			*budget -= len(v)
			text := string(v)
			if total > len(v) {
				note.textOut += total - len(v)
				text += "\n[… " + byteSize(total-len(v)) + " of this text left out]"
			}
			writeJSONString(&buf, text)
		case (key == "data" || key == "blob") && c == '"':
			v, total, err := s.str(*budget)
			if err != nil {
				return err
			}
			if total > len(v) {
				keep = false
				return nil
			}
			*budget -= len(v)
			writeJSONString(&buf, string(v))
		case key == "resource" && c == '{':
			// An embedded resource: its text or blob, as a block's.
			kept, err := l.block(s, &buf, budget, note)
			if err != nil {
				return err
			}
			if !kept {
				keep = false
				return nil
			}
		default:
			if err := s.copyValue(&buf, min(fieldBytes, *budget), 16); err != nil {
				if isLimit(err) {
					keep = false
					return nil
				}
				return err
			}
			*budget -= buf.Len()
		}
		members = append(members, member{key, buf.Bytes()})
		return nil
	})
	if err != nil || !keep {
		return false, err
	}
	writeObject(w, members)
	return true, nil
}

// byteSize says n bytes exactly: in whole MiB or KiB where n is a whole
// number of them (a bound: "4 KiB"), else in bytes ("4169 bytes"). A size
// rounded to a unit would say the same of sizes that differ by most of
// one, and a note of what was cut must say how much it was.
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	case n == 1:
		return "1 byte"
	}
	return strconv.Itoa(n) + " bytes"
}

// readMessages rewrites the messages of r to w, one after another, each
// followed by a newline, until r ends.
func (l *limits) readMessages(s *jsonScanner, w *bytes.Buffer) error {
	err := l.message(s, w)
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		w.Reset() // a message that could not be read is no message: none of it goes on
		return err
	}
	if w.Len() > 0 {
		w.WriteByte('\n')
	}
	return nil
}
