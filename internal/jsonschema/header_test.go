package jsonschema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
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

// TestHeaderParamMatches compares decoded Mcp-Param-* values with body values (issue 10,
// defect 14): integers exactly and only in their canonical decimal form, so that what a proxy
// reads from the header is what the server executes.
func TestHeaderParamMatches(t *testing.T) {
	for _, tc := range []struct {
		typ, header, body string
		want              bool
	}{
		{"integer", "1", `1`, true},
		{"integer", "42", `42`, true},
		{"integer", "-7", `-7`, true},
		{"integer", "0", `0`, true},
		{"integer", "0", `-0`, true},
		{"integer", "0", `-0.0`, true},
		{"integer", "42", `42.0`, true}, // the body may be any integer-valued number
		{"integer", "42", `4.2e1`, true},
		{"integer", "100", `1e2`, true},
		{"integer", "100", `100`, true},
		{"integer", "9007199254740991", `9007199254740991`, true},
		{"integer", "-9007199254740991", `-9007199254740991`, true},
		{"integer", "9007199254740991", `9.007199254740991e15`, true},

		// Exact: float64 would call these equal.
		{"integer", "9007199254740992", `9007199254740993`, false},
		{"integer", "9007199254740993", `9007199254740992`, false},
		{"integer", "1", `1.000000000000000000001`, false},
		{"integer", "1", `1.5`, false},
		// Outside ±(2^53-1), even when equal.
		{"integer", "9007199254740992", `9007199254740992`, false},
		{"integer", "-9007199254740992", `-9007199254740992`, false},
		{"integer", "1", `1e999999`, false},
		// Header forms other than the canonical decimal one.
		{"integer", "0x1p0", `1`, false},
		{"integer", "0x1", `1`, false},
		{"integer", "1e0", `1`, false},
		{"integer", "1E0", `1`, false},
		{"integer", "+1", `1`, false},
		{"integer", "1_0_0", `100`, false},
		{"integer", "1.0", `1`, false},
		{"integer", "1.000000000000000000001", `1`, false},
		{"integer", "01", `1`, false},
		{"integer", "007", `7`, false},
		{"integer", "-0", `0`, false},
		{"integer", "", `0`, false},
		{"integer", "-", `0`, false},
		{"integer", " 1", `1`, false},
		{"integer", "1 ", `1`, false},
		{"integer", "١", `1`, false},
		{"integer", "Infinity", `1e999999`, false},
		{"integer", "00000000000000000001", `1`, false},
		{"integer", "1", `"1"`, false},
		{"integer", "1", `true`, false},

		{"boolean", "true", `true`, true},
		{"boolean", "false", `false`, true},
		{"boolean", "true", `false`, false},
		{"boolean", "TRUE", `true`, false},
		{"boolean", "1", `true`, false},
		{"boolean", "true", `"true"`, false},

		{"string", "us-west1", `"us-west1"`, true},
		{"string", "Hello, 世界", `"Hello, \u4e16\u754c"`, true},
		{"string", "a\"b", `"a\"b"`, true},
		{"string", `a\"b`, `"a\\\"b"`, true},
		{"string", "42", `42`, false},
		{"string", "us", `"US"`, false},
		{"number", "1", `1`, false},
	} {
		t.Run(tc.typ+" "+tc.header+" "+tc.body, func(t *testing.T) {
			body := decode.Lookup([]byte(`{"v":`+tc.body+`}`), "v")
			require.True(t, body.Present())
			p := HeaderParam{Name: "P", Path: []string{"v"}, Type: tc.typ}
			assert.Equal(t, tc.want, p.Matches([]byte(tc.header), body))
		})
	}
}

func TestHeaderParamHeader(t *testing.T) {
	assert.Equal(t, "Mcp-Param-Region", HeaderParam{Name: "Region"}.Header())
}
