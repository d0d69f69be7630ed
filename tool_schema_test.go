package tool_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func TestSchemaFromTags(t *testing.T) {
	s, err := tool.SchemaOf[searchArgs]()
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"type":"object","additionalProperties":false,"required":["query"],
		"properties":{
			"query":{"type":"string","minLength":1,"description":"what to find"},
			"limit":{"type":"integer","minimum":1,"maximum":100,"default":10},
			"lang":{"type":"string","enum":["go","rust","python"]},
			"path":{"type":"string","pattern":"^[a-z/]*$"}}}`, string(s))
}
