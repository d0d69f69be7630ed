package codetools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepoRunsPrograms: git is harmless without a sandbox only in a
// repository none of whose files names a program: its config, its common
// directory's, its per-worktree config, the files they include, its
// hooks; found where git finds the repository (a .git file's gitdir, a
// bare repository, a directory above).
func TestRepoRunsPrograms(t *testing.T) {
	plain := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/x.git\n[branch \"main\"]\n\tremote = origin\n"
	cases := []struct {
		name  string
		files map[string]string
		dir   string // where git runs
		want  string // a part of the reason; "" for none
	}{
		{"plain", map[string]string{".git/config": plain, ".git/hooks/pre-commit.sample": "x"}, ".", ""},
		{"no repository", map[string]string{"a.txt": ""}, ".", ""},
		{"fsmonitor", map[string]string{".git/config": plain + "[core]\n\tfsmonitor = ./x.sh\n"}, ".", "core.fsmonitor"},
		{"fsmonitor, git's own", map[string]string{".git/config": "[core]\n\tfsmonitor = true\n"}, ".", ""},
		{"a pager", map[string]string{".git/config": "[pager]\n\tstatus = evil\n"}, ".", "pager.status"},
		{"core.pager in capitals", map[string]string{".git/config": "[CORE]\n\tPager = evil\n"}, ".", "core.pager"},
		{"a textconv", map[string]string{".git/config": "[diff \"x\"]\n\ttextconv = evil\n"}, ".", "diff.x.textconv"},
		{"a filter", map[string]string{".git/config": "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n"}, ".", "clean"},
		{"sshCommand", map[string]string{".git/config": "[core]\nsshCommand = evil\n"}, ".", "sshcommand"},
		{"an include", map[string]string{".git/config": "[include]\n\tpath = ../evil.cfg\n"}, ".", "include.path"},
		{"an includeIf", map[string]string{".git/config": "[includeIf \"gitdir:/x\"]\n\tpath = evil.cfg\n"}, ".", "includeif"},
		{"hooksPath", map[string]string{".git/config": "[core]\n\thooksPath = .husky\n"}, ".", "hookspath"},
		{"a hook", map[string]string{".git/config": plain, ".git/hooks/post-index-change": "#!/bin/sh\n"}, ".", "post-index-change"},
		{"commondir", map[string]string{".git/config": plain, ".git/commondir": "../other", "other/config": "[core]\n\tfsmonitor = evil\n"}, ".", "fsmonitor"},
		{"config.worktree", map[string]string{".git/config": "[extensions]\n\tworktreeConfig = true\n", ".git/config.worktree": "[core]\n\tfsmonitor = evil\n"}, ".", "fsmonitor"},
		{"config.worktree, not read", map[string]string{".git/config": plain, ".git/config.worktree": "[core]\n\tfsmonitor = evil\n"}, ".", ""},
		{"a .git file", map[string]string{".git": "gitdir: elsewhere\n", "elsewhere/config": "[core]\n\tfsmonitor = evil\n"}, ".", "fsmonitor"},
		{"a directory above", map[string]string{".git/config": "[core]\n\tpager = evil\n", "sub/a.txt": ""}, "sub", "core.pager"},
		{"bare, where git runs", map[string]string{"b/HEAD": "ref: refs/heads/main\n", "b/objects/x": "", "b/refs/x": "", "b/config": "[core]\n\tfsmonitor = evil\n"}, "b", "fsmonitor"},
		{"unterminated section", map[string]string{".git/config": "[core\n"}, ".", "cannot be read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range c.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(content), 0o644)
			}
			got := repoRunsPrograms(filepath.Join(dir, c.dir))
			if c.want == "" && got != "" || !strings.Contains(got, c.want) {
				t.Errorf("repoRunsPrograms = %q, want %q", got, c.want)
			}
		})
	}
}

// FuzzGitConfigRuns reads arbitrary configs: no panic, a bounded answer.
func FuzzGitConfigRuns(f *testing.F) {
	for _, seed := range []string{"", "[core]\n\tfsmonitor = x\n", "[diff \"a b\"]\ntextconv=x", "[", "[a.b]\nc", "k=v", "[x \"\"]\n=\n"} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, config string) {
		p := filepath.Join(dir, "config")
		if err := os.WriteFile(p, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		why, _ := gitConfigRuns(p)
		if len(why) > 200 {
			t.Errorf("reason of %d bytes", len(why))
		}
	})
}
