package tool

import (
	"reflect"
	"strings"
	"testing"
)

// A tag value Go cannot unquote hides that key from reflect: the field
// would silently lose its description and bounds. Such tags cannot be
// written in a test file (go vet refuses them), so the types are built here.
func TestTagSyntax(t *testing.T) {
	tests := []struct {
		tag  string
		says string // "" when the tag is fine
	}{
		{`json:"q" jsonschema:"description=a\\, b,minLength=1"`, ""},
		{`json:"q" jsonschema:"description=a\, b,minLength=1"`, `written \\ (an escaped comma is \\,)`},
		{`json:"q" jsonschema_description:"a\, b"`, "not valid Go tag syntax"},
		{`json:"q\," jsonschema:"minLength=1"`, "not valid Go tag syntax"},
		{`other:"x\,y" json:"q"`, ""}, // another key's value: reflect never unquotes it
		{`other:"x\,y"`, ""},          // none of the schema's keys: not ours to judge
	}
	for _, tt := range tests {
		typ := reflect.StructOf([]reflect.StructField{{Name: "Q", Type: reflect.TypeFor[string](), Tag: reflect.StructTag(tt.tag)}})
		err := checkTags(typ)
		switch {
		case tt.says == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.tag, err)
		case tt.says != "" && (err == nil || !strings.Contains(err.Error(), tt.says)):
			t.Errorf("%s: error %v, want it to say %q", tt.tag, err, tt.says)
		}
	}
}
