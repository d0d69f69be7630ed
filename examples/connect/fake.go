package main

import (
	"strings"

	"github.com/toolbelt-go/tool/toolanthropic/anthropictest"
	"github.com/toolbelt-go/tool/toolgemini/geminitest"
	"github.com/toolbelt-go/tool/toolopenai/openaitest"
)

// The offline model is each provider module's test server (openaitest,
// anthropictest, geminitest): a local stand-in that speaks the API's own
// wire format to the SDK's client and refuses what the API refuses. It
// plays a model that, asked a question, calls search and read_file at
// once, and, given their results, answers by quoting them.

// answer is the fake model's last reply: what the tools said.
func answer(results []string) string {
	for i, r := range results {
		results[i] = strings.ReplaceAll(strings.TrimSpace(r), "\n", `\n`)
	}
	return "The tools answered:\n- " + strings.Join(results, "\n- ")
}

// fakeServer starts the offline model for provider and returns its base
// URL and the function that stops it.
func fakeServer(provider string) (url string, stop func()) {
	switch provider {
	case "openai":
		s := openaitest.NewServer(openaitest.Calls(
			// The optional lang and limit are null: the tools are strict.
			openaitest.Call{Name: "search", Arguments: `{"query":"println","lang":null,"limit":null}`},
			openaitest.Call{Name: "read_file", Arguments: `{"path":"main.go"}`},
		), openaitest.Func(func(r openaitest.Request) openaitest.Turn {
			var results []string
			for _, o := range r.Outputs {
				results = append(results, o.Text)
			}
			return openaitest.Text(answer(results))
		}))
		return s.URL, s.Close
	case "anthropic":
		s := anthropictest.NewServer(anthropictest.Turn{Text: "I'll search the project and read main.go.", Calls: []anthropictest.Call{
			{Name: "search", Input: `{"query":"println"}`},
			{Name: "read_file", Input: `{"path":"main.go"}`},
		}}, anthropictest.Func(func(r anthropictest.Request) anthropictest.Turn {
			var results []string
			for _, o := range r.Outputs {
				results = append(results, o.Text)
			}
			return anthropictest.Text(answer(results))
		}))
		return s.URL, s.Close
	default:
		s := geminitest.NewServer(geminitest.Calls(
			geminitest.Call{Name: "search", Args: `{"query":"println"}`},
			geminitest.Call{Name: "read_file", Args: `{"path":"main.go"}`},
		), geminitest.Func(func(r geminitest.Request) geminitest.Turn {
			var results []string
			for _, o := range r.Outputs {
				results = append(results, string(o.Response))
			}
			return geminitest.Text(answer(results))
		}))
		return s.URL, s.Close
	}
}
