package codetools

import (
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
)

func TestClassifyCommand(t *testing.T) {
	ro, net, mut, des := tool.SafetyReadOnly, tool.SafetyNetwork, tool.SafetyMutating, tool.SafetyDestructive
	cases := []struct {
		cmd  string
		want tool.Safety
	}{
		// Read-only.
		{"ls -la", ro},
		{"cat main.go | grep -n func | head -5", ro},
		{"git status && git diff --stat", ro},
		{"git log --oneline -n 5", ro},
		{"git -C sub show HEAD", ro},
		{"go list ./...", ro},
		{"go env GOPATH", ro},
		{"wc -l *.go", ro},
		{"echo 'rm -rf /'", ro},
		{`echo "a > b"`, ro},
		{"grep -rn TODO .", ro}, // read-only, though asked about (see the requirement test)
		{"sed -n 1,20p main.go", ro},
		{"find . -name '*.go'", ro},
		{"ls > /dev/null 2>&1", ro},
		{"cd sub && ls", ro},
		{"true # ; rm -rf /", ro},
		{"command -v go", ro},
		{"timeout 5 cat x", ro},
		{"git branch", ro},
		{"git stash list", ro},
		{"git config --get user.name", ro},
		{"sh -c 'ls -la'", ro},
		{"diff a b", ro},
		// Network.
		{"curl https://example.com", net},
		{"git fetch origin", net},
		{"git push origin main", net},
		// Mutating.
		{"mkdir -p build", mut},
		{"go test ./...", mut},
		{"make", mut},
		{"python3 script.py", mut},
		{"./run.sh", mut},
		{"/bin/ls", mut},
		{"$EDITOR x", mut},
		{"echo hi >> log.txt", mut},
		{"sed -i s/a/b/ file", mut},
		{"git commit -m msg", mut},
		{"git checkout main", mut},
		{"git branch feature", mut},
		{"X=1", mut},
		{"PATH=. ls", mut},
		{"curl -o out https://example.com", mut},
		{"sleep 10 &", mut},
		{"unknowncmd --flag", mut},
		{"xargs cat < files.txt", ro},
		{"env FOO=bar ls", mut},
		// Destructive.
		{"rm -rf build", des},
		{"ls && rm x", des},
		{"ls; rm x", des},
		{"cat x | sudo tee /etc/hosts", des},
		{"git reset --hard HEAD~1", des},
		{"git clean -fdx", des},
		{"git checkout -- .", des},
		{"git restore main.go", des},
		{"git push --force", des},
		{"git push origin +main", des},
		{"git branch -D old", des},
		{"git stash drop", des},
		{"echo x > main.go", des},
		{"echo x >| main.go", des},
		{"cat a &> b", des},
		{"find . -name '*.tmp' -delete", des},
		{"find . -exec rm {} ;", des},
		{"xargs rm < list", des},
		{"sh -c 'rm -rf /'", des},
		{"bash -c \"ls; rm x\"", des},
		{"timeout 5 rm x", des},
		{"nice -n 10 rm -r x", des},
		{"sort -o data.txt data.txt", des},
		{"dd if=/dev/zero of=disk.img", des},
		{"kill -9 1", des},
		// What the check cannot follow is never read-only.
		{"cat $(ls)", mut},
		{"cat `ls`", mut},
		{"for f in *; do cat $f; done", mut},
		{"(cd sub; ls)", mut},
		{"{ ls; }", mut},
		{"cat <<EOF\nhi\nEOF", mut},
		{"ls 'unclosed", mut},
		{`ls "unclosed`, mut},
		{"diff <(ls a) <(ls b)", mut},
		{"if true; then ls; fi", mut},
		{"cat $(rm -rf /)", mut},
		{"ls; $(rm x)", mut},
		{"rm x; cat $(y)", des},
		{"sh -c \"$CMD\"", mut},
		{"eval ls", mut},
	}
	for _, c := range cases {
		if got := ClassifyCommand(c.cmd); got != c.want {
			t.Errorf("ClassifyCommand(%q) = %v, want %v", c.cmd, got, c.want)
		}
	}
}

