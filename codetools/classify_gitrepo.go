package codetools

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Without a sandbox, git runs with the person's rights whatever the
// repository's own files tell it to run: a core.fsmonitor program on git
// status, a pager, a diff or filter driver, a hook (post-index-change
// runs when git status refreshes the index). A repository is what
// commands the person approved could change; so git is called harmless
// only in a repository none of whose files names a program.

// gitRunKeys are the last names of the config keys whose value is a
// program git runs (core.pager, diff.<driver>.textconv, filter.<f>.clean,
// credential.helper, …).
var gitRunKeys = setOf("pager", "editor", "askpass", "sshcommand", "gitproxy", "external", "command", "cmd",
	"textconv", "clean", "smudge", "process", "driver", "program", "helper", "hookspath",
	"packobjectshook", "alternaterefscommand", "uploadpack", "receivepack", "vcs", "difffilter", "browser")

// gitRunSections are the sections every key of which names a program
// (pager.<command>) or another config (includeIf.<cond>.path).
var gitRunSections = setOf("pager", "include", "includeif")

// maxGitFile bounds what is read of one of a repository's files.
const maxGitFile = 1 << 20

// repoRunsPrograms returns why git, run in dir, could run a program the
// repository names, or "" when nothing does: the repository is found as
// git finds it (a .git directory or file in dir or above, or dir itself
// bare), and its config, the config of its common directory, its
// per-worktree config and its hooks are read.
func repoRunsPrograms(dir string) string {
	gitDir := findGitDir(dir)
	if gitDir == "" {
		return ""
	}
	common := gitDir
	if b, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = c
	}
	hooks := filepath.Join(common, "hooks")
	configs := []string{filepath.Join(common, "config")}
	if why, worktree := gitConfigRuns(configs[0]); why != "" {
		return why
	} else if worktree {
		configs = append(configs, filepath.Join(gitDir, "config.worktree"))
	}
	for _, c := range configs[1:] {
		if why, _ := gitConfigRuns(c); why != "" {
			return why
		}
	}
	ents, err := os.ReadDir(hooks)
	if err != nil && !os.IsNotExist(err) {
		return "its hooks directory cannot be read"
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".sample") {
			return "it has a hook (" + cut(e.Name(), 40) + ")"
		}
	}
	return ""
}

// findGitDir finds the repository git uses in dir: a .git directory, or a
// .git file's gitdir, in dir or the nearest directory above it; or dir
// itself when it is a bare repository. "" when there is none.
func findGitDir(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p
			}
			b, err := readSmall(p)
			if err != nil {
				return p // unreadable: whatever it is, its config is unknown
			}
			target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return p
			}
			target = strings.TrimSpace(target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(d, target)
			}
			return target
		}
		if isBare(d) {
			return d
		}
		if parent := filepath.Dir(d); parent == d {
			return ""
		}
	}
}

// isBare reports whether dir looks to git like a bare repository.
func isBare(dir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

func readSmall(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxGitFile))
}

// gitConfigRuns reads a config file as git does (sections and keys
// ignore case; a subsection in quotes) and returns the first setting that
// runs a program or reads another file, and whether config.worktree is
// read too (extensions.worktreeConfig).
func gitConfigRuns(name string) (why string, worktree bool) {
	b, err := readSmall(name)
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		return "its config cannot be read", false
	}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, maxGitFile)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "its config cannot be read", false
			}
			head := line[1:end]
			name, sub, _ := strings.Cut(head, " ")
			section = strings.ToLower(strings.TrimSpace(name))
			if sub != "" {
				section += "." + strings.Trim(strings.TrimSpace(sub), `"`)
			} else if strings.Contains(name, ".") {
				section = strings.ToLower(name)
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, val, hasVal := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		val = strings.ToLower(strings.Trim(strings.TrimSpace(val), `"`))
		full := section + "." + key
		top, _, _ := strings.Cut(section, ".")
		switch {
		case full == "extensions.worktreeconfig":
			worktree = !hasVal || val == "true" || val == "1" || val == "yes" || val == "on"
		case full == "core.fsmonitor":
			// true is git's own daemon; false, no monitor; anything else
			// is a program.
			if hasVal && val != "true" && val != "false" && val != "1" && val != "0" && val != "yes" && val != "no" && val != "on" && val != "off" {
				return "its config names a program git runs (" + cut(full, 60) + ")", worktree
			}
		case gitRunSections[top], gitRunKeys[key]:
			return "its config names a program git runs, or another config (" + cut(full, 60) + ")", worktree
		}
	}
	return "", worktree
}
