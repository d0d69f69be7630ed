package toolmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// guardAll runs a stream of messages through the guard and returns what
// comes out, one message a line.
func guardAll(t testing.TB, in string, l *limits) []string {
	t.Helper()
	r := newGuardReader(io.NopCloser(strings.NewReader(in)), l)
	out, err := io.ReadAll(r)
	if err != nil && err != io.EOF {
		if syn := (*syntaxError)(nil); !errors.As(err, &syn) && err != io.ErrUnexpectedEOF && err != errEndless {
			t.Fatalf("reading %q: %v", cut(in, 200), err)
		}
	}
	var msgs []string
	for _, line := range strings.Split(string(out), "\n") {
		if line != "" {
			msgs = append(msgs, line)
		}
	}
	return msgs
}

func sameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("the guard wrote invalid JSON %q: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Messages within the bounds pass as they are (written compactly); a
// tools/list result is marked as guarded.
func TestGuardPassesMessages(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1.5e0,"total":3,"message":"a\u00e9\ud83d\ude00\n\"q\""}}`, ""},
		{`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"ok?","requestedSchema":{"type":"object","properties":{}}}}`, ""},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"},{"type":"image","data":"iVBO","mimeType":"image/png"},` +
			`{"type":"resource","resource":{"uri":"file:///a","text":"t","mimeType":"text/plain"}},{"type":"resource_link","uri":"file:///b","name":"b"}],` +
			`"structuredContent":{"a":[1,2,{"b":null}]},"isError":false}}`, ""},
		{`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"_meta":{"k":1,"io.github.toolbelt-go/refused":"spoof"}}],"nextCursor":"c"}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"_meta":{"k":1}}],"nextCursor":"c","_meta":{"io.github.toolbelt-go/guarded":true}}}`},
		{`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`, ""},
		// A _meta given twice is one, the guard's keys dropped from both
		// (the SDK's decoder would merge the two).
		{`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"_meta":{"io.github.toolbelt-go/refused":"spoof","a":1},"_meta":{"b":2}}]}}`,
			`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"_meta":{"a":1,"b":2}}],"_meta":{"io.github.toolbelt-go/guarded":true}}}`},
		// execution.taskSupport by its exact name only.
		{`{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"execution":{"TASKSUPPORT":"required"}},{"name":"u","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"execution":{"TASKSUPPORT":"required"}},` +
				`{"name":"u","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"},"_meta":{"io.github.toolbelt-go/taskSupport":"required"}}],"_meta":{"io.github.toolbelt-go/guarded":true}}}`},
	}
	for _, tt := range tests {
		got := guardAll(t, tt.in+"\n", (*GuardOptions)(nil).limits())
		if len(got) != 1 {
			t.Fatalf("%s: %d messages out", tt.in, len(got))
		}
		want := tt.want
		if want == "" {
			want = tt.in
		}
		sameJSON(t, got[0], want)
	}
}

