package tool

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool/internal/text"
	"github.com/toolbelt-go/tool/keyring"
)

// ReadOutputTool is the name of the tool a registry with a
// [RegistryOptions.Spill] store adds, with which the model reads the part
// of a result the output cap cut.
const ReadOutputTool = "read_output"

// minSpillCap is the smallest cap under which a result is spilled: below
// it the marker, which holds a cursor, would leave little room for output.
const minSpillCap = 1024

// spillState is the state signed into a read_output cursor: which spill,
// and the part of it still to read. Fixed width, so every cursor of one
// session has the same length and the marker can be sized before it is
// signed.
type spillState struct {
	id       [16]byte
	off, end uint64
}

func (s spillState) bytes() []byte {
	b := append([]byte(nil), s.id[:]...)
	b = binary.BigEndian.AppendUint64(b, s.off)
	return binary.BigEndian.AppendUint64(b, s.end)
}

func parseSpillState(b []byte) (spillState, bool) {
	var s spillState
	if len(b) != 32 {
		return s, false
	}
	copy(s.id[:], b)
	s.off, s.end = binary.BigEndian.Uint64(b[16:]), binary.BigEndian.Uint64(b[24:])
	return s, s.off <= s.end
}

// readOutputArgsHash is what read_output cursors bind as their arguments:
// read_output takes nothing besides the cursor.
var readOutputArgsHash = sha256.Sum256([]byte("{}"))

// signSpill signs a read_output cursor for the call's session.
func signSpill[C any](call *Call[C], st spillState) (string, error) {
	return call.runtime().cursorKeyring().Sign(keyring.Claims{Purpose: ReadOutputTool, Session: call.Session, Digest: readOutputArgsHash, State: st.bytes()})
}

// spillOutput is the output stage's cap when the registry has a spill
// store: the text blocks, joined, keep their head and tail, and the part
// cut between them is kept in the store, behind a cursor for read_output
// printed in the marker. It reports false, having changed nothing, when the
// output cannot be spilled; the plain cap applies then.
func spillOutput[C any](ctx context.Context, call *Call[C], res *Result, limit int, store SpillStore) bool {
	if limit < minSpillCap {
		return false
	}
	var st spillState
	if _, err := rand.Read(st.id[:]); err != nil {
		return false
	}
	var signErr error
	marker := func(cut int) string {
		st.end = uint64(cut)
		c, err := signSpill(call, st)
		if err != nil {
			signErr = err
		}
		return "\n[… " + strconv.Itoa(cut) + " bytes cut here. To read them, call " + ReadOutputTool +
			` with {"cursor":"` + c + `"} …]` + "\n"
	}
	full := res.Text()
	kept, headEnd, tailStart := text.HeadTailMarked(full, limit-blockCost, marker)
	if signErr != nil || headEnd == tailStart {
		return false
	}
	cut := full[headEnd:tailStart] // a substring: nothing is copied
	// What is kept expires with the cursors that lead to it. The store is
	// host code: one that fails, panics or hangs leaves the plain cut.
	id, exp := hex.EncodeToString(st.id[:]), call.runtime().cursorKeyring().Expiry()
	err, outcome := callHook(ctx, call.runtime(), func(ctx context.Context) error { return store.Put(ctx, id, cut, exp) })
	if outcome != hookOK || err != nil {
		return false
	}
	res.Truncated += len(cut) + len(res.Structured)
	res.Structured = nil
	res.Content = []Content{TextContent(kept)}
	return true
}

// readOutput is the read_output tool: it pages through spilled output by
// cursor. It is paginated, so the pipeline verifies the cursor (signed for
// read_output, in this session) during preflight.
type readOutput[C any] struct {
	store SpillStore
	limit int // the byte cap of its own results
}

func (readOutput[C]) isPaginated() {}

func (r readOutput[C]) Definition() Definition {
	return Definition{
		Name:  ReadOutputTool,
		Title: "Read cut output",
		Description: "Reads the part of a tool result that was cut because it was too long. " +
			"Pass the cursor printed where the result was cut, exactly as written. " +
			"Each call returns the next part and, while more is left, a cursor to read on.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"cursor":{"type":"string","minLength":1,` +
			`"description":"The cursor printed where the output was cut, or the one the previous read_output returned"}},` +
			`"required":["cursor"],"additionalProperties":false}`),
		Safety:         SafetyReadOnly,
		Tier:           TierObserve,
		MaxOutputBytes: r.limit,
	}
}

func (r readOutput[C]) Run(ctx context.Context, call *Call[C]) (*Result, error) {
	if call.page == nil {
		return nil, errors.New("tool: read_output ran without its cursor stage")
	}
	st, ok := parseSpillState(call.page.state)
	if !ok {
		return nil, errors.New("tool: read_output got a cursor without spill state")
	}
	// Size the part so the part and its trailer fit the cap: the trailer's
	// cursor has a fixed length, its numbers at most that of end.
	probe, err := signSpill(call, st)
	if err != nil {
		return nil, err
	}
	room := max(r.limit-blockCost-len(readTrailer(st.end, st.end, st.end, probe)), 256)
	// Ask for a few bytes more than room, to cut on a character boundary.
	want := min(uint64(room+3), st.end-st.off)
	data, err := r.store.Get(ctx, hex.EncodeToString(st.id[:]), int(st.off), int(want))
	if err != nil {
		if errors.Is(err, ErrSpillGone) {
			return nil, &Error{Message: "this output is no longer kept (it expired or was evicted)",
				Hint: "call the tool that produced it again, with narrower arguments if it can take them", Cause: err}
		}
		// The store's own error (an address, a timeout) is host data.
		return nil, &Error{Message: "the cut output cannot be read right now",
			Hint: "try again shortly; if it keeps failing, call the tool that produced it again", Cause: err}
	}
	part := text.CutLine(data, room)
	if len(part) == 0 && st.off < st.end {
		return nil, errors.New("tool: the spill store returned no data")
	}
	from := st.off
	st.off += uint64(len(part))
	next := ""
	if st.off < st.end {
		if next, err = signSpill(call, st); err != nil {
			return nil, err
		}
	}
	var b strings.Builder
	b.Grow(len(part) + 256)
	b.WriteString(part)
	b.WriteString(readTrailer(from, st.off, st.end, next))
	return TextResult(b.String()), nil
}

// readTrailer tells the model where it is in the cut output and how to read
// on.
func readTrailer(from, to, end uint64, next string) string {
	s := "\n[bytes " + strconv.FormatUint(from, 10) + " to " + strconv.FormatUint(to, 10) + " of the " +
		strconv.FormatUint(end, 10) + " cut bytes"
	if next == "" {
		return s + "; that is the end of the cut output]"
	}
	return s + `. To read on, call ` + ReadOutputTool + ` with {"cursor":"` + next + `"}]`
}
