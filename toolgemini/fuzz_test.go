package toolgemini_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"google.golang.org/genai"

	toolgemini "github.com/toolbelt-go/tool/toolgemini"

	"github.com/toolbelt-go/tool/internal/providertest"
)

// FuzzRun feeds any response the SDK decodes to Run: it never panics, and
// answers every function call, in order, by name, with the call's own ID
// when it had one and none when it did not.
func FuzzRun(f *testing.F) {
	b, err := os.ReadFile("testdata/generate_response_1.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"search","args":{"query":1e400}}},{"functionCall":{}}]}}]}`)
	f.Add(`{"candidates":[null,{"content":null}]}`)
	f.Add(`{"candidates":[{"content":{"parts":[null,{"functionCall":{"id":"toolgemini:x:0","name":"read_file"}}]}}]}`)
	reg, _ := providertest.Registry(f)
	ai := toolgemini.New(reg, nil)
	f.Fuzz(func(t *testing.T, raw string) {
		var resp genai.GenerateContentResponse
		if json.Unmarshal([]byte(raw), &resp) != nil {
			return
		}
		var calls []*genai.FunctionCall // resp.FunctionCalls panics on a null candidate
		if len(resp.Candidates) > 0 && resp.Candidates[0] != nil && resp.Candidates[0].Content != nil {
			for _, p := range resp.Candidates[0].Content.Parts {
				if p != nil && p.FunctionCall != nil {
					calls = append(calls, p.FunctionCall)
				}
			}
		}
		out := ai.Run(context.Background(), struct{}{}, &resp)
		if len(calls) == 0 {
			if len(out) > 1 {
				t.Fatalf("no calls, %d contents", len(out))
			}
			return
		}
		if len(out) != 2 || len(out[1].Parts) != len(calls) {
			t.Fatalf("%d calls, %d contents", len(calls), len(out))
		}
		for i, p := range out[1].Parts {
			fr := p.FunctionResponse
			// An ID that looks like one the adapter makes is not sent back;
			// Gemini then matches the answer by position and name.
			idOK := fr != nil && (fr.ID == calls[i].ID || fr.ID == "" && strings.HasPrefix(calls[i].ID, "toolgemini:"))
			if fr == nil || fr.Name != calls[i].Name || !idOK || len(fr.Response) == 0 {
				t.Fatalf("call %d is not answered: %+v", i, fr)
			}
		}
	})
}
