package codetools

import (
	"strings"
)

// This file reads a command line the way a POSIX shell splits it, far
// enough to classify it: simple commands, their words after quote
// removal, their redirections, and the operators between them. What it
// does not follow (command substitution, here-documents, subshells,
// compound commands) it reports, so that the classifier never calls
// read-only what it could not read.

// shWord is one word of a command, after quote removal.
type shWord struct {
	text   string
	dollar bool // holds a parameter expansion ($x, ${x}) outside single quotes
	glob   bool // holds an unquoted * ? or [
	tilde  bool // starts with an unquoted ~
}

// expands reports whether the word's value is known only when the shell
// runs: a variable, a home directory or a glob.
func (w shWord) expands() bool { return w.dollar || w.glob || w.tilde }

// shRedirect is one redirection: its operator and its target.
type shRedirect struct {
	op     string // ">", ">>", "<", "<>", ">&", "<&", "&>", "&>>", ">|", "<<<"
	target shWord
}

// shCommand is one simple command.
type shCommand struct {
	assigns []shWord // NAME=value words before the command name
	words   []shWord
	redirs  []shRedirect
	negated bool
}

// shScript is a parsed command line: its simple commands, in order, and
// why the parse stopped short, if it did.
type shScript struct {
	cmds     []shCommand
	unparsed string
	bg       bool // a command runs in the background (&)
}

// maxScriptBytes bounds what the lexer reads; a longer command line is
// left unparsed (and so never read-only).
const maxScriptBytes = 64 << 10

// keywords are the words that open or close compound commands, which the
// lexer does not follow.
var keywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "for": true, "while": true, "until": true,
	"do": true, "done": true, "case": true, "esac": true, "function": true, "select": true, "{": true, "}": true,
	"[[": true, "]]": true, "coproc": true,
}

// parseShell splits a command line.
func parseShell(src string) shScript {
	var s shScript
	if len(src) > maxScriptBytes {
		s.unparsed = "the command is too long to check"
		return s
	}
	l := lexer{src: src}
	cur := shCommand{}
	flush := func() {
		if len(cur.words) > 0 || len(cur.assigns) > 0 || len(cur.redirs) > 0 {
			s.cmds = append(s.cmds, cur)
		}
		cur = shCommand{}
	}
	for {
		tok, err := l.next()
		if err != "" {
			s.unparsed = err
			return s
		}
		switch tok.kind {
		case tokEOF:
			flush()
			return s
		case tokOp:
			switch tok.op {
			case ";", "\n", "&&", "||", "|", "|&":
				flush()
			case "&":
				s.bg = true
				flush()
			default: // ( ) ;; and anything else
				s.unparsed = "it uses " + quoteOp(tok.op) + ", which the check does not follow"
				return s
			}
		case tokRedirect:
			t, err := l.next()
			if err != "" {
				s.unparsed = err
				return s
			}
			if t.kind != tokWord {
				s.unparsed = "a redirection has no target"
				return s
			}
			cur.redirs = append(cur.redirs, shRedirect{op: tok.op, target: t.word})
		case tokWord:
			w := tok.word
			if len(cur.words) == 0 {
				if !tok.quoted && keywords[w.text] {
					s.unparsed = "it uses the shell keyword " + w.text + ", which the check does not follow"
					return s
				}
				if !tok.quoted && w.text == "!" && !cur.negated {
					cur.negated = true
					continue
				}
				if isAssignment(tok) {
					cur.assigns = append(cur.assigns, w)
					continue
				}
			}
			cur.words = append(cur.words, w)
		}
	}
}

func quoteOp(op string) string {
	if op == "\n" {
		return "a newline"
	}
	return "`" + op + "`"
}

// isAssignment reports whether a word is NAME=value, with NAME unquoted.
func isAssignment(t token) bool {
	eq := strings.IndexByte(t.raw, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := t.raw[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokWord
	tokOp
	tokRedirect
)

type token struct {
	kind   tokKind
	word   shWord
	raw    string // the word as written, for assignments
	quoted bool
	op     string
}

type lexer struct {
	src string
	i   int
}

// next returns the next token, or why the line cannot be followed.
func (l *lexer) next() (token, string) {
	// Blanks, comments and line continuations.
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t':
			l.i++
		case c == '\\' && l.i+1 < len(l.src) && l.src[l.i+1] == '\n':
			l.i += 2
		case c == '#':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
		default:
			goto lex
		}
	}
	return token{kind: tokEOF}, ""
lex:
	c := l.src[l.i]
	// Redirections, with an optional file descriptor number first.
	j := l.i
	for j < len(l.src) && '0' <= l.src[j] && l.src[j] <= '9' {
		j++
	}
	if j < len(l.src) && (l.src[j] == '<' || l.src[j] == '>') || c == '&' && l.i+1 < len(l.src) && l.src[l.i+1] == '>' {
		if c == '&' {
			j = l.i
		}
		for _, op := range []string{"&>>", "&>", "<<<", "<<", "<>", "<&", "<(", "<", ">>", ">&", ">|", ">(", ">"} {
			if strings.HasPrefix(l.src[j:], op) {
				l.i = j + len(op)
				switch op {
				case "<<":
					return token{}, "it uses a here-document (<<), which the check does not follow"
				case "<(", ">(":
					return token{}, "it uses process substitution, which the check does not follow"
				}
				return token{kind: tokRedirect, op: op}, ""
			}
		}
	}
	for _, op := range []string{"&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")"} {
		if strings.HasPrefix(l.src[l.i:], op) {
			l.i += len(op)
			return token{kind: tokOp, op: op}, ""
		}
	}
	return l.word()
}

