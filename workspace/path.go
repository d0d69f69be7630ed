package workspace

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Limits on the paths a model may write: what every common file system
// accepts, and far more than a real project needs.
const (
	maxPathBytes = 4096
	maxNameBytes = 255
)

// Access is what an operation does with a path, for [Workspace.Check].
type Access uint8

const (
	// Read: read a file, list a directory, look at a path.
	Read Access = iota + 1
	// Write: create or replace a file, make a directory.
	Write
)

// target is a path the lexical rules accepted: a root and a clean path
// inside it.
type target struct {
	r   *root
	rel string // slash-separated, clean, "." for the root; never ".." or absolute
}

// shown is how the model is shown a path inside r: relative to the
// workspace root, or absolute inside an extra root (whose absolute path the
// host chose to give the model).
func (r *root) shown(rel string) string {
	if !r.extra {
		return rel
	}
	if rel == "." {
		return r.dir
	}
	return filepath.Join(r.dir, filepath.FromSlash(rel))
}

// names returns the names of a path inside r as written, for resolve:
// relative to r, with the "." and ".." the caller wrote, which clean (the
// path as locate cleaned it) has lost.
func (r *root) names(name, clean string, windows bool) []string {
	raw := name
	if windows {
		raw = strings.ReplaceAll(raw, `\`, "/")
	}
	if strings.HasPrefix(raw, "/") || windows && len(raw) >= 2 && raw[1] == ':' {
		rest, ok := "", false
		for _, dir := range []string{r.dir, r.real} {
			d := filepath.ToSlash(dir)
			if rest, ok = strings.CutPrefix(raw, d+"/"); ok {
				break
			}
		}
		if !ok {
			return strings.Split(clean, "/")
		}
		raw = rest
	}
	return strings.Split(raw, "/")
}

// lexical checks name as text, with no file-system access, and returns it
// clean and slash-separated, and whether it is absolute. windows selects
// that system's rules, so that tests on other systems cover them too.
func lexical(name string, windows bool) (clean string, abs bool, why string) {
	switch {
	case name == "":
		return "", false, `the path is empty; use "." for the workspace root`
	case len(name) > maxPathBytes:
		return "", false, fmt.Sprintf("it is %d bytes long; paths are at most %d", len(name), maxPathBytes)
	case !utf8.ValidString(name):
		return "", false, "it is not valid UTF-8"
	case strings.IndexByte(name, 0) >= 0:
		return "", false, "it contains a NUL byte"
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return "", false, fmt.Sprintf("it contains the control character %U", r)
		}
	}
	if windows {
		name = strings.ReplaceAll(name, `\`, "/")
		if len(name) >= 2 && name[1] == ':' && isLetter(name[0]) {
			if len(name) == 2 || name[2] != '/' {
				return "", false, "it is relative to a drive's current directory (C:name); write it relative to the workspace root"
			}
			return name, true, ""
		}
		if strings.HasPrefix(name, "/") {
			return name, true, "" // rooted, or \\server\share, \\?\…
		}
	} else if strings.HasPrefix(name, "/") {
		return name, true, ""
	}
	clean = path.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return clean, false, ""
	}
	return clean, false, checkNames(clean, windows)
}

// checkNames checks each name of a clean relative path.
func checkNames(rel string, windows bool) string {
	if rel == "." {
		return ""
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if len(seg) > maxNameBytes {
			return fmt.Sprintf("the name %q is %d bytes long; names are at most %d", cut(seg, 40), len(seg), maxNameBytes)
		}
		if windows {
			if why := windowsName(seg); why != "" {
				return why
			}
		}
	}
	return ""
}

// windowsName refuses the names Windows reads as something else than
// what they say: the file system drops trailing dots and spaces (".env."
// opens ".env"), "name:stream" opens an alternate data stream, "NAME~1" may
// be the short name of another file, and CON, NUL, COM1… are devices. Each
// of them could reach a file the deny list protects by another name.
func windowsName(seg string) string {
	if strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " ") {
		return fmt.Sprintf("the name %q ends in a dot or a space, which Windows drops", seg)
	}
	if strings.ContainsAny(seg, `:*?"<>|`) {
		return fmt.Sprintf("the name %q holds a character Windows does not allow in names (: * ? \" < > |)", seg)
	}
	if i := strings.IndexByte(seg, '~'); i >= 0 && i+1 < len(seg) && seg[i+1] >= '0' && seg[i+1] <= '9' {
		return fmt.Sprintf("the name %q looks like a Windows short name (NAME~1), which may stand for another file", seg)
	}
	stem, _, _ := strings.Cut(seg, ".")
	switch strings.ToUpper(strings.TrimRight(stem, " ")) {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
		"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
		return fmt.Sprintf("the name %q is a Windows device name", seg)
	}
	return ""
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// within returns target relative to base, slash-separated, when target is
// base or inside it, comparing whole names (so /srv/app2 is not inside
// /srv/app).
func within(base, target string) (string, bool) {
	if base == "" {
		return "", false
	}
	rel, err := filepath.Rel(base, target)
	if err != nil || filepath.IsAbs(rel) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// denyNames is the form of a path the deny and read-only lists are
// matched against: on every system, the names as Windows would read them
// (trailing dots and spaces dropped), so that a list written once holds on
// all of them. Case and normalization are folded by the patterns.
func denyNames(rel string) string {
	if !strings.ContainsAny(rel, ". ") {
		return rel
	}
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		if t := strings.TrimRight(s, ". "); t != "" && s != "." && s != ".." {
			segs[i] = t
		}
	}
	return strings.Join(segs, "/")
}