// Strings are read as encoding/json reads them, escapes, surrogate pairs,
// lone surrogates and invalid UTF-8 included.
func TestGuardStrings(t *testing.T) {
	for _, s := range []string{
		`"plain"`, `"\u00e9\u4e2d\ud83d\ude00"`, `"\ud800"`, `"\ud800x"`, `"\udc00\ud800"`, `"\ud800\ud800\udc00"`,
		"\"\xff\xfe\"", "\"\xe4\xb8\"", `"\/\b\f\n\r\t\\\""`, "\"\u2028\"",
	} {
		sc := newJSONScanner(strings.NewReader(s))
		got, total, err := sc.str(1 << 20)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		if string(got) != want || total != len(want) {
			t.Errorf("%q: got %q (%d), want %q", s, got, total, want)
		}
	}
	for _, s := range []string{`"\x"`, `"\u12g4"`, "\"a\x01\"", `"abc`} {
		if _, _, err := newJSONScanner(strings.NewReader(s)).str(100); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

// A string cut to a budget ends on a character boundary.
func TestGuardCutsOnCharacters(t *testing.T) {
	s := strings.Repeat("aé中😀", 100)
	enc, _ := json.Marshal(s)
	for keep := range 40 {
		got, total, err := newJSONScanner(bytes.NewReader(enc)).str(keep)
		if err != nil || total != len(s) || len(got) > keep || !utf8.Valid(got) || !strings.HasPrefix(s, string(got)) {
			t.Fatalf("keep %d: %q %d %v", keep, got, total, err)
		}
	}
}

// A response over the bounds becomes an error response to its request; a
// request or notification of the server's over them is dropped; the
// stream reads on after either.
func TestGuardOverBounds(t *testing.T) {
	l := &limits{resultBytes: 100, resultBlocks: 2, messageBytes: 200, depth: 8}
	big := strings.Repeat("x", 1000)
	deep := strings.Repeat("[", 50) + strings.Repeat("]", 50)
	in := `{"jsonrpc":"2.0","result":{"contents":[{"text":"` + big + `"}]},"id":3}` + "\n" +
		`{"jsonrpc":"2.0","id":4,"result":{"x":` + deep + `}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"}}` + "\n" +
		`{"jsonrpc":"2.0","params":{"x":` + deep + `},"id":9,"method":"sampling/createMessage"}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"
	got := guardAll(t, in, l)
	if len(got) != 3 {
		t.Fatalf("%d messages out, want 3: %q", len(got), got)
	}
	for i, id := range []string{"3", "4"} {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *jsonrpc.Error  `json:"error"`
		}
		if err := json.Unmarshal([]byte(got[i]), &m); err != nil || string(m.ID) != id || m.Error == nil ||
			m.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(m.Error.Message, "GuardOptions") {
			t.Errorf("message %d: %s", i, got[i])
		}
	}
	sameJSON(t, got[2], `{"jsonrpc":"2.0","id":5,"result":{}}`)
}

// A value nested deeper than any stack is skipped without one.
func TestGuardSkipsAnyDepth(t *testing.T) {
	const n = 5_000_000
	in := `{"jsonrpc":"2.0","id":1,"result":{"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}`
	got := guardAll(t, in, (*GuardOptions)(nil).limits())
	if len(got) != 2 || !strings.Contains(got[0], "nested too deeply") {
		t.Fatalf("got %q", got)
	}
}

// The data of SSE events is rewritten as the messages of a stream are,
// over any number of data lines; other events and fields pass.
func TestGuardSSE(t *testing.T) {
	in := "event: endpoint\ndata: /message?session=1\n\n" +
		": a comment\nid: 7\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\ndata:  \"method\":\"n\"}\n\n" +
		"data: not json\n\n" +
		"retry: 10\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + strings.Repeat("y", 300) + "\"}]}}\r\n\r\n"
	g := newSSEGuard(io.NopCloser(strings.NewReader(in)), &limits{resultBytes: 100, resultBlocks: 10, messageBytes: 1 << 10, depth: 8})
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	events := strings.Split(strings.TrimSpace(string(out)), "\n\n")
	want := []string{
		"event: endpoint\ndata: /message?session=1",
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\nid: 7\nevent: message",
		// (The event whose data is not JSON is dropped.)
	}
	if len(events) != 3 {
		t.Fatalf("%d events: %q", len(events), out)
	}
	for i, w := range want {
		if events[i] != w {
			t.Errorf("event %d: %q, want %q", i, events[i], w)
		}
	}
	if !strings.HasPrefix(events[2], "data: ") || !strings.HasSuffix(events[2], "\nretry: 10") ||
		!strings.Contains(events[2], "of this text left out") || !strings.Contains(events[2], "This result is incomplete") {
		t.Errorf("event 2: %q", events[2])
	}
}

// FuzzGuard feeds the guard any stream: it never panics, never writes
// invalid JSON, and passes a small valid message that needs no rewriting
// as it is.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hé"},{"type":"image","data":"AAAA"}],"structuredContent":{"a":1}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}`,
		`[{"jsonrpc":"2.0","method":"a"},1,{"x":[[[[[[[[[[1]]]]]]]]]]}]`,
		`{"a":"\ud800\udc00\ud800","b":-0.5e-3,"c":[true,false,null]}` + "\n" + `{}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"inputSchema":[[[[[[[[[[[[]]]]]]]]]]]],"name":"deep"},{"name":"ok"}]}}`,
		`{"a":"` + strings.Repeat("z", 300) + `"}`,
		`{"a":1e999999,"b":01,"c":"\q"}`,
		`null`, // not a message: dropped
		"Server started on stdio\n" + `{"jsonrpc":"2.0","id":1,"result":{}}`, // a line that is not JSON ends the stream
		"[INFO] listening\n",
		`[{"jsonrpc":"2.0","method":"a"},oops]`,
		"\xe2\x80\xae\x1b[31m" + strings.Repeat("é", 40),
		// A remote task's handle (resultType "task"), whose task the guard
		// keeps in _meta for RemoteTools: well formed, with a taskId over
		// the bounds, of every wrong type, twice, beside a _meta that is
		// null or not an object; and a plain result that carries the
		// guard's own key (escaped, too), which is never the server's.
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t1","status":"working","pollIntervalMs":5,"ttlMs":null,"createdAt":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"` + strings.Repeat("t", 300) + `","status":"working"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"` + strings.Repeat("t", 100) + `","status":"` + strings.Repeat("w", 100) + `"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":{"a":[1,[2,[3]]]},"status":7}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":12,"pollIntervalMs":"soon"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"a","taskId":"b","resultType":"task"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t1","_meta":null}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"_meta":null}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t1","_meta":["x"]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t1","_meta":{"io.github.toolbelt-go/task":{"taskId":"other"}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"io.github.toolbelt-go/task":{"taskId":"t1"}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"io.github.toolbelt\u002dgo/task":{"taskId":"t1"},"k":1}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"io.github.toolbelt-go/task":{"taskId":"t1"}},"_meta":{"k":1}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t1","_meta":{"k":1},"_meta":null,"_meta":{"io.github.toolbelt-go/task":{"taskId":"t2"}}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"_meta":{"io.github.toolbelt-go/refused":"x"},"_meta":{}}],"_meta":{"io.github.toolbelt-go/guarded":false},"_meta":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","taskId":"t1","inputRequests":{"a":{"method":"elicitation/create"}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		l := &limits{resultBytes: 64, resultBlocks: 3, messageBytes: 256, depth: 6}
		for _, msg := range guardAll(t, string(in), l) {
			if !json.Valid([]byte(msg)) {
				t.Fatalf("invalid JSON out of %q: %q", in, msg)
			}
			if len(msg) > 4*l.messageBytes+512 {
				t.Fatalf("a message of %d bytes out of the bounds", len(msg))
			}
			// The guard's task key is the guard's: on a CreateTaskResult,
			// and only there, holding the task's members as they came.
			// Read as the SDK reads it, names matched exactly (encoding/json
			// would take "_mEta" for "_meta"; the SDK's decoder does not).
			if resultType, task, ok := guardTask(msg); ok && resultType != `"task"` {
				t.Fatalf("a %s result out of %q carries the guard's task %v", resultType, in, task)
			}
		}
		// A message that needs no rewriting: an object (null decodes into
		// a map too, but is no message), no result, an id and a method (if
		// any) of the kinds JSON-RPC has, within the bounds.
		var v map[string]any
		if len(in) < 200 && json.Unmarshal(in, &v) == nil && v != nil && v["result"] == nil && !bytes.Contains(in, []byte(`\u`)) && utf8.Valid(in) && rawDepth(in) <= 6 &&
			scalarOrAbsent(v["id"]) && scalarOrAbsent(v["method"]) {
			got := guardAll(t, string(in)+"\n", l)
			if len(got) != 1 {
				t.Fatalf("%q: %d messages out", in, len(got))
			}
			var w any
			_ = json.Unmarshal([]byte(got[0]), &w)
			if !reflect.DeepEqual(w, any(v)) {
				t.Fatalf("%q changed to %q", in, got[0])
			}
		}
	})
}