// word reads one word, removing quotes and noting expansions.
func (l *lexer) word() (token, string) {
	start := l.i
	var b strings.Builder
	var w shWord
	quoted := false
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')':
			goto done
		case c == '\\':
			if l.i+1 >= len(l.src) {
				l.i++
				continue // a trailing backslash stands for nothing
			}
			if l.src[l.i+1] == '\n' {
				l.i += 2
				continue
			}
			b.WriteByte(l.src[l.i+1])
			l.i += 2
			quoted = true
		case c == '\'':
			end := strings.IndexByte(l.src[l.i+1:], '\'')
			if end < 0 {
				return token{}, "a single quote is not closed"
			}
			b.WriteString(l.src[l.i+1 : l.i+1+end])
			l.i += end + 2
			quoted = true
		case c == '"':
			l.i++
			closed := false
			for l.i < len(l.src) {
				d := l.src[l.i]
				if d == '"' {
					l.i++
					closed = true
					break
				}
				if d == '\\' && l.i+1 < len(l.src) && strings.IndexByte("$`\"\\\n", l.src[l.i+1]) >= 0 {
					if l.src[l.i+1] != '\n' {
						b.WriteByte(l.src[l.i+1])
					}
					l.i += 2
					continue
				}
				if d == '`' {
					return token{}, "it uses command substitution (`…`), which the check does not follow"
				}
				if d == '$' {
					if why := l.dollar(&b, &w); why != "" {
						return token{}, why
					}
					continue
				}
				b.WriteByte(d)
				l.i++
			}
			if !closed {
				return token{}, "a double quote is not closed"
			}
			quoted = true
		case c == '`':
			return token{}, "it uses command substitution (`…`), which the check does not follow"
		case c == '$':
			if why := l.dollar(&b, &w); why != "" {
				return token{}, why
			}
		default:
			if c == '*' || c == '?' || c == '[' {
				w.glob = true
			}
			if c == '~' && l.i == start {
				w.tilde = true
			}
			if c == '{' && strings.IndexByte(l.src[l.i:], '}') > 0 && strings.ContainsAny(l.src[l.i:], ",.") {
				w.glob = true // brace expansion: {a,b} or {1..9}
			}
			b.WriteByte(c)
			l.i++
		}
	}
done:
	w.text = b.String()
	return token{kind: tokWord, word: w, raw: l.src[start:l.i], quoted: quoted}, ""
}

// dollar reads an expansion starting at $: a parameter is noted as such; a
// command substitution or arithmetic is not followed.
func (l *lexer) dollar(b *strings.Builder, w *shWord) string {
	rest := l.src[l.i+1:]
	switch {
	case strings.HasPrefix(rest, "("):
		return "it uses command substitution ($(…)), which the check does not follow"
	case strings.HasPrefix(rest, "{"):
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "a ${ is not closed"
		}
		inner := rest[1:end]
		if strings.ContainsAny(inner, "$`(") {
			return "it nests expansions, which the check does not follow"
		}
		b.WriteString("${" + inner + "}")
		l.i += end + 2
		w.dollar = true
		return ""
	case rest != "" && (rest[0] == '_' || isAlnum(rest[0]) || strings.IndexByte("@*#?$!-", rest[0]) >= 0):
		n := 1
		if rest[0] == '_' || isAlpha(rest[0]) {
			for n < len(rest) && (rest[n] == '_' || isAlnum(rest[n])) {
				n++
			}
		}
		b.WriteString("$" + rest[:n])
		l.i += 1 + n
		w.dollar = true
		return ""
	case strings.HasPrefix(rest, "'") || strings.HasPrefix(rest, `"`):
		return "it uses $'…' or $\"…\" quoting, which the check does not follow"
	}
	b.WriteByte('$') // a lone $ is itself
	l.i++
	return ""
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' }
