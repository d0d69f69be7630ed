package codetools

import (
	"strings"

	"github.com/toolbelt-go/tool"
)

// reader is a program that only reads or prints, as long as its options
// are among those its spec knows (unless the spec is lenient: none of the
// program's options writes a file or runs a program).
type reader struct {
	spec *optSpec
	use  pathUse
	// check looks at the parsed arguments for what makes the command more
	// than a read (an output file) and for values that are paths; nil
	// reads every operand as use says.
	check func(c *classifier, n string, p parsedArgs)
}

func (r *reader) classify(c *classifier, n string, args []shWord) {
	spec := r.spec
	if spec == nil {
		spec = &optSpec{lenient: true}
	}
	p := spec.parse(args)
	if p.unknown != "" {
		c.cannot("the check does not know the option " + cut(p.unknown, 40) + " of " + n)
		return
	}
	if r.check != nil {
		r.check(c, n, p)
		return
	}
	c.readAll(p.operands, r.use)
}

// lenient returns the spec of a program none of whose options writes a
// file or runs a program: only the options that take a value are named,
// so that their values are not read as operands.
func lenient(short string, long ...string) *optSpec {
	return &optSpec{short: short, long: longs(long...), lenient: true}
}

// readValues checks the values of path-valued options.
func (c *classifier) readValues(p parsedArgs, use pathUse, names ...string) {
	for _, o := range p.values(names...) {
		c.read(shWord{text: o.value}, use)
	}
}

// fromFile flags a program that reads its operands' names from a file (or
// its input): the files those name are unseen.
func (c *classifier) fromFile(p parsedArgs, n string, names ...string) {
	for _, o := range p.values(names...) {
		c.read(shWord{text: o.value}, contents)
		c.unseen(n + " " + o.name + " (reads the files a list names)")
	}
}

var text = &reader{use: noPaths}

