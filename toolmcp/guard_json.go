package toolmcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON that a remote server sends is read here once, as a stream,
// before the SDK decodes any of it: what the guard keeps is copied out
// within its bounds, and the rest is scanned and dropped, never held.
// The SDK's own decoder would first hold the whole message (and refuse
// one nested deeper than 1000 levels, with every tool in it).

var (
	// errOverBudget: a value does not fit in the bytes it may take.
	errOverBudget = errors.New("over the size limit")
	// errTooDeep: a value nests deeper than allowed.
	errTooDeep = errors.New("nested too deeply")
	// errEndless: a message goes on past what any message may be; the
	// connection to the server is closed.
	errEndless = errors.New("toolmcp: the MCP server sent a message of more than 1 GiB; the connection is closed")
)

// maxScan bounds the bytes of one message the guard reads at all, kept or
// not: a server that sends more is cut off rather than read for ever.
const maxScan = 1 << 30

// maxKey bounds an object key; longer keys are no keys an MCP message has.
const maxKey = 1 << 10

// jsonScanner reads one JSON value at a time from a stream.
type jsonScanner struct {
	r *bufio.Reader
	n int64 // bytes read of the current message

	// The start of the current message as it lay in the read buffer, for
	// an error to quote (see markHead).
	head    [maxHead]byte
	headLen int
	headCut bool // the message goes on past head
}

// maxHead bounds the start of a message an error quotes.
const maxHead = 64

func newJSONScanner(r io.Reader) *jsonScanner {
	return &jsonScanner{r: bufio.NewReaderSize(r, 32<<10)}
}

// syntaxError is JSON the scanner cannot read.
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return "invalid JSON from the MCP server: " + e.msg }

func (s *jsonScanner) fail(format string, args ...any) error {
	return &syntaxError{fmt.Sprintf(format, args...)}
}

// markHead keeps the start of the message the scanner is at: what of its
// line is in the read buffer, up to maxHead bytes. It copies no more than
// that, and allocates nothing.
func (s *jsonScanner) markHead() {
	b, _ := s.r.Peek(min(s.r.Buffered(), maxHead+1))
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	s.headCut = len(b) > maxHead
	if s.headCut {
		n := maxHead
		for n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		b = b[:n]
	}
	s.headLen = copy(s.head[:], b)
}

// notJSON is a message that could not be read as JSON, for the error the
// SDK, and then the caller of Connect or of a call, reports: it quotes
// the start of the line (escaped, bounded) and says what was wrong there,
// rather than only the byte where reading stopped.
type notJSON struct {
	head    string
	headCut bool
	at      int64 // bytes of the message read when it failed
	err     *syntaxError
	process bool // the line came from a server program's standard output
}

func (e *notJSON) Error() string {
	quoted := strconv.QuoteToASCII(e.head)
	if e.headCut {
		quoted += "…"
	}
	msg := "toolmcp: the MCP server sent a line that is not JSON: " + quoted + " (" + e.err.msg + ", at byte " + strconv.FormatInt(e.at, 10) + ")"
	if e.process {
		msg += "; a server on stdio may write only MCP messages to its standard output (its logs belong on standard error), and the connection cannot go on after a line that is not one"
	}
	return msg
}

func (e *notJSON) Unwrap() error { return e.err }

// quoteByte shows a byte in an error: as itself if it is printable
// ASCII, else by its value (it may be part of a character).
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02X", c)
}

func (s *jsonScanner) readByte() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		if err == io.EOF {
			return 0, io.ErrUnexpectedEOF
		}
		return 0, err
	}
	if s.n++; s.n > maxScan {
		return 0, errEndless
	}
	return c, nil
}

// peek returns the next byte that is not white space, without reading it.
// At the end of the stream it returns io.EOF.
func (s *jsonScanner) peek() (byte, error) {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\n', '\r':
			_, _ = s.r.ReadByte()
			if s.n++; s.n > maxScan {
				return 0, errEndless
			}
			continue
		}
		return b[0], nil
	}
}

// expect reads the next byte that is not white space and checks it is c.
func (s *jsonScanner) expect(c byte) error {
	got, err := s.peek()
	if err != nil {
		return eof(err)
	}
	if got != c {
		return s.fail("%s where %s belongs", quoteByte(got), quoteByte(c))
	}
	_, err = s.readByte()
	return err
}

