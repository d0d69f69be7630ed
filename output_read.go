package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/toolbelt-go/tool/internal/text"
)

// ReadOutputTool is the name of the tool a registry with a
// [RegistryOptions.Spill] store adds, with which the model reads the part
// of a result the output cap cut.
const ReadOutputTool = "read_output"

// readOutput is the read_output tool: it pages through spilled output by
// cursor. It is paginated, so preflight verifies the cursor (signed for
// read_output, in this session) and hands it the page.
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
	page := call.st.page
	if page == nil {
		return nil, errors.New("tool: read_output ran without its cursor stage")
	}
	st, ok := parseSpillState(page.state)
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
	data, err := r.store.Get(ctx, spillID(call.Session, st.id), int(st.off), int(want))
	if err != nil {
		if errors.Is(err, ErrSpillGone) {
			return nil, spillGone(err)
		}
		return nil, spillUnreadable(err)
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
