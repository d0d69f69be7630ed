package tool_test

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/tool"
)

// SearchArgs shows the struct tags: a comma ends an item of the jsonschema
// tag, so a comma inside a value is escaped with a backslash, written \\ in
// the tag's string literal (or the description goes in
// jsonschema_description, which takes the whole text).
type SearchArgs struct {
	Query string `json:"query" jsonschema:"description=Text to find\\, as typed,minLength=1,maxLength=200"`
	Path  string `json:"path,omitempty" jsonschema:"pattern=^[a-zA-Z0-9_./-]*$,default=."`
	Lang  string `json:"lang,omitempty" jsonschema:"enum=go,enum=rust,enum=python"`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=500,default=20"`
	Note  string `json:"note,omitempty" jsonschema_description:"Free text, commas and all."`
}

func ExampleSchemaOf() {
	schema, err := tool.SchemaOf[SearchArgs]()
	if err != nil {
		panic(err) // a tag mistake, naming the field and what to write instead
	}
	var out bytes.Buffer
	_ = json.Indent(&out, schema, "", "  ")
	fmt.Println(out.String())
	// Output:
	// {
	//   "properties": {
	//     "query": {
	//       "type": "string",
	//       "maxLength": 200,
	//       "minLength": 1,
	//       "description": "Text to find, as typed"
	//     },
	//     "path": {
	//       "type": "string",
	//       "pattern": "^[a-zA-Z0-9_./-]*$",
	//       "default": "."
	//     },
	//     "lang": {
	//       "type": "string",
	//       "enum": [
	//         "go",
	//         "rust",
	//         "python"
	//       ]
	//     },
	//     "limit": {
	//       "type": "integer",
	//       "maximum": 500,
	//       "minimum": 1,
	//       "default": 20
	//     },
	//     "note": {
	//       "type": "string",
	//       "description": "Free text, commas and all."
	//     }
	//   },
	//   "additionalProperties": false,
	//   "type": "object",
	//   "required": [
	//     "query"
	//   ]
	// }
}