func TestShellRequirement(t *testing.T) {
	// The workspace's rules, as a Toolset passes them: nothing outside,
	// nothing under .env or .git.
	ok := func(p string) bool {
		return !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "..") && !strings.Contains(p, ".env") && !strings.HasPrefix(p, ".git")
	}
	cases := []struct {
		cmd    string
		mode   tool.RequireMode
		reason string // a part of the reason
		scope  string
	}{
		{"ls -la", tool.RequireDefault, "", ""},
		{"cat main.go", tool.RequireDefault, "", ""},
		{"cat ../../etc/passwd", tool.RequireScoped, "reads outside the workspace or protected files: ../../etc/passwd", "read ../../etc/passwd"},
		{"cat /etc/passwd", tool.RequireScoped, "/etc/passwd", "read /etc/passwd"},
		{"cat .env", tool.RequireScoped, ".env", "read .env"},
		{"head -n 3 < .env", tool.RequireScoped, ".env", "read .env"},
		{"cd config && cat .env", tool.RequireScoped, ".env", ""},
		{"cd .git && cat config", tool.RequireScoped, ".git", ""},
		{"cd .. && cat x", tool.RequireScoped, "..", ""},
		{"cat ~/.ssh/id_rsa", tool.RequireScoped, "expands when the command runs", ""},
		{"cat $HOME/x", tool.RequireScoped, "expands", ""},
		{"cat .e*", tool.RequireScoped, "a pattern that may match protected files", ""},
		{"ls .e*", tool.RequireDefault, "", ""},
		{"grep -r TOKEN .", tool.RequireScoped, "searching a whole tree", ""},
		{"find . -type f | xargs cat", tool.RequireScoped, "operands come from its input", ""},
		{"git --git-dir=/other/.git log", tool.RequireScoped, "/other/.git", ""},
		{"git -C ../other status", tool.RequireScoped, "../other", ""},
		{"git show HEAD:.env", tool.RequireScoped, ".env", "read .env"},
		{"git diff HEAD~1 -- .env", tool.RequireScoped, ".env", ""},
		{"git diff HEAD~1 -- main.go", tool.RequireDefault, "", ""},
		{"git show HEAD:main.go", tool.RequireDefault, "", ""},
		{"git grep TOKEN", tool.RequireScoped, "git grep searching a whole tree", ""},
		{"go test ./...", tool.RequireScoped, "go test builds or runs code", "go test"},
		{"go test ./... && go vet ./...", tool.RequireScoped, "", "go test, go vet"},
		{"go test ./... > /tmp/log", tool.RequireAskAlways, "replaces what the file held", ""},
		{"go build && cat ../secret", tool.RequireScoped, "reads outside", "go build | read ../secret"},
		{"rm -rf build", tool.RequireAskAlways, "may lose data: rm may delete data", ""},
		{"cat $(ls)", tool.RequireAskAlways, "command substitution", ""},
	}
	for _, c := range cases {
		req := shellRequirement(classifyShell(c.cmd, ok))
		if req.Mode != c.mode || !strings.Contains(req.Reason, c.reason) || c.scope != "" && req.Scope != c.scope {
			t.Errorf("%q: requirement %v %q scope %q; want %v with %q, scope %q", c.cmd, req.Mode, req.Reason, req.Scope, c.mode, c.reason, c.scope)
		}
	}
}

func TestParseShell(t *testing.T) {
	s := parseShell(`FOO=1 ls -l "a b" 'c$d' e\ f $G ~/h *.go 2>&1 > out | wc -l; echo "x$Y" && ! false`)
	if s.unparsed != "" {
		t.Fatal(s.unparsed)
	}
	if len(s.cmds) != 4 {
		t.Fatalf("%d commands, want 4: %+v", len(s.cmds), s.cmds)
	}
	first := s.cmds[0]
	var words []string
	for _, w := range first.words {
		words = append(words, w.text)
	}
	if got := strings.Join(words, "|"); got != "ls|-l|a b|c$d|e f|$G|~/h|*.go" {
		t.Errorf("words %s", got)
	}
	if len(first.assigns) != 1 || first.assigns[0].text != "FOO=1" {
		t.Errorf("assignments %+v", first.assigns)
	}
	if w := first.words; w[3].dollar || !w[5].dollar || !w[6].tilde || !w[7].glob {
		t.Errorf("expansion flags: %+v", w)
	}
	if r := first.redirs; len(r) != 2 || r[0].op != ">&" || r[0].target.text != "1" || r[1].op != ">" || r[1].target.text != "out" {
		t.Errorf("redirections %+v", r)
	}
	if !s.cmds[2].words[1].dollar {
		t.Error(`"x$Y" does not expand`)
	}
	if !s.cmds[3].negated || s.cmds[3].words[0].text != "false" {
		t.Errorf("negation: %+v", s.cmds[3])
	}
	if s := parseShell(strings.Repeat("a", maxScriptBytes+1)); s.unparsed == "" {
		t.Error("an over-long line was parsed")
	}
}

// FuzzClassifyCommand checks, for any command line: no panic; a line
// classified read-only has no unquoted > redirection to a file and no
// command substitution; and appending a destructive command on a new line
// to a read-only line makes it destructive, so nothing in the line (a
// comment, a quote, a continuation) can hide what follows.
func FuzzClassifyCommand(f *testing.F) {
	for _, s := range []string{
		"ls -la", "cat a | grep b", "git status", "echo 'x' \"y\" z\\ w", "rm -rf /", "cat $(ls)", "a=1 b", "ls # c",
		"sh -c 'sh -c \"ls\"'", "ls 2>&1 >/dev/null", "find . -exec cat {} +", "x <<<word", "git -c a=b log",
		"ls \\\n-l", "cd a && cat b", "echo ${A:-b}", "echo $'a'", "ls [", "xargs -I{} cat {}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		s := ClassifyCommand(cmd)
		if s != tool.SafetyReadOnly {
			return
		}
		sc := parseShell(cmd)
		if sc.unparsed != "" {
			t.Fatalf("%q is read-only though it could not be parsed: %s", cmd, sc.unparsed)
		}
		for _, c := range sc.cmds {
			for _, r := range c.redirs {
				if (r.op == ">" || r.op == ">>" || r.op == "&>") && r.target.text != "/dev/null" {
					t.Fatalf("%q is read-only though it redirects to %q", cmd, r.target.text)
				}
			}
		}
		if strings.HasSuffix(cmd, "\\") {
			return // a continuation joins the next line to this one, as the shell would
		}
		if got := ClassifyCommand(cmd + "\nrm -rf x"); got != tool.SafetyDestructive {
			t.Fatalf("%q followed by rm -rf is %v, want destructive", cmd, got)
		}
	})
}