// readers are the programs that only read, when their options say so.
var readers = map[string]*reader{
	// Operands are text.
	"echo": text, "true": text, "false": text, ":": text, "pwd": text, "whoami": text, "id": text,
	"uname": text, "seq": text, "sleep": text, "expr": text, "basename": text, "dirname": text,
	"which": text, "type": text, "printenv": text, "nproc": text, "arch": text, "tty": text,
	"groups": text, "locale": text, "yes": text, "exit": text, "wait": text, "shift": text,
	"times": text, "jobs": text, "return": text, "break": text, "continue": text, "tr": text,
	"printf": {spec: &optSpec{short: "v:", posix: true}, check: func(c *classifier, n string, p parsedArgs) {
		if p.has("-v") {
			c.cannot("printf -v sets a variable, which can change what later commands do")
		}
	}},
	"test": {spec: &optSpec{lenient: true}, check: checkTest},
	"[":    {spec: &optSpec{lenient: true}, check: checkTest},
	"hostname": {spec: lenient("F:", "file="), check: func(c *classifier, n string, p parsedArgs) {
		if len(p.operands) > 0 || p.has("-F", "--file") {
			c.raise(tool.SafetyMutating, "hostname NAME renames the machine", "hostname")
		}
	}},
	"date": {spec: &optSpec{short: "d:f:I::r:s:uR", long: longs("date=", "file=", "iso-8601=?", "reference=", "set=",
		"utc", "universal", "rfc-email", "rfc-2822", "rfc-3339=", "debug", "resolution", "help", "version")},
		check: func(c *classifier, n string, p parsedArgs) {
			// date -f prints each line it cannot read as a date, so the
			// file is read as much as by cat.
			c.readValues(p, contents, "-f", "--file")
			c.readValues(p, names, "-r", "--reference")
			set := p.has("-s", "--set")
			for _, o := range p.operands {
				if !strings.HasPrefix(o.text, "+") {
					set = true // date MMDDhhmm sets the clock
				}
			}
			if set {
				c.raise(tool.SafetyMutating, "date sets the clock", "date")
			}
		}},

	// Operands are files looked at, not printed.
	"ls":        {spec: lenient("I:T:w:", "ignore=", "hide=", "block-size=", "format=", "indicator-style=", "quoting-style=", "sort=", "time=", "time-style=", "tabsize=", "width="), use: names},
	"stat":      {spec: lenient("c:", "format=", "printf=", "cached="), use: names},
	"du":        {spec: lenient("B:d:t:X:", "block-size=", "max-depth=", "threshold=", "exclude=", "exclude-from=", "files0-from=", "time-style="), check: checkNamesFrom},
	"df":        {spec: lenient("B:t:x:", "block-size=", "type=", "exclude-type=", "output=?"), use: names},
	"realpath":  {spec: lenient("", "relative-to=", "relative-base="), use: names},
	"readlink":  {use: names},
	"md5sum":    {use: names},
	"sha1sum":   {use: names},
	"sha224sum": {use: names},
	"sha256sum": {use: names},
	"sha384sum": {use: names},
	"sha512sum": {use: names},
	"b2sum":     {spec: lenient("l:", "length="), use: names},
	"cksum":     {spec: lenient("a:l:", "algorithm=", "length="), use: names},
	"sum":       {use: names},
	"wc":        {spec: lenient("", "files0-from="), check: checkNamesFrom},
	"file": {spec: lenient("e:F:f:m:P:", "exclude=", "exclude-quiet=", "separator=", "files-from=", "magic-file=", "parameter="),
		check: func(c *classifier, n string, p parsedArgs) {
			if p.has("-C", "--compile") {
				c.raise(tool.SafetyMutating, "file -C writes a compiled magic file", "file -C")
			}
			c.readValues(p, contents, "-m", "--magic-file")
			c.readValues(p, names, "-f", "--files-from")
			c.readAll(p.operands, names)
		}},
	"tree": {spec: lenient("L:P:I:o:H:T:", "charset=", "filelimit=", "timefmt=", "sort=", "fromfile", "gitfile=", "infofile="),
		check: func(c *classifier, n string, p parsedArgs) {
			if p.has("-o", "-R") {
				c.raise(tool.SafetyDestructive, "tree -o and -R write files", "tree -o")
			}
			use := names
			if p.has("--fromfile") {
				use = contents // it prints the lines of the files it is given
			}
			c.readValues(p, contents, "--gitfile", "--infofile")
			c.readAll(p.operands, use)
		}},

	// Operands are files printed.
	"cat": {use: contents},
	"tac": {spec: lenient("s:", "separator="), use: contents},
	"nl":  {spec: lenient("b:d:f:h:i:l:n:s:v:w:"), use: contents},
	"od":  {spec: lenient("A:j:N:S:t:w::", "address-radix=", "skip-bytes=", "read-bytes=", "strings=?", "format=", "width=?"), use: contents},
	"hexdump": {spec: lenient("e:f:n:s:"), check: func(c *classifier, n string, p parsedArgs) {
		c.readValues(p, contents, "-f")
		c.readAll(p.operands, contents)
	}},
	"strings":  {spec: lenient("n:t:e:T:", "bytes=", "radix=", "encoding=", "target=", "output-separator="), use: contents},
	"cmp":      {spec: lenient("i:n:", "ignore-initial=", "bytes="), use: contents},
	"comm":     {spec: lenient("", "output-delimiter="), use: contents},
	"cut":      {spec: lenient("b:c:d:f:", "bytes=", "characters=", "delimiter=", "fields=", "output-delimiter="), use: contents},
	"column":   {spec: lenient("c:s:o:N:R:W:H:E:O:T:l:r:i:p:n:"), use: contents},
	"fold":     {spec: lenient("w:", "width="), use: contents},
	"fmt":      {spec: lenient("w:p:g:", "width=", "prefix=", "goal="), use: contents},
	"paste":    {spec: lenient("d:", "delimiters="), use: contents},
	"join":     {spec: lenient("1:2:j:o:t:e:a:v:"), use: contents},
	"expand":   {spec: lenient("t:", "tabs="), use: contents},
	"unexpand": {spec: lenient("t:", "tabs="), use: contents},
	"rev":      {use: contents},
	"base64":   {spec: lenient("w:", "wrap="), use: contents},
	"base32":   {spec: lenient("w:", "wrap="), use: contents},
	"head":     {spec: &optSpec{short: "c:n:", long: longs("bytes=", "lines="), lenient: true, numbers: true}, use: contents},
	"tail":     {spec: &optSpec{short: "c:n:s:", long: longs("bytes=", "lines=", "pid=", "sleep-interval=", "max-unchanged-stats="), lenient: true, numbers: true}, use: contents},
	"xxd":      {spec: lenient("c:g:l:o:s:n:", "cols=", "groupsize=", "len=", "offset=", "seek=", "name="), check: outputOperand},
	"uniq":     {spec: lenient("f:s:w:", "skip-fields=", "skip-chars=", "check-chars=", "group=?", "all-repeated=?"), check: outputOperand},
	"diff": {spec: lenient("C:U:W:x:X:S:I:F:D:L:", "context=?", "unified=?", "width=", "exclude=", "exclude-from=",
		"starting-file=", "ignore-matching-lines=", "show-function-line=", "ifdef=", "label=", "from-file=", "to-file=",
		"line-format=", "old-line-format=", "new-line-format=", "unchanged-line-format=", "old-group-format=",
		"new-group-format=", "unchanged-group-format=", "changed-group-format=", "horizon-lines=", "tabsize=", "color=?", "palette="),
		check: func(c *classifier, n string, p parsedArgs) {
			if p.has("-r", "--recursive") {
				c.unseen("diff -r (reads whole trees)")
			}
			c.readValues(p, contents, "-X", "--exclude-from")
			for _, o := range p.values("--from-file", "--to-file") {
				c.readDir(shWord{text: o.value})
			}
			for _, o := range p.operands {
				c.readDir(o)
			}
		}},
	"grep":  {spec: grepSpec, check: checkGrep},
	"egrep": {spec: grepSpec, check: checkGrep},
	"fgrep": {spec: grepSpec, check: checkGrep},
	"rg":    {spec: rgSpec, check: checkRg},
	"sort":  {spec: sortSpec, check: checkSort},
}