func scalarOrAbsent(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// rawDepth is the deepest nesting of brackets in a JSON text.
func rawDepth(b []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// A batch is one message: its members share the bound of one, so a server
// cannot send a thousand messages of nearly the bound each in one array
// and have the guard hold (and the SDK decode) all of them. Members past
// the bound are dropped; those within it pass.
func TestGuardBatchBounded(t *testing.T) {
	l := &limits{resultBytes: 512, resultBlocks: 10, messageBytes: 1024, depth: 16}
	batch := func(n int, member func(i int) string) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(member(i))
		}
		b.WriteString("]\n")
		return b.String()
	}
	pad := strings.Repeat("x", 700)
	tests := []struct {
		name     string
		in       string
		members  int // in the batch that comes out; -1: at most the bound allows
		maxBytes int
	}{
		{"small members pass", batch(3, func(i int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%d"}}`, i)
		}), 3, 1024},
		{"a thousand notifications near the bound", batch(1000, func(i int) string {
			return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + pad + `"}}`
		}), -1, 1024},
		{"a thousand responses near the bound", batch(1000, func(i int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"x":"%s"}}`, i, pad)
		}), -1, 1024 + 512},
		{"a thousand tools/call results", batch(1000, func(i int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}`, i, pad)
		}), -1, 1024 + 512},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := guardAll(t, tt.in, l)
			if len(got) != 1 {
				t.Fatalf("%d messages out, want one batch: %.300q", len(got), got)
			}
			var members []json.RawMessage
			if err := json.Unmarshal([]byte(got[0]), &members); err != nil {
				t.Fatalf("not a batch: %v: %.300s", err, got[0])
			}
			if len(got[0]) > tt.maxBytes {
				t.Errorf("the batch came out as %d bytes in %d members, over the bound of one message (%d)", len(got[0]), len(members), l.messageBytes)
			}
			if tt.members >= 0 && len(members) != tt.members {
				t.Errorf("%d members came out, want %d", len(members), tt.members)
			}
		})
	}
}