func eof(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// object reads an object member by member: member is called with each key,
// the scanner at its value, and must read the value.
func (s *jsonScanner) object(member func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		c, err := s.peek()
		if err != nil {
			return eof(err)
		}
		if c == '}' {
			_, err := s.readByte()
			return err
		}
		if !first {
			if err := s.expect(','); err != nil {
				return err
			}
		}
		if err := s.expect('"'); err != nil {
			return err
		}
		key, total, err := s.stringBody(maxKey)
		if err != nil {
			return err
		}
		if total > maxKey {
			return s.fail("an object key of %d bytes", total)
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := member(string(key)); err != nil {
			return err
		}
	}
}

// array reads an array element by element: element is called with the
// scanner at each element, and must read it.
func (s *jsonScanner) array(element func(i int) error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	for i := 0; ; i++ {
		c, err := s.peek()
		if err != nil {
			return eof(err)
		}
		if c == ']' {
			_, err := s.readByte()
			return err
		}
		if i > 0 {
			if err := s.expect(','); err != nil {
				return err
			}
		}
		if err := element(i); err != nil {
			return err
		}
	}
}

// str reads a string, keeping at most keep bytes of it (cut on a
// character boundary), and returns what it kept and the length of the
// whole string.
func (s *jsonScanner) str(keep int) ([]byte, int, error) {
	if err := s.expect('"'); err != nil {
		return nil, 0, err
	}
	return s.stringBody(keep)
}

// stringBody reads the rest of a string whose opening quote was read.
// Escapes are decoded; invalid UTF-8 and lone surrogates become U+FFFD,
// as encoding/json reads them.
func (s *jsonScanner) stringBody(keep int) (kept []byte, total int, err error) {
	pending := rune(-1) // a high surrogate, escaped, waiting for its low half
	add := func(r rune) {
		if pending >= 0 {
			high := pending
			pending = -1
			if r >= 0xDC00 && r < 0xE000 {
				addRune(&kept, &total, keep, utf16.DecodeRune(high, r))
				return
			}
			addRune(&kept, &total, keep, utf8.RuneError)
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			pending = r
		case r >= 0xDC00 && r < 0xE000:
			addRune(&kept, &total, keep, utf8.RuneError)
		default:
			addRune(&kept, &total, keep, r)
		}
	}
	var buf [utf8.UTFMax]byte
	for {
		// A run of plain ASCII, the bulk of most strings, is taken as it
		// lies in the read buffer.
		if pending < 0 {
			if run := s.plainRun(); len(run) > 0 {
				if total == len(kept) && keep-total > 0 {
					kept = append(kept, run[:min(len(run), keep-total)]...)
				}
				total += len(run)
				if _, err := s.r.Discard(len(run)); err != nil {
					return nil, 0, err
				}
				if s.n += int64(len(run)); s.n > maxScan {
					return nil, 0, errEndless
				}
				continue
			}
		}
		c, err := s.readByte()
		if err != nil {
			return nil, 0, err
		}
		switch {
		case c == '"':
			if pending >= 0 {
				addRune(&kept, &total, keep, utf8.RuneError)
			}
			return kept, total, nil
		case c == '\\':
			e, err := s.readByte()
			if err != nil {
				return nil, 0, err
			}
			switch e {
			case '"', '\\', '/':
				add(rune(e))
			case 'b':
				add('\b')
			case 'f':
				add('\f')
			case 'n':
				add('\n')
			case 'r':
				add('\r')
			case 't':
				add('\t')
			case 'u':
				var h [4]byte
				for i := range h {
					if h[i], err = s.readByte(); err != nil {
						return nil, 0, err
					}
				}
				v, perr := strconv.ParseUint(string(h[:]), 16, 32)
				if perr != nil {
					return nil, 0, s.fail("invalid escape \\u%s", h[:])
				}
				add(rune(v))
			default:
				return nil, 0, s.fail("invalid escape \\%c", e)
			}
		case c < 0x20:
			return nil, 0, s.fail("a control character in a string")
		case c < utf8.RuneSelf:
			add(rune(c))
		default:
			// A multi-byte sequence. An invalid one is one U+FFFD for its
			// first byte, and the bytes after it are read on their own, as
			// encoding/json reads them.
			buf[0] = c
			rest, _ := s.r.Peek(utf8SeqLen(c) - 1)
			n := 1 + copy(buf[1:], rest)
			r, size := utf8.DecodeRune(buf[:n])
			if size > 1 {
				_, _ = s.r.Discard(size - 1)
				s.n += int64(size - 1)
			}
			add(r)
		}
	}
}

// plainRun returns the bytes at the head of the read buffer (filling it
// if it is empty) that a string takes as they are: printable ASCII other
// than a quote or a backslash. It does not read them.
func (s *jsonScanner) plainRun() []byte {
	n := s.r.Buffered()
	if n == 0 {
		if _, err := s.r.Peek(1); err != nil {
			return nil
		}
		n = s.r.Buffered()
	}
	b, _ := s.r.Peek(n)
	for i, c := range b {
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return b[:i]
		}
	}
	return b
}

// addRune counts r in total, and appends it to kept as long as everything
// so far fits in keep bytes.
func addRune(kept *[]byte, total *int, keep int, r rune) {
	n := utf8.RuneLen(r)
	if n < 0 {
		r, n = utf8.RuneError, 3
	}
	if *total+n <= keep && *total == len(*kept) {
		*kept = utf8.AppendRune(*kept, r)
	}
	*total += n
}

