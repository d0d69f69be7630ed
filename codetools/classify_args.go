package codetools

import (
	"slices"
	"strings"
)

// This file reads a command's options the way the programs themselves do
// (GNU getopt_long, which most of them use), so that the check sees the
// same options, values and operands as the program: a value is never
// taken for an operand or the other way round, and a long option is found
// by any unambiguous prefix of its name, as getopt_long accepts
// (sort --compress=gzip is sort --compress-program=gzip).

// argKind says whether an option takes a value.
type argKind uint8

const (
	noArg       argKind = iota
	requiredArg         // -o FILE, -oFILE, --output FILE, --output=FILE
	optionalArg         // -i[SUFFIX], --in-place[=SUFFIX]: attached only
)

// optSpec describes a program's options.
type optSpec struct {
	// short lists the short options, each letter followed by ':' when it
	// takes a value and by '::' when the value is optional (getopt's own
	// notation).
	short string
	// long maps each long option's name (without --) to its kind.
	long map[string]argKind
	// posix stops at the first operand, as env, nice and the other
	// programs that run a command do; otherwise options may follow
	// operands, as getopt permutes them.
	posix bool
	// lenient takes an unknown option for a flag without a value, for
	// programs none of whose options writes a file or runs a program (the
	// check only needs the operands); otherwise an unknown option makes
	// the command one the check cannot follow.
	lenient bool
	// numbers accepts -NUMBER (head -5, nice -10).
	numbers bool
}

// parsedOpt is one option found: its canonical name ("-n", "--lines") and
// value.
type parsedOpt struct {
	name  string
	value string
	has   bool // a value was given
	word  int  // the index of the word that held the option
}

// parsedArgs is a command's arguments, read.
type parsedArgs struct {
	opts     []parsedOpt
	operands []shWord
	unknown  string // an option the check does not know, or that is ambiguous
	rest     int    // in posix mode, the index of the first operand (len(args) if none)
}

// has reports whether one of the options was given (short as "-x", long
// as "--name").
func (p *parsedArgs) has(names ...string) bool {
	return slices.ContainsFunc(p.opts, func(o parsedOpt) bool { return slices.Contains(names, o.name) })
}

// values returns the values given to the options.
func (p *parsedArgs) values(names ...string) []parsedOpt {
	var out []parsedOpt
	for _, o := range p.opts {
		if slices.Contains(names, o.name) {
			out = append(out, o)
		}
	}
	return out
}

// shortKind returns how the short option c is declared.
func (s *optSpec) shortKind(c byte) (argKind, bool) {
	i := strings.IndexByte(s.short, c)
	if i < 0 || c == ':' {
		return noArg, false
	}
	switch {
	case strings.HasPrefix(s.short[i+1:], "::"):
		return optionalArg, true
	case strings.HasPrefix(s.short[i+1:], ":"):
		return requiredArg, true
	}
	return noArg, true
}

// longName finds the long option name stands for: itself, or the one
// option it is a prefix of.
func (s *optSpec) longName(name string) (string, argKind, bool) {
	if k, ok := s.long[name]; ok {
		return name, k, true
	}
	found, kind, n := "", noArg, 0
	for full, k := range s.long {
		if strings.HasPrefix(full, name) {
			found, kind, n = full, k, n+1
		}
	}
	if n == 1 {
		return found, kind, true
	}
	return "", noArg, false
}

// parse reads args by the spec.
func (s *optSpec) parse(args []shWord) parsedArgs {
	var p parsedArgs
	p.rest = len(args)
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.text
		switch {
		case t == "--":
			p.operands = append(p.operands, args[i+1:]...)
			if p.rest == len(args) {
				p.rest = i + 1
			}
			return p
		case len(t) < 2 || t[0] != '-':
			if s.posix {
				p.rest = i
				p.operands = append(p.operands, args[i:]...)
				return p
			}
			p.operands = append(p.operands, w)
			continue
		case strings.HasPrefix(t, "--"):
			name, val, eq := strings.Cut(t[2:], "=")
			full, kind, ok := s.longName(name)
			if !ok {
				if !s.lenient || s.ambiguous(name) {
					p.fail(t)
					continue
				}
				full, kind = name, noArg
			}
			o := parsedOpt{name: "--" + full, word: i}
			switch {
			case eq:
				o.value, o.has = val, true
			case kind == requiredArg && i+1 < len(args):
				i++
				o.value, o.has = args[i].text, true
			}
			p.opts = append(p.opts, o)
		case s.numbers && isDigits(t[1:]):
			p.opts = append(p.opts, parsedOpt{name: "-#", value: t[1:], has: true, word: i})
		default:
			for j := 1; j < len(t); j++ {
				c := t[j]
				kind, ok := s.shortKind(c)
				if !ok && !s.lenient {
					p.fail(t)
					break
				}
				o := parsedOpt{name: "-" + string(c), word: i}
				if kind != noArg {
					switch {
					case j+1 < len(t):
						o.value, o.has = t[j+1:], true
					case kind == requiredArg && i+1 < len(args):
						i++
						o.value, o.has = args[i].text, true
					}
					p.opts = append(p.opts, o)
					break
				}
				p.opts = append(p.opts, o)
			}
		}
	}
	return p
}

// ambiguous reports whether a long option is a prefix of several.
func (s *optSpec) ambiguous(name string) bool {
	n := 0
	for full := range s.long {
		if strings.HasPrefix(full, name) {
			n++
		}
	}
	return n > 1
}

func (p *parsedArgs) fail(word string) {
	if p.unknown == "" {
		p.unknown = word
	}
}

// longs builds a long-option table: names ending in "=" take a value,
// in "=?" an optional one.
func longs(names ...string) map[string]argKind {
	m := make(map[string]argKind, len(names))
	for _, n := range names {
		switch {
		case strings.HasSuffix(n, "=?"):
			m[strings.TrimSuffix(n, "=?")] = optionalArg
		case strings.HasSuffix(n, "="):
			m[strings.TrimSuffix(n, "=")] = requiredArg
		default:
			m[n] = noArg
		}
	}
	return m
}
