package tooladk

import (
	"bytes"
	"encoding/json"

	"github.com/toolbelt-go/tool"
)

// response is the model view of a result as a function response, in the
// keys Gemini documents: a successful result is {"output": …}, its
// structured output as JSON (numbers kept as written) and otherwise its
// text; a failed one is {"error": "<text>"}, which ADK's telemetry and
// callbacks read as the tool's error. Other blocks than text (an image)
// are named in brackets: ADK's flow sends a function response's map only.
// The result's host view (Status, Err) is never sent.
func response(res *tool.Result) map[string]any {
	text := res.Text()
	if res.IsError {
		if text == "" {
			text = failedNoText
		}
		return map[string]any{"error": text}
	}
	if len(res.Structured) > 0 {
		dec := json.NewDecoder(bytes.NewReader(res.Structured))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			return map[string]any{"output": v}
		}
	}
	if text == "" {
		text = noOutput
	}
	return map[string]any{"output": text}
}