// utf8SeqLen is the length of the UTF-8 sequence that starts with c; 1
// for a byte that starts none.
func utf8SeqLen(c byte) int {
	switch {
	case c&0xE0 == 0xC0:
		return 2
	case c&0xF0 == 0xE0:
		return 3
	case c&0xF8 == 0xF0:
		return 4
	}
	return 1
}

// scalar reads a number, true, false or null, and returns it as written.
func (s *jsonScanner) scalar() ([]byte, error) {
	if _, err := s.peek(); err != nil {
		return nil, eof(err)
	}
	var lit []byte
	for len(lit) <= 100 {
		b, err := s.r.Peek(1)
		if err != nil || !scalarByte(b[0]) {
			break
		}
		c, err := s.readByte()
		if err != nil {
			return nil, err
		}
		lit = append(lit, c)
	}
	switch string(lit) {
	case "true", "false", "null":
		return lit, nil
	case "":
		c, _ := s.peek()
		return nil, s.fail("%s cannot begin a JSON value", quoteByte(c))
	}
	if !validNumber(lit) {
		return nil, s.fail("%q is not a JSON value", cut(string(lit), 40))
	}
	return lit, nil
}

func scalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E'
}

// validNumber reports whether b is a JSON number.
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(b)
}

// copyValue copies the next value to w as compact JSON, as long as w stays
// within limit bytes (give or take the closing brackets) and the value
// within depth more levels of nesting; past either, it reads the rest of
// the value without keeping it, and reports errOverBudget or errTooDeep.
// What it wrote to w is then not valid JSON.
func (s *jsonScanner) copyValue(w *bytes.Buffer, limit, depth int) error {
	c, err := s.peek()
	if err != nil {
		return eof(err)
	}
	if (c == '{' || c == '[') && depth <= 0 {
		if err := s.skipValue(); err != nil {
			return err
		}
		return errTooDeep
	}
	var over error
	fits := func() bool {
		if w.Len() > limit {
			over = errOverBudget
		}
		return over == nil
	}
	// nested copies a member or element; past a bound, it notes which and
	// the rest of the container is skipped.
	nested := func() error {
		if err := s.copyValue(w, limit, depth-1); err != nil {
			if !isLimit(err) {
				return err
			}
			over = err
		}
		return nil
	}
	switch c {
	case '{':
		w.WriteByte('{')
		n := 0
		err := s.object(func(key string) error {
			if over != nil {
				return s.skipValue()
			}
			if n > 0 {
				w.WriteByte(',')
			}
			n++
			writeJSONString(w, key)
			w.WriteByte(':')
			if !fits() {
				return s.skipValue()
			}
			return nested()
		})
		if err != nil {
			return err
		}
		w.WriteByte('}')
	case '[':
		w.WriteByte('[')
		err := s.array(func(i int) error {
			if over != nil || !fits() {
				return s.skipValue()
			}
			if i > 0 {
				w.WriteByte(',')
			}
			return nested()
		})
		if err != nil {
			return err
		}
		w.WriteByte(']')
	case '"':
		room := limit - w.Len()
		v, total, err := s.str(max(room, 0))
		if err != nil {
			return err
		}
		if total > len(v) {
			return errOverBudget
		}
		writeJSONString(w, string(v))
	default:
		lit, err := s.scalar()
		if err != nil {
			return err
		}
		w.Write(lit)
	}
	if over != nil {
		return over
	}
	if !fits() {
		return over
	}
	return nil
}

// skipValue reads the next value without keeping any of it. It counts
// nesting rather than keeping a stack, so that no depth costs memory; it
// checks less than copyValue does, which is enough to find where the value
// ends.
func (s *jsonScanner) skipValue() error {
	depth := 0
	for {
		c, err := s.peek()
		if err != nil {
			return eof(err)
		}
		switch c {
		case '{', '[':
			_, _ = s.readByte()
			depth++
			continue
		case '}', ']':
			if depth == 0 {
				return s.fail("%s where a value belongs", quoteByte(c))
			}
			_, _ = s.readByte()
			depth--
		case ',', ':':
			if depth == 0 {
				return s.fail("%s where a value belongs", quoteByte(c))
			}
			_, _ = s.readByte()
			continue
		case '"':
			_, _ = s.readByte()
			if _, _, err := s.stringBody(0); err != nil {
				return err
			}
		default:
			if _, err := s.scalar(); err != nil {
				return err
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// writeJSONString writes s as a JSON string: quotes, backslashes and
// control characters escaped, the rest as it is (s is valid UTF-8).
func writeJSONString(w *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		w.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			w.WriteByte('\\')
			w.WriteByte(c)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		default:
			w.WriteString(`\u00`)
			w.WriteByte(hex[c>>4])
			w.WriteByte(hex[c&0xf])
		}
		start = i + 1
	}
	w.WriteString(s[start:])
	w.WriteByte('"')
}
