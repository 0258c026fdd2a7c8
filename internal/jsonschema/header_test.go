package jsonschema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeaderParams(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		want   []HeaderParam
	}{
		{"none", `{"type":"object","properties":{"q":{"type":"string"}}}`, nil},
		{"boolean schema", `true`, nil},
		{"spec example", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}},"required":["region","query"]}`,
			[]HeaderParam{{Name: "Region", Path: []string{"region"}, Type: "string"}}},
		{"nested through properties", `{"type":"object","properties":{
			"region":{"type":"string","x-mcp-header":"Region"},
			"confirm":{"type":"boolean","x-mcp-header":"Confirm"},
			"options":{"type":"object","properties":{"limit":{"type":"integer","x-mcp-header":"Limit"}}}}}`,
			[]HeaderParam{
				{Name: "Confirm", Path: []string{"confirm"}, Type: "boolean"},
				{Name: "Limit", Path: []string{"options", "limit"}, Type: "integer"},
				{Name: "Region", Path: []string{"region"}, Type: "string"},
			}},
		{"data keywords not searched", `{"type":"object","properties":{"a":{"type":"object",
			"default":{"x-mcp-header":"Nope"},"examples":[{"x-mcp-header":"Nope"}],
			"const":{"x-mcp-header":"Nope"},"enum":[{"x-mcp-header":"Nope"}]}},
			"x-vendor":{"properties":{"b":{"x-mcp-header":"Nope"}}}}`, nil},
		{"token characters", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"!#$%&'*+-.^_` + "`" + `|~09AZaz"}}}`,
			[]HeaderParam{{Name: "!#$%&'*+-.^_`|~09AZaz", Path: []string{"a"}, Type: "string"}}},
		{"property name with slash", `{"type":"object","properties":{"a/b":{"type":"string","x-mcp-header":"AB"}}}`,
			[]HeaderParam{{Name: "AB", Path: []string{"a/b"}, Type: "string"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HeaderParams([]byte(tc.schema))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestHeaderParamsErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		want   error
		where  string // expected in the message
	}{
		{"number type", `{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`, ErrInvalidHeader, "/properties/n"},
		{"object type", `{"type":"object","properties":{"n":{"type":"object","x-mcp-header":"N"}}}`, ErrInvalidHeader, "/properties/n"},
		{"type list", `{"type":"object","properties":{"n":{"type":["string","null"],"x-mcp-header":"N"}}}`, ErrInvalidHeader, "/properties/n"},
		{"no type", `{"type":"object","properties":{"n":{"x-mcp-header":"N"}}}`, ErrInvalidHeader, "/properties/n"},
		{"ref type", `{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"n":{"$ref":"#/$defs/s","x-mcp-header":"N"}}}`, ErrInvalidHeader, "/properties/n"},
		{"empty name", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":""}}}`, ErrInvalidHeader, "empty"},
		{"not a string", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":7}}}`, ErrInvalidHeader, "string"},
		{"space", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"A B"}}}`, ErrInvalidHeader, "token"},
		{"CR LF", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"A\r\nB"}}}`, ErrInvalidHeader, "0x0d"},
		{"non-ASCII", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"Régión"}}}`, ErrInvalidHeader, "0xc3"},
		{"separator", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"a(b)"}}}`, ErrInvalidHeader, "token"},
		{"duplicate ignoring case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`, ErrInvalidHeader, "already used at /properties/a"},
		{"duplicate nested", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R"},"o":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"r"}}}}}`, ErrInvalidHeader, "already used"},
		{"on root", `{"type":"string","x-mcp-header":"Root"}`, ErrInvalidHeader, "root"},
		{"under items", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, ErrInvalidHeader, "/properties/a/items"},
		{"under items object", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}}}}`, ErrInvalidHeader, "/properties/a/items/properties/b"},
		{"under prefixItems", `{"type":"object","properties":{"a":{"prefixItems":[{"type":"string","x-mcp-header":"A"}]}}}`, ErrInvalidHeader, "/properties/a/prefixItems/0"},
		{"under oneOf", `{"type":"object","oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, ErrInvalidHeader, "/oneOf/0/properties/a"},
		{"under anyOf", `{"type":"object","anyOf":[{"type":"string","x-mcp-header":"A"}]}`, ErrInvalidHeader, "/anyOf/0"},
		{"under allOf", `{"type":"object","allOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, ErrInvalidHeader, "/allOf/0"},
		{"under not", `{"type":"object","not":{"type":"string","x-mcp-header":"A"}}`, ErrInvalidHeader, "/not"},
		{"under if then else", `{"type":"object","if":{},"then":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}`, ErrInvalidHeader, "/then/properties/a"},
		{"under else", `{"type":"object","else":{"type":"string","x-mcp-header":"A"}}`, ErrInvalidHeader, "/else"},
		{"under $defs", `{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"A"}}}`, ErrInvalidHeader, "/$defs/d"},
		{"under additionalProperties", `{"type":"object","additionalProperties":{"type":"string","x-mcp-header":"A"}}`, ErrInvalidHeader, "/additionalProperties"},
		{"under patternProperties", `{"type":"object","patternProperties":{"^a":{"type":"string","x-mcp-header":"A"}}}`, ErrInvalidHeader, "/patternProperties/^a"},
		{"under dependentSchemas", `{"type":"object","dependentSchemas":{"a":{"properties":{"b":{"type":"string","x-mcp-header":"B"}}}}}`, ErrInvalidHeader, "/dependentSchemas/a"},
		{"not JSON", `{"type":`, ErrInvalidSchema, "JSON"},
		{"too large", `{"description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, ErrLimitExceeded, "size"},
		{"too deep", strings.Repeat(`{"not":`, MaxSchemaDepth) + `{}` + strings.Repeat(`}`, MaxSchemaDepth), ErrLimitExceeded, "depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := HeaderParams([]byte(tc.schema))
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.where)
		})
	}
}

func TestHeaderParamHeader(t *testing.T) {
	assert.Equal(t, "Mcp-Param-Region", HeaderParam{Name: "Region"}.Header())
}