// The notes of what the guard left out of a result say it in bytes, not
// rounded to a unit that would say the same of sizes that differ by most
// of one; a bound that is a whole unit is said in it.
func TestGuardNotesSayExactSizes(t *testing.T) {
	l := &limits{resultBytes: 1 << 10, resultBlocks: 2, messageBytes: 1 << 20, depth: 16}
	in := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 5000) + `"},` +
		`{"type":"text","text":"a"},{"type":"text","text":"` + strings.Repeat("y", 1500) + `"}]}}` + "\n"
	got := guardAll(t, in, l)
	if len(got) != 1 {
		t.Fatalf("%d messages out", len(got))
	}
	var m struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got[0]), &m); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, c := range m.Result.Content {
		all.WriteString(c.Text + "\n")
	}
	kept := len(strings.TrimLeft(m.Result.Content[1].Text, "x")) // the note after the text
	kept = len(m.Result.Content[1].Text) - kept
	for _, want := range []string{
		fmt.Sprintf("[… %d bytes of this text left out]", 5000-kept),
		"(1 KiB in at most 2 blocks)", // the bounds
		// The other two blocks, as sent: 26 and 1525 bytes.
		fmt.Sprintf("so %d bytes of text, 2 more content blocks (1551 bytes) of it were left out", 5000-kept),
	} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the result does not say %q:\n%.300s", want, all.String())
		}
	}
	for size, want := range map[int]string{0: "0 bytes", 1: "1 byte", 4169: "4169 bytes", 34728: "34728 bytes", 4 << 10: "4 KiB", 3 << 20: "3 MiB", 3<<20 + 1: "3145729 bytes"} {
		if got := byteSize(size); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", size, got, want)
		}
	}
}

// A server that writes a line that is not JSON (a banner, a log line, one
// that begins with "[" as logs do, colours) to its standard output gets
// an error that quotes the start of the line, escaped and bounded, and
// says what was wrong there: it said `"" is not a JSON value`, and a line
// beginning with "[" came to the SDK as an empty batch. Real programs,
// connected with CommandTransport through the guard.
func TestGuardNamesALineThatIsNotJSON(t *testing.T) {
	long := strings.Repeat("z", 200)
	tests := []struct{ name, printf, want, what string }{
		{"a banner", `Server started on stdio\n`, `"Server started on stdio"`, `'S' cannot begin a JSON value, at byte 0`},
		{"a log line", `[INFO] listening\n`, `"[INFO] listening"`, `'I' cannot begin a JSON value, at byte 1`},
		{"colours", `\033[32mready\033[0m\n`, `"\x1b[32mready\x1b[0m"`, `byte 0x1B cannot begin a JSON value`},
		{"a long line", long + `\n`, `"` + long[:64] + `"…`, `is not a JSON value, at byte 101`},
		{"broken JSON", `{"jsonrpc":"2.0","id":tru}\n`, `"{\"jsonrpc\":\"2.0\",\"id\":tru}"`, `"tru" is not a JSON value, at byte 25`},
		{"a bidi override", `\342\200\256evil\n`, `"\u202eevil"`, `byte 0xE2 cannot begin`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", `printf '`+tt.printf+`'; exec cat >/dev/null`)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "v0"}, nil).Connect(ctx, Guard(&sdk.CommandTransport{Command: cmd}, nil), nil)
			if err == nil {
				cs.Close()
				t.Fatal("connected to a server that wrote no JSON")
			}
			msg := err.Error()
			for _, want := range []string{"sent a line that is not JSON: " + tt.want, tt.what, "standard error"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the error does not say %s:\n%s", want, msg)
				}
			}
			for _, raw := range []string{"\x1b", "\u202e"} {
				if strings.Contains(msg, raw) {
					t.Errorf("the error carries %q raw: %q", raw, msg)
				}
			}
			if ctx.Err() != nil {
				t.Error("connecting waited for the deadline")
			}
		})
	}
	// Read in the stream on its own, a line beginning with "[" passes no
	// part of itself on (it passed "[", which the SDK read as an empty
	// batch).
	r := newGuardReader(io.NopCloser(strings.NewReader("[INFO] listening\n")), (*GuardOptions)(nil).limits())
	if out, err := io.ReadAll(r); len(out) != 0 || err == nil || !strings.Contains(err.Error(), `"[INFO] listening"`) {
		t.Errorf("got %q, %v", out, err)
	}
}

// guardTask reads the guard's task key out of msg's result as the SDK
// reads it (member names matched exactly, a repeated _meta merged): it
// returns the result's resultType and the key's value, ok when the key is
// there.
func guardTask(msg string) (resultType string, task any, ok bool) {
	var top, result map[string]json.RawMessage
	if json.Unmarshal([]byte(msg), &top) != nil || json.Unmarshal(top["result"], &result) != nil {
		return "", nil, false
	}
	var res sdk.CallToolResult // its UnmarshalJSON is the SDK's decoder
	if json.Unmarshal(top["result"], &res) != nil {
		return "", nil, false
	}
	task, ok = res.Meta[metaTask]
	return string(result["resultType"]), task, ok
}
