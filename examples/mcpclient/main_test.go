package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/tooltest"
)

// TestMain lets the test binary be the built-in server, as the program
// is when it starts itself.
func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		if err := serve(context.Background()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestRun(t *testing.T) {
	env := tooltest.TrackProcesses(t, os.Environ()) // as main passes; fails the test if the server or its helper outlives it
	var out bytes.Buffer
	pid, err := run(context.Background(), &out, nil, env)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"tools of mcpclient-builtin: add, count, remember",
		"call add({\"a\":20,\"b\":22})\n  status=ok is_error=false\n  42",
		"status=invalid is_error=true",
		"progress: 1/3 counted 1",
		"counted to 3",
		"call remember({\"note\":\"buy milk\"})\n  status=denied",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if !gone(pid) {
		t.Errorf("the server (pid %d) is still there", pid)
	}
}

// The built-in server's definitions as a model sees them; the dialect
// tests check them against every provider's rules. go test -tooltest.update
// rewrites the file.
func TestDefinitionsGolden(t *testing.T) {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(builtinTools()...)
	tooltest.GoldenDefinitions(t, reg.Definitions(), "testdata/definitions.golden.json")
}
