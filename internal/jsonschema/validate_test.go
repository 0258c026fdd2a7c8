package jsonschema

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const echoSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`

func mustCompile(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := Compile([]byte(schema))
	require.NoError(t, err)
	return s
}

func TestValidate(t *testing.T) {
	const rich = `{"type":"object","properties":{
		"name":{"type":"string","minLength":2,"maxLength":5,"pattern":"^[a-z]+$"},
		"n":{"type":"integer","minimum":1,"maximum":10,"multipleOf":2},
		"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1.5},
		"unit":{"enum":["c","f"]},
		"v":{"const":"2"},
		"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2,"uniqueItems":true},
		"obj":{"type":"object","properties":{"deep":{"type":"boolean"}},"required":["deep"],"additionalProperties":false},
		"either":{"anyOf":[{"type":"string"},{"type":"integer"}]},
		"one":{"oneOf":[{"type":"integer"},{"type":"number","minimum":0}]},
		"not":{"not":{"type":"null"}},
		"mail":{"type":"string","format":"email"},
		"big":{"type":"integer","maximum":18446744073709551616}
	},"required":["name"],"dependentRequired":{"n":["x"]},"maxProperties":12}`
	for _, tc := range []struct {
		name, schema, instance, want string // want "" means valid
	}{
		{"echo ok", echoSchema, `{"text":"hi"}`, ""},
		{"echo extra key ok", echoSchema, `{"text":"hi","other":[1,{"a":null}]}`, ""},
		{"echo wrong type", echoSchema, `{"text":42}`, "arguments: /text: expected string, got number"},
		{"echo null", echoSchema, `{"text":null}`, "arguments: /text: expected string, got null"},
		{"echo missing", echoSchema, `{}`, `arguments: missing required property "text"`},
		{"echo not object", echoSchema, `["text"]`, "arguments: expected object, got array"},
		{"echo string", echoSchema, `"text"`, "arguments: expected object, got string"},
		{"not JSON", echoSchema, `{"text":`, "arguments: not valid JSON"},
		{"empty", echoSchema, ``, "arguments: not valid JSON"},
		{"trailing data", echoSchema, `{"text":"a"} x`, "arguments: not valid JSON"},
		{"several errors", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["c"]}`,
			`{"a":1,"b":2}`, `arguments: missing required property "c" (and 2 more errors)`},
		{"two missing", `{"type":"object","required":["b","a"]}`, `{}`, `arguments: missing required properties "b", "a"`},

		{"rich ok", rich, `{"name":"abc","n":4,"x":1,"unit":"c","v":"2","tags":["a"],"obj":{"deep":true},"either":3,"one":-1,"not":0,"mail":"not-an-email","big":18446744073709551616}`, ""},
		{"minLength", rich, `{"name":"a"}`, "arguments: /name: must be at least 2 characters long"},
		{"maxLength", rich, `{"name":"abcdef"}`, "arguments: /name: must be at most 5 characters long"},
		{"pattern", rich, `{"name":"ABC"}`, `arguments: /name: does not match pattern "^[a-z]+$"`},
		{"minimum", rich, `{"name":"ab","n":0,"x":1}`, "arguments: /n: must be >= 1"},
		{"maximum", rich, `{"name":"ab","n":12,"x":1}`, "arguments: /n: must be <= 10"},
		{"multipleOf", rich, `{"name":"ab","n":3,"x":1}`, "arguments: /n: must be a multiple of 2"},
		{"integer with fraction", rich, `{"name":"ab","n":2.5,"x":1}`, "arguments: /n: expected integer, got number"},
		{"integer as 4.0", rich, `{"name":"ab","n":4.0,"x":1}`, ""},
		{"integer as 4e0", rich, `{"name":"ab","n":4e0,"x":1}`, ""},
		{"exclusiveMinimum", rich, `{"name":"ab","x":0}`, "arguments: /x: must be > 0"},
		{"exclusiveMaximum", rich, `{"name":"ab","x":1.5}`, "arguments: /x: must be < 1.5"},
		{"enum", rich, `{"name":"ab","unit":"k"}`, `arguments: /unit: must be one of "c", "f"`},
		{"const", rich, `{"name":"ab","v":2}`, `arguments: /v: must be "2"`},
		{"minItems", rich, `{"name":"ab","tags":[]}`, "arguments: /tags: must have at least 1 item"},
		{"maxItems", rich, `{"name":"ab","tags":["a","b","c"]}`, "arguments: /tags: must have at most 2 items"},
		{"uniqueItems", rich, `{"name":"ab","tags":["a","a"]}`, "arguments: /tags: items 0 and 1 are equal; items must be unique"},
		{"item type", rich, `{"name":"ab","tags":["a",3]}`, "arguments: /tags/1: expected string, got number"},
		{"nested required", rich, `{"name":"ab","obj":{}}`, `arguments: /obj: missing required property "deep"`},
		{"additionalProperties", rich, `{"name":"ab","obj":{"deep":true,"extra":1}}`, `arguments: /obj: unexpected property "extra"`},
		{"anyOf", rich, `{"name":"ab","either":true}`, "arguments: /either: does not match any of the allowed schemas (anyOf)"},
		{"oneOf two", rich, `{"name":"ab","one":1}`, "arguments: /one: matches more than one of the schemas of oneOf"},
		{"oneOf none", rich, `{"name":"ab","one":"x"}`, "arguments: /one: does not match any of the allowed schemas (oneOf)"},
		{"not", rich, `{"name":"ab","not":null}`, "arguments: /not: matches a schema it must not match (not)"},
		{"dependentRequired", rich, `{"name":"ab","n":2}`, `arguments: property "n" requires "x"`},
		{"maxProperties", rich, `{"name":"ab","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12}`, "arguments: must have at most 12 properties"},
		{"big integer exact", rich, `{"name":"ab","big":18446744073709551617}`, "arguments: /big: must be <= 18446744073709551616"},

		{"ref", `{"$defs":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/$defs/s"}}}`, `{"a":1}`, "arguments: /a: expected string, got number"},
		{"allOf", `{"allOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`, `arguments: missing required property "a" (and 1 more error)`},
		{"if then", `{"if":{"required":["a"]},"then":{"required":["b"]}}`, `{"a":1}`, `arguments: missing required property "b"`},
		{"false property", `{"properties":{"a":false}}`, `{"a":1}`, "arguments: /a: is not allowed"},
		{"type list", `{"type":["string","null"]}`, `1`, "arguments: expected null or string, got number"},
		{"propertyNames", `{"propertyNames":{"maxLength":2}}`, `{"abc":1}`, `arguments: property name "abc" is not allowed`},
		{"contains", `{"contains":{"type":"string"}}`, `[1]`, "arguments: no item matches the contains schema"},
		{"minContains", `{"contains":{"type":"string"},"minContains":2}`, `["a",1]`, "arguments: at least 2 items must match the contains schema"},
		{"unevaluatedProperties", `{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, "arguments: /b: is not allowed"},
		{"draft-07 format asserted", `{"$schema":"http://json-schema.org/draft-07/schema#","format":"email"}`, `"x"`, "arguments: is not a valid email"},
		{"pointer escaping", `{"properties":{"a/b~c":{"type":"string"}}}`, `{"a/b~c":1}`, "arguments: /a~1b~0c: expected string, got number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustCompile(t, tc.schema)
			err := s.Validate([]byte(tc.instance))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidInstance)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.want, err.Error())
			// The full validator says the same.
			assert.Equal(t, tc.want, s.validateFull(context.Background(), []byte(tc.instance)).Error())
		})
	}
}

// TestValidateNoValueLeak checks that instance values never appear in messages.
func TestValidateNoValueLeak(t *testing.T) {
	const secret = "s3cr3t-VALUE"
	s := mustCompile(t, `{"type":"object","properties":{
		"a":{"type":"integer"},"b":{"pattern":"^x"},"c":{"enum":["x"]},"d":{"const":"x"},
		"e":{"format":"email"},"f":{"maxLength":1},"g":{"not":{"type":"string"}},"h":{"enum":[{"o":1}]}}}`)
	for _, key := range []string{"a", "b", "c", "d", "f", "g", "h"} {
		err := s.Validate([]byte(`{"` + key + `":"` + secret + `"}`))
		require.Error(t, err, key)
		assert.NotContains(t, err.Error(), secret, key)
	}
}

func TestValidateBoundsInstanceText(t *testing.T) {
	s := mustCompile(t, `{"type":"object","additionalProperties":false}`)
	long := strings.Repeat("k", 500)
	err := s.Validate([]byte(`{"` + long + `":1,"a\u0000\nb":2,"c":3,"d":4,"e":5,"f":6,"g":7}`))
	require.Error(t, err)
	msg := err.Error()
	assert.Less(t, len(msg), 400, msg)
	assert.NotContains(t, msg, "\n")
	assert.NotContains(t, msg, "\x00")
	assert.Contains(t, msg, `"a??b"`)
	assert.Contains(t, msg, "…")

	s = mustCompile(t, `{"properties":{"`+long+`":{"type":"string"}}}`)
	err = s.Validate([]byte(`{"` + long + `":1}`))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 150, err.Error())
}

func TestValidationErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  ValidationError
		want string
	}{
		{ValidationError{Reason: "expected object, got array"}, "arguments: expected object, got array"},
		{ValidationError{Location: "/a", Reason: "r"}, "arguments: /a: r"},
		{ValidationError{Location: "/a", Reason: "r", More: 1}, "arguments: /a: r (and 1 more error)"},
		{ValidationError{Reason: "r", More: 3}, "arguments: r (and 3 more errors)"},
	} {
		assert.Equal(t, tc.want, tc.err.Error())
	}
}

func TestValidateConcurrent(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"text":{"type":"string","pattern":"^h"}},"required":["text"]}`)
	flat := mustCompile(t, echoSchema)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				ok := []byte(fmt.Sprintf(`{"text":"h%d-%d"}`, i, j))
				assert.NoError(t, s.Validate(ok))
				assert.NoError(t, flat.Validate(ok))
				assert.Error(t, s.Validate([]byte(`{"text":1}`)))
				assert.Error(t, flat.Validate([]byte(`{"text":1}`)))
			}
		}()
	}
	wg.Wait()
}
