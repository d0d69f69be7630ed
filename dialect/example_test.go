package dialect_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolbelt-go/tool"
	"github.com/toolbelt-go/tool/dialect"
)

// A schema as tool.New generates it, put in OpenAI's strict form: the
// optional key becomes required and nullable, and the keywords strict mode
// lacks move into the descriptions.
func ExampleConvert() {
	schema := []byte(`{"type":"object","properties":{
		"city":{"type":"string","minLength":1,"description":"City name"},
		"units":{"type":"string","enum":["metric","imperial"],"default":"metric"}},
		"required":["city"],"additionalProperties":false}`)

	c, err := dialect.Convert(schema, dialect.OpenAIStrict)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Target)
	fmt.Println(string(c.Schema))
	for _, w := range c.Warnings {
		fmt.Println(w)
	}
	// Output:
	// openai-strict
	// {"type":"object","properties":{"city":{"type":"string","description":"City name. At least 1 character."},"units":{"type":["string","null"],"enum":["metric","imperial",null],"description":"Default: \"metric\"."}},"required":["city","units"],"additionalProperties":false}
	// notice: openai-strict: /properties/city: minLength moved to the description: "At least 1 character."
	// notice: openai-strict: /properties/units: default moved to the description: "Default: \"metric\"."
	// info: openai-strict: (root): required rewritten: "optional keys made required and nullable (null means absent): units"
}

// A free-form map cannot be strict: the schema goes as it is, non-strict,
// and the first warning says why.
func ExampleConvert_fallback() {
	schema := []byte(`{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`)
	c, _ := dialect.Convert(schema, dialect.OpenAIStrict)
	fmt.Println(c.Target)
	fmt.Println(c.Warnings[0])
	// Output:
	// openai
	// lossy: openai-strict: /properties/env: sent as openai: it is a map with keys of its own (additionalProperties is a schema), and strict mode needs every key declared
}

// The Schema object of Gemini has Gemini's type names, null as nullable,
// and the property order in propertyOrdering.
func ExampleConvert_gemini() {
	schema := []byte(`{"type":"object","properties":{
		"path":{"type":"string","format":"uri"},
		"depth":{"type":["integer","null"],"exclusiveMinimum":0}},"required":["path"]}`)
	c, _ := dialect.Convert(schema, dialect.Gemini)
	fmt.Println(string(c.Schema))
	// Output:
	// {"type":"OBJECT","properties":{"path":{"type":"STRING","description":"Format: uri."},"depth":{"type":"INTEGER","nullable":true,"minimum":1}},"required":["path"],"propertyOrdering":["path","depth"]}
}

func ExampleCheck() {
	schema := []byte(`{"type":"object","properties":{"q":{"type":"string","minLength":1}}}`)
	for _, v := range dialect.Check(schema, dialect.OpenAIStrict) {
		fmt.Println(v)
	}
	// Output:
	// (root): additionalProperties: every object must have additionalProperties: false
	// (root): required: required must list every property, once
	// /properties/q: minLength: OpenAI's strict mode does not support this keyword
}

// An Exporter over a registry: the tools as Anthropic accepts them, and a
// call of the model mapped back to the tool's own names.
func ExampleExporter() {
	reg := tool.NewRegistry[struct{}](nil)
	reg.MustAdd(tool.NewRaw(tool.Definition{Name: "lookup", Description: "Looks a user up.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"user name":{"type":"string"}},"required":["user name"]}`)},
		func(_ context.Context, args json.RawMessage) (*tool.Result, error) {
			return tool.TextResult(string(args)), nil
		}))

	x := dialect.NewExporter(reg, dialect.Anthropic)
	for _, t := range x.Tools() {
		fmt.Println(t.Name, string(t.Schema))
	}
	for _, w := range x.Warnings() {
		fmt.Println(w)
	}
	req := x.Request("toolu_1", "lookup", json.RawMessage(`{"user_name":"ann"}`))
	fmt.Println(reg.Call(context.Background(), struct{}{}, req).Text())
	// Output:
	// lookup {"type":"object","properties":{"user_name":{"type":"string"}},"required":["user_name"]}
	// notice: lookup: anthropic: /properties/user name: renamed: sent as "user_name": letters, digits, '_', '.' and '-', at most 64
	// {"user name":"ann"}
}
