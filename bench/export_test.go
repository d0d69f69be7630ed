package bench

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// exportTools is how many tools the export benchmark's registry holds.
const exportTools = 1000

var exportSink []dialect.Exported

// BenchmarkExport exports 1,000 tools for a turn when nothing changed,
// through dialect's Exporter (what every provider adapter does each turn),
// for each target, against the floor in the same run: a bare copy of the
// slice the exporter keeps. The ratio exporter/floor is what a turn costs
// beyond handing the caller its own copy.
func BenchmarkExport(b *testing.B) {
	reg := tool.NewRegistry[struct{}](nil)
	for i := range exportTools {
		schema := `{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"default":` +
			strconv.Itoa(i%50+1) + `},"opts":{"type":"object","properties":{"deep":{"type":"boolean"}},"additionalProperties":false}},` +
			`"required":["query"],"additionalProperties":false}`
		reg.MustAdd(tool.NewRaw(tool.Definition{Name: "tool_" + strconv.Itoa(i), Description: "Tool number " + strconv.Itoa(i) + ".", InputSchema: json.RawMessage(schema)},
			func(context.Context, json.RawMessage) (*tool.Result, error) { return tool.TextResult("ok"), nil }))
	}
	// A request takes at most 128 functions for OpenAI and 512 for Gemini:
	// the exporter leaves out the rest, with a warning each.
	perRequest := map[dialect.Target]int{dialect.OpenAI: 128, dialect.OpenAIStrict: 128, dialect.Gemini: 512, dialect.GeminiJSON: 512}
	for _, target := range []dialect.Target{dialect.OpenAI, dialect.OpenAIStrict, dialect.Anthropic, dialect.AnthropicStrict, dialect.Gemini, dialect.GeminiJSON} {
		x := dialect.NewExporter(reg, target)
		cached := x.Tools() // converted once, before timing
		want := exportTools
		if n := perRequest[target]; n > 0 {
			want = n
		}
		if len(cached) != want {
			b.Fatalf("%v: %d tools exported, want %d", target, len(cached), want)
		}
		b.Run(target.String()+"/floor", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				exportSink = slices.Clone(cached)
			}
		})
		b.Run(target.String()+"/exporter", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				exportSink = x.Tools()
			}
		})
	}
}
