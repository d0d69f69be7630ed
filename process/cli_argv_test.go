package process

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolbelt-go/tool"
)

// Whatever object reaches argv (a raw tool can be called without
// preflight), every flag it makes is a declared property's, and values
// never become flags of their own.
func FuzzCLIArgv(f *testing.F) {
	c := CLI{Path: "x", Mode: ArgsAsFlags, Flags: map[string]string{"ignore_case": "-i"}, Positional: []string{"pattern"},
		Definition: tool.Definition{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{
			"pattern":{"type":"string"},"count":{"type":"integer"},"ignore_case":{"type":"boolean"},"exclude":{"type":"array"}},
			"additionalProperties":false}`)}}
	var err error
	if c.declared, err = flagProperties(&c); err != nil {
		f.Fatal(err)
	}
	f.Add(`{"pattern":"-rf","count":3,"ignore_case":true,"exclude":["a","--exec=x"]}`)
	f.Add(`{"exec":"x","--pre":"sh -c id","":"v","pattern":"p"}`)
	f.Add(`{"count":0.5e1,"exclude":[1,true,null,"x"]}`)
	f.Add(`{"pattern":{"a":1}}`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, args string) {
		argv, err := c.argv(json.RawMessage(args))
		if err != nil {
			return
		}
		for _, a := range argv {
			if a == "--" {
				return // positional arguments follow
			}
			ok := false
			for _, flag := range []string{"-i", "--count", "--exclude"} {
				ok = ok || a == flag || strings.HasPrefix(a, flag+"=")
			}
			if !ok {
				t.Fatalf("argv(%s) = %q: %q is not a declared flag", args, argv, a)
			}
		}
	})
}
