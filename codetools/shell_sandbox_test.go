package codetools

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool/process"
	"github.com/toolbelt-go/tool/workspace"
)

// TestShellSandbox: the sandbox a command gets is the class its approval
// saw: a read-only command may write nowhere and reach no network; another
// writes in the workspace and its temporary directory, with the host's
// extra paths, and the network if the host allows it.
func TestShellSandbox(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	cache := filepath.Join(t.TempDir(), "cache")
	ts := New(ws, &Options{Sandbox: &SandboxOptions{Mode: process.SandboxBubblewrap, Network: true,
		Read: []string{"/opt/go"}, Write: []string{cache}}})

	sandbox := func(ts *Toolset, command string) (*process.Sandbox, error) {
		sb, done, err := ts.shellSandbox(context.Background(), command)
		if err == nil {
			done()
		}
		return sb, err
	}
	sb, err := sandbox(ts, "cat main.go | grep x")
	if err != nil {
		t.Fatal(err)
	}
	if sb.Mode != process.SandboxBubblewrap || len(sb.Write) != 0 || sb.Temp || sb.Network ||
		strings.Join(sb.Read, " ") != dir+" /opt/go "+cache {
		t.Errorf("read-only: %+v", sb)
	}
	sb, err = sandbox(ts, "go test ./...")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sb.Write, " ") != dir+" "+cache || !sb.Temp || !sb.Network || strings.Join(sb.Read, " ") != "/opt/go" {
		t.Errorf("writing: %+v", sb)
	}

	off := New(ws, &Options{Sandbox: &SandboxOptions{Mode: process.SandboxNone}})
	if sb, err := sandbox(off, "go test ./..."); sb != nil || err != nil {
		t.Errorf("no sandbox: %+v, %v", sb, err)
	}
	if mode, err := off.Sandbox(); mode != process.SandboxNone || err == nil || !strings.Contains(err.Error(), "off") {
		t.Errorf("Sandbox() = %v, %v", mode, err)
	}
	if mode, err := New(ws, nil).Sandbox(); mode != process.DetectSandbox().Mode || (mode == process.SandboxNone) != (err != nil) {
		t.Errorf("Sandbox() = %v, %v; this machine offers %+v", mode, err, process.DetectSandbox())
	}
	for mode, want := range map[process.SandboxMode]string{
		process.SandboxBubblewrap: "protected files (.env, keys, credentials) read as empty",
		process.SandboxLandlock:   "a command that only reads cannot write anything, nor read protected files",
		process.SandboxNone:       "",
	} {
		desc := New(ws, &Options{Sandbox: &SandboxOptions{Mode: mode}}).runShell().Definition().Description
		if want == "" && strings.Contains(desc, "sandbox") || want != "" && !strings.Contains(desc, want) {
			t.Errorf("%v: the description:\n%s", mode, desc)
		}
	}
}
