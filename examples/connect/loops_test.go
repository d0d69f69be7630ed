package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/toolanthropic/anthropictest"
	"github.com/toolbelt-go/tool/toolgemini/geminitest"
	"github.com/toolbelt-go/tool/toolopenai/openaitest"
)

// The offline tests of a turn that docs/providers.md shows, one per
// provider: each about ten lines, against the provider module's test
// server.

func registry(t *testing.T) *tool.Registry[struct{}] {
	reg := tool.NewRegistry[struct{}](nil)
	require.NoError(t, reg.Add(newTools()...))
	return reg
}

func TestOpenAITurn(t *testing.T) {
	srv := openaitest.NewServer(
		openaitest.Calls(openaitest.Call{Name: "read_file", Arguments: `{"path":"README.md"}`}),
		openaitest.Text("It says: run it with go run ."))
	defer srv.Close()
	answer, err := askOpenAI(context.Background(), srv.Client(), registry(t), "How do I run it?")
	require.NoError(t, err)
	assert.Equal(t, "It says: run it with go run .", answer)
	assert.Equal(t, "# demo\n\nRun it with go run .\n", srv.Requests()[1].Outputs[0].Text)
}

func TestAnthropicTurn(t *testing.T) {
	srv := anthropictest.NewServer(
		anthropictest.Calls(anthropictest.Call{Name: "read_file", Input: `{"path":"README.md"}`}),
		anthropictest.Text("It says: run it with go run ."))
	defer srv.Close()
	answer, err := askAnthropic(context.Background(), srv.Client(), registry(t), "How do I run it?")
	require.NoError(t, err)
	assert.Equal(t, "It says: run it with go run .", answer)
	assert.Equal(t, "# demo\n\nRun it with go run .\n", srv.Requests()[1].Outputs[0].Text)
}

func TestGeminiTurn(t *testing.T) {
	srv := geminitest.NewServer(
		geminitest.Calls(geminitest.Call{Name: "read_file", Args: `{"path":"README.md"}`}),
		geminitest.Text("It says: run it with go run ."))
	defer srv.Close()
	answer, err := askGemini(context.Background(), srv.Client(), registry(t), "How do I run it?")
	require.NoError(t, err)
	assert.Equal(t, "It says: run it with go run .", answer)
	assert.JSONEq(t, `{"output":"# demo\n\nRun it with go run .\n"}`, string(srv.Requests()[1].Outputs[0].Response))
}
