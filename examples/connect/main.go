// Connect asks one question of OpenAI, Anthropic and Gemini, each through
// the same tools and the few-line agent loop of its adapter (loops.go).
//
// By default it runs offline, against each provider module's test server
// (openaitest, anthropictest, geminitest), which answers the way the real
// API does: a first reply with tool calls, a second that quotes what the
// tools returned. With OPENAI_API_KEY,
// ANTHROPIC_API_KEY, or GEMINI_API_KEY (or GOOGLE_API_KEY) set, it asks
// the real API instead.
//
//	go run . [-provider openai|anthropic|gemini|all] [-q "question"]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	openaioption "github.com/openai/openai-go/v3/option"
	"google.golang.org/genai"

	"github.com/toolbelt-go/tool"
)

var providers = []string{"openai", "anthropic", "gemini"}

func main() {
	provider := flag.String("provider", "all", "openai, anthropic, gemini, or all")
	question := flag.String("q", "Where is println called, and what is in that file?", "the question to ask")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *provider, *question, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run asks question of the provider ("all" for each in turn), online when
// getenv gives its key and offline otherwise.
func run(ctx context.Context, w io.Writer, provider, question string, getenv func(string) string) error {
	list := providers
	if provider != "all" {
		if !slices.Contains(providers, provider) {
			return fmt.Errorf("unknown provider %q: use openai, anthropic, gemini or all", provider)
		}
		list = []string{provider}
	}
	reg := tool.NewRegistry[struct{}](nil)
	if err := reg.Add(newTools()...); err != nil {
		return err
	}
	for _, p := range list {
		answer, where, err := ask(ctx, p, reg, question, getenv)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		fmt.Fprintf(w, "== %s (%s)\n%s\n\n", p, where, answer)
	}
	return nil
}

// ask runs one provider's loop, against the real API when its key is set
// and against a local fake of it otherwise.
func ask(ctx context.Context, provider string, reg *tool.Registry[struct{}], question string, getenv func(string) string) (answer, where string, err error) {
	key := map[string]string{"openai": getenv("OPENAI_API_KEY"), "anthropic": getenv("ANTHROPIC_API_KEY"),
		"gemini": firstOf(getenv("GEMINI_API_KEY"), getenv("GOOGLE_API_KEY"))}[provider]
	baseURL, where := "", "the real API"
	if key == "" {
		url, stop := fakeServer(provider)
		defer stop()
		baseURL, key, where = url, "offline", "offline: a local stand-in for the API; set its key variable to ask the real one"
	}
	switch provider {
	case "openai":
		opts := []openaioption.RequestOption{openaioption.WithAPIKey(key)}
		if baseURL != "" {
			opts = append(opts, openaioption.WithBaseURL(baseURL))
		}
		answer, err = askOpenAI(ctx, openai.NewClient(opts...), reg, question)
	case "anthropic":
		opts := []anthropicoption.RequestOption{anthropicoption.WithAPIKey(key)}
		if baseURL != "" {
			opts = append(opts, anthropicoption.WithBaseURL(baseURL))
		}
		answer, err = askAnthropic(ctx, anthropic.NewClient(opts...), reg, question)
	case "gemini":
		var client *genai.Client
		client, err = genai.NewClient(ctx, &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: baseURL}})
		if err == nil {
			answer, err = askGemini(ctx, client, reg, question)
		}
	}
	return answer, where, err
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
