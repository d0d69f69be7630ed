package toolmcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
)

// sseGuard is a server-sent event stream read through the guard: the data
// of each event ("message" events: one JSON-RPC message each) is rewritten
// as a stream message is, as it arrives; its other fields pass as they are.
type sseGuard struct {
	src    io.ReadCloser
	r      *bufio.Reader
	scan   *jsonScanner
	limits *limits
	out    bytes.Buffer
	err    error
}

// maxSSELine bounds an SSE line that is not a message's data (an event
// name, an ID, the endpoint of the older SSE transport).
const maxSSELine = 64 << 10

func newSSEGuard(src io.ReadCloser, l *limits) *sseGuard {
	g := &sseGuard{src: src, r: bufio.NewReaderSize(src, 32<<10), limits: l}
	g.scan = &jsonScanner{r: bufio.NewReaderSize(nil, 32<<10)}
	return g
}

func (g *sseGuard) Close() error { return g.src.Close() }

func (g *sseGuard) Read(p []byte) (int, error) {
	for g.out.Len() == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.out.Reset()
		g.err = g.event()
	}
	return g.out.Read(p)
}

// event reads one event and writes what passes of it to g.out.
func (g *sseGuard) event() error {
	var head bytes.Buffer // the fields other than data, as sent
	name := ""
	sawData := false
	for {
		field, err := g.field()
		if err != nil {
			if err == io.EOF && head.Len() == 0 && !sawData {
				return io.EOF
			}
			return err
		}
		switch {
		case field == "":
			// The blank line: the event is complete.
			if head.Len() > 0 || g.out.Len() > 0 {
				g.out.Write(head.Bytes())
				g.out.WriteByte('\n')
			}
			return nil
		case field == "data" && (name == "" || name == "message") && !sawData:
			sawData = true
			if err := g.data(); err != nil {
				return err
			}
		case field == "data":
			// Another event's data, or a second data run: passed as it is.
			line, err := g.value()
			if err != nil {
				return err
			}
			head.WriteString("data:" + line + "\n")
		default:
			line, err := g.value()
			if err != nil {
				return err
			}
			if field == "event" {
				name = trimSpace1(line)
			}
			if field != "" && field[0] != ':' {
				head.WriteString(field + ":" + line + "\n")
			}
		}
	}
}

// field reads the name of the next line's field: "" for a blank line, a
// name starting with ':' for a comment. The reader is left after the colon.
func (g *sseGuard) field() (string, error) {
	var name []byte
	for len(name) <= 64 {
		c, err := g.r.ReadByte()
		if err != nil {
			if len(name) > 0 && err == io.EOF {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		switch c {
		case ':':
			if len(name) == 0 {
				return ":", nil
			}
			return string(name), nil
		case '\n':
			if len(name) == 0 {
				return "", nil
			}
			_ = g.r.UnreadByte()
			return string(name), nil
		case '\r':
			if b, _ := g.r.Peek(1); len(b) == 1 && b[0] == '\n' {
				_, _ = g.r.ReadByte()
			}
			if len(name) == 0 {
				return "", nil
			}
			_ = g.r.UnreadByte()
			return string(name), nil
		}
		name = append(name, c)
	}
	return "", errors.New("toolmcp: an SSE field name of more than 64 bytes from the MCP server")
}

// value reads the rest of a line that is not a message's data.
func (g *sseGuard) value() (string, error) {
	var line []byte
	for {
		c, err := g.r.ReadByte()
		if err != nil {
			return "", eof(err)
		}
		if c == '\n' {
			return string(line), nil
		}
		if c == '\r' {
			if b, _ := g.r.Peek(1); len(b) == 1 && b[0] == '\n' {
				_, _ = g.r.ReadByte()
			}
			return string(line), nil
		}
		if len(line) >= maxSSELine {
			return "", errors.New("toolmcp: an SSE line of more than 64 KiB from the MCP server")
		}
		line = append(line, c)
	}
}

// data rewrites the data lines of a message event, which the reader is
// at, as one message, and writes them as one data line.
func (g *sseGuard) data() error {
	d := &sseData{r: g.r}
	if b, _ := g.r.Peek(1); len(b) == 1 && b[0] == ' ' {
		_, _ = g.r.ReadByte()
	}
	g.scan.r.Reset(d)
	var msg bytes.Buffer
	err := g.limits.message(g.scan, &msg)
	// What is left of the data (white space, or the rest of a message that
	// could not be read) is read and dropped.
	if _, cerr := io.Copy(io.Discard, g.scan.r); cerr != nil {
		return cerr
	}
	if d.err != nil && d.err != io.EOF {
		return d.err
	}
	var syn *syntaxError
	switch {
	case err == nil, err == io.EOF, errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &syn):
		// A message that is not JSON is dropped, not the stream.
	default:
		return err
	}
	if err == nil && msg.Len() > 0 {
		g.out.WriteString("data: ")
		g.out.Write(msg.Bytes())
		g.out.WriteByte('\n')
	}
	return nil
}

// sseData reads the data of one event: the rest of the current data line,
// and of each data line that follows it, joined by newlines, as SSE joins
// them. It ends at the first line that is not data, which it leaves
// unread.
type sseData struct {
	r   *bufio.Reader
	n   int64
	err error
}

func (d *sseData) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n := 0
	for n < len(p) {
		// The rest of the line as it lies in the read buffer, at once.
		if b, _ := d.r.Peek(max(d.r.Buffered(), 1)); len(b) > 0 {
			end := bytes.IndexAny(b, "\r\n")
			if end < 0 {
				end = len(b)
			}
			if end > 0 {
				k := copy(p[n:], b[:end])
				_, _ = d.r.Discard(k)
				n += k
				if d.n += int64(k); d.n > maxScan {
					d.err = errEndless
					break
				}
				continue
			}
		}
		c, err := d.r.ReadByte()
		if err != nil {
			d.err = err
			break
		}
		if c == '\r' {
			if b, _ := d.r.Peek(1); len(b) == 1 && b[0] == '\n' {
				_, _ = d.r.ReadByte()
			}
		}
		// The end of a data line: another one continues the data.
		if b, _ := d.r.Peek(5); string(b) != "data:" {
			d.err = io.EOF
			break
		}
		_, _ = d.r.Discard(5)
		if b, _ := d.r.Peek(1); len(b) == 1 && b[0] == ' ' {
			_, _ = d.r.ReadByte()
		}
		p[n] = '\n'
		n++
	}
	if n > 0 {
		return n, nil
	}
	return 0, d.err
}

func trimSpace1(s string) string {
	if len(s) > 0 && s[0] == ' ' {
		return s[1:]
	}
	return s
}

// baseMediaType is the media type of a Content-Type, without parameters.
func baseMediaType(v string) string {
	t, _, err := mime.ParseMediaType(v)
	if err != nil {
		return ""
	}
	return t
}
