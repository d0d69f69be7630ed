package tool

import (
	"encoding/json"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/toolbelt-go/tool/internal/jsonparse"
	"github.com/toolbelt-go/tool/internal/text"
)

// The keywords a jsonschema struct tag may use for each kind of field, and
// the checks of their values, for checkTags (tool_schema_tags.go).
var (
	genericTagKeys = []string{"title", "description", "type", "anchor", "oneof_required", "anyof_required", "oneof_ref", "anyof_ref", "oneof_type", "anyof_type"}
	stringTagKeys  = []string{"minLength", "maxLength", "pattern", "format", "readOnly", "writeOnly", "default", "example", "enum"}
	numberTagKeys  = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "default", "example", "enum"}
	arrayTagKeys   = []string{"minItems", "maxItems", "uniqueItems", "default", "format", "pattern"}
	boolTagKeys    = []string{"default"}
	tagFlags       = []string{"required", "nullable"}
	// Keywords whose value is free text, which a comma can cut short.
	textTagKeys = []string{"title", "description", "pattern", "example", "enum", "default", "format"}
)

func describeHint(key string) string {
	if key == "description" {
		return ", or put the description in the jsonschema_description tag, which takes the whole text"
	}
	return ""
}

func lastValue(vals []string) *big.Rat {
	if len(vals) == 0 {
		return nil
	}
	r, ok := new(big.Rat).SetString(vals[len(vals)-1])
	if !ok {
		return nil
	}
	return r
}

// checkTagKeyword checks one keyword=value item for a field whose JSON type
// is kind (and, for arrays, whose items are itemKind).
func checkTagKeyword(kind, itemKind, key, val string) string {
	if slices.Contains(genericTagKeys, key) {
		return ""
	}
	keys := tagKeysFor(kind)
	valueKind := kind
	if kind == "array" && !slices.Contains(arrayTagKeys, key) && slices.Contains(tagKeysFor(itemKind), key) {
		valueKind = itemKind // a keyword of the items
		keys = append(keys, key)
	}
	if !slices.Contains(keys, key) {
		for _, k := range []string{"string", "number", "array", "boolean"} {
			if slices.Contains(tagKeysFor(k), key) {
				return key + " applies to " + k + "s, and this field is " + article(kind) + "; remove it, or change the field's type"
			}
		}
		return strconv.Quote(key) + " is not a keyword this tag knows" + suggestKey(key)
	}
	switch key {
	case "minLength", "maxLength", "minItems", "maxItems":
		if _, err := strconv.ParseUint(val, 10, 64); err != nil {
			return key + "=" + strconv.Quote(val) + " is not a whole number of 0 or more"
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if !isNumberLiteral(val) {
			return key + "=" + strconv.Quote(val) + " is not a number"
		}
		return numberBeyondArgs(key, val)
	case "pattern":
		if _, err := regexp.Compile(val); err != nil {
			return "pattern=" + strconv.Quote(val) + " does not compile (" + err.Error() + "); write \\\\, in the source for a comma inside it"
		}
	case "readOnly", "writeOnly":
		if _, err := strconv.ParseBool(val); err != nil {
			return key + "=" + strconv.Quote(val) + " is not true or false"
		}
	case "uniqueItems":
		if val != "true" {
			return "uniqueItems=" + strconv.Quote(val) + ": write uniqueItems=true"
		}
	case "default", "example", "enum":
		switch valueKind {
		case "integer":
			if !isNumberLiteral(val) {
				return key + "=" + strconv.Quote(text.Cut(val, 40)) + " is not an integer, and this field holds integers"
			}
			if p := numberBeyondArgs(key, val); p != "" {
				return p
			}
			if r, ok := new(big.Rat).SetString(val); !ok || !r.IsInt() {
				return key + "=" + strconv.Quote(val) + " is not an integer, and this field holds integers"
			}
		case "number":
			if !isNumberLiteral(val) {
				return key + "=" + strconv.Quote(val) + " is not a number, and this field holds numbers"
			}
			return numberBeyondArgs(key, val)
		case "boolean":
			if val != "true" && val != "false" {
				return key + "=" + strconv.Quote(val) + " is not true or false"
			}
		}
	}
	return ""
}

func tagKeysFor(kind string) []string {
	switch kind {
	case "string":
		return stringTagKeys
	case "integer", "number":
		return numberTagKeys
	case "array":
		return arrayTagKeys
	case "boolean":
		return boolTagKeys
	}
	return nil
}

func article(kind string) string {
	switch kind {
	case "":
		return "of a type with its own JSON form"
	case "integer", "array", "object":
		return "an " + kind
	}
	return "a " + kind
}

// numberBeyondArgs says why a tag's number is one no argument could carry
// (the rule a schema's numbers follow at registration, under the default
// Limits), or "". The generator would otherwise drop what a float64 cannot
// hold, and the field would lose its bound without a word.
func numberBeyondArgs(key, val string) string {
	e := jsonparse.CheckNumber(val, Limits{}.parser())
	if e == nil {
		return ""
	}
	at := key + "=" + strconv.Quote(text.Cut(val, 40))
	switch e.Kind {
	case jsonparse.NumberTooLong:
		return at + " has more than " + strconv.Itoa(e.Limit) + " characters, more than an argument's number may have; write it with fewer digits"
	case jsonparse.ExponentTooLarge:
		return at + " has an exponent beyond ±" + strconv.Itoa(e.Limit) + ", more than an argument's number may have; write it within ±" + strconv.Itoa(e.Limit)
	case jsonparse.NumberOutOfRange:
		return at + " is beyond what a float64 holds (about ±1.8e308); write it within that range"
	}
	return at + " is not a number"
}

func isNumberLiteral(s string) bool {
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

func suggestKey(key string) string {
	all := slices.Concat(genericTagKeys, stringTagKeys, numberTagKeys, arrayTagKeys, tagFlags)
	if c := text.Closest(key, all, 1); len(c) > 0 {
		return "; did you mean " + c[0] + "?"
	}
	for _, k := range all {
		if strings.EqualFold(k, key) {
			return "; did you mean " + k + "?"
		}
	}
	return ""
}