// checkTest refuses bash's test -v, whose operand names an array element
// whose subscript bash evaluates, $(…) included.
func checkTest(c *classifier, n string, p parsedArgs) {
	if p.has("-v") || p.has("-R") {
		c.cannot(n + " -v evaluates its operand as a variable name, which can run commands")
	}
}

// checkNamesFrom reads du's and wc's operands, and the list file their
// --files0-from names (its content appears in their error messages).
func checkNamesFrom(c *classifier, n string, p parsedArgs) {
	c.fromFile(p, n, "--files0-from")
	c.readValues(p, contents, "-X", "--exclude-from")
	c.readAll(p.operands, names)
}

// outputOperand reads the input operand of xxd and uniq; a second operand
// is an output file they replace.
func outputOperand(c *classifier, n string, p parsedArgs) {
	if len(p.operands) > 1 {
		c.raise(tool.SafetyDestructive, n+" with an output file replaces it", n+" IN OUT")
	}
	if len(p.operands) > 0 {
		c.read(p.operands[0], contents)
	}
}

var grepSpec = lenient("e:f:m:A:B:C:d:D:",
	"regexp=", "file=", "max-count=", "after-context=", "before-context=", "context=?", "directories=", "devices=",
	"exclude=", "include=", "exclude-from=", "exclude-dir=", "label=", "color=?", "colour=?", "binary-files=", "group-separator=")

// checkGrep: the first operand is the pattern unless -e or -f gave it;
// searching a tree reads every file in it.
func checkGrep(c *classifier, n string, p parsedArgs) {
	ops := p.operands
	c.readValues(p, contents, "-f", "--file", "--exclude-from")
	if !p.has("-e", "--regexp", "-f", "--file") && len(ops) > 0 {
		ops = ops[1:]
	}
	recursive := p.has("-r", "-R", "--recursive", "--dereference-recursive")
	for _, o := range p.values("-d", "--directories") {
		recursive = recursive || o.value == "recurse"
	}
	if recursive {
		c.unseen(n + " -r (searches a whole tree)")
		c.readAll(ops, names)
		return
	}
	c.readAll(ops, contents)
}

var rgSpec = lenient("e:f:g:t:T:m:A:B:C:E:j:M:r:",
	"regexp=", "file=", "glob=", "iglob=", "type=", "type-not=", "type-add=", "type-clear=", "max-count=",
	"after-context=", "before-context=", "context=", "encoding=", "threads=", "max-columns=", "replace=",
	"max-depth=", "max-filesize=", "ignore-file=", "colors=", "color=", "sort=", "sortr=", "path-separator=",
	"context-separator=", "field-context-separator=", "field-match-separator=", "dfa-size-limit=", "regex-size-limit=",
	"engine=", "pre=", "pre-glob=", "hostname-bin=", "hyperlink-format=", "generate=", "max-columns-preview")

// checkRg: ripgrep searches a tree unless every operand is a file, and
// --pre and --hostname-bin run programs.
func checkRg(c *classifier, n string, p parsedArgs) {
	if p.has("--pre", "--hostname-bin") {
		c.cannot("rg --pre and --hostname-bin run programs")
		return
	}
	ops := p.operands
	c.readValues(p, contents, "-f", "--file", "--ignore-file")
	if !p.has("-e", "--regexp", "-f", "--file", "--files", "--type-list") && len(ops) > 0 {
		ops = ops[1:]
	}
	c.unseen("rg (searches a whole tree unless given files)")
	c.readAll(ops, names)
}

var sortSpec = &optSpec{short: "bcCdfghik:imMno:rRsS:t:T:uVz",
	long: longs("ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort", "ignore-nonprinting",
		"month-sort", "human-numeric-sort", "numeric-sort", "random-sort", "random-source=", "reverse", "sort=",
		"version-sort", "batch-size=", "check=?", "compress-program=", "debug", "files0-from=", "key=", "merge",
		"output=", "stable", "buffer-size=", "field-separator=", "temporary-directory=", "parallel=", "unique",
		"zero-terminated", "help", "version")}

// checkSort: -o replaces a file, --compress-program runs one (on sort's
// own temporary files, which hold its input), -T writes elsewhere.
func checkSort(c *classifier, n string, p parsedArgs) {
	switch {
	case p.has("--compress-program"):
		c.cannot("sort --compress-program runs a program")
		return
	case p.has("-o", "--output"):
		c.raise(tool.SafetyDestructive, "sort -o replaces a file", "sort -o")
	case p.has("-T", "--temporary-directory"):
		c.raise(tool.SafetyMutating, "sort -T writes temporary files in another directory", "sort -T")
	}
	c.readValues(p, names, "--random-source")
	c.fromFile(p, n, "--files0-from")
	c.readAll(p.operands, contents)
}
