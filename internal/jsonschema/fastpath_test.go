package jsonschema

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

func TestFlatSchemaEligibility(t *testing.T) {
	for _, tc := range []struct {
		schema string
		flat   bool
	}{
		{echoSchema, true},
		{`{"type":"object"}`, true},
		{`{"type":"object","properties":{}}`, true},
		{`{"type":"object","additionalProperties":false,"properties":{"a":{"type":"integer"}}}`, true},
		{`{"type":"object","additionalProperties":{},"properties":{"a":true}}`, true},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"t","description":"d","x-vendor":1}`, true},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object"}`, true},
		{`{"type":"object","properties":{"a":{"type":"string","format":"email","description":"d","default":"x","examples":["y"],"x-mcp-header":"A","contentEncoding":"base64"}}}`, true},
		{`{"type":"object","properties":{"a":{"type":"array"},"b":{"type":"object"},"c":{"type":"null"},"d":{"type":"number"},"e":{"type":"boolean"}}}`, true},
		{`{"type":"object","required":["a","b"]}`, true},

		{`true`, false},
		{`{}`, false},
		{`{"type":"array"}`, false},
		{`{"type":["object"]}`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, false},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, false},
		{`{"type":"object","properties":{"a":false}}`, false},
		{`{"type":"object","properties":{"a":{"type":["string","null"]}}}`, false},
		{`{"type":"object","properties":{"a":{"type":"string","minLength":1}}}`, false},
		{`{"type":"object","properties":{"a":{"enum":["x"]}}}`, false},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{}}}}`, false},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{}}}`, false},
		{`{"type":"object","minProperties":1}`, false},
		{`{"type":"object","patternProperties":{"^a":{}}}`, false},
		{`{"type":"object","anyOf":[{}]}`, false},
		{`{"type":"object","$id":"https://example.com/s"}`, false},
	} {
		s := mustCompile(t, tc.schema)
		assert.Equal(t, tc.flat, s.flat != nil, tc.schema)
	}

	// At most 64 names.
	props := `{"type":"object","properties":{`
	for i := range 65 {
		if i > 0 {
			props += ","
		}
		props += `"p` + string(rune('A'+i/26)) + string(rune('a'+i%26)) + `":{"type":"string"}`
	}
	props += `}}`
	assert.Nil(t, mustCompile(t, props).flat)
}

// flatCases are flat schemas and instances; for each pair the fast path must never accept what the
// full validator refuses. fast lists the instances the fast path is expected to accept itself.
var flatSchemas = []string{
	echoSchema,
	`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"},"b":{"type":"boolean"},"z":{"type":"null"},"o":{"type":"object"},"a":{"type":"array"},"any":true},"required":["n"]}`,
	`{"type":"object","properties":{"text":{"type":"string"}},"required":["text","extra"],"additionalProperties":false}`,
	`{"type":"object","properties":{"a\ufffd":{"type":"string"},"é":{"type":"integer"}}}`,
	`{"type":"object"}`,
}

var flatInstances = []string{
	`{"text":"hi"}`, ` { "text" : "hi" } `, `{"text":"a\"b\\"}`, `{"text":""}`, `{"text":"hi","other":1}`,
	`{"text":1}`, `{"text":null}`, `{"text":true}`, `{"text":{}}`, `{"text":[]}`, `{}`, `[]`, `"x"`, `1`, `null`,
	`{"text":"a","text":1}`, `{"text":1,"text":"a"}`, `{"te\u0078t":"hi"}`, `{"te\u0078t":1}`, `{"text":"hi"`, `{"text":"hi"}}`, ``,
	`{"n":1}`, `{"n":-0}`, `{"n":1.0}`, `{"n":1e2}`, `{"n":1.5}`, `{"n":"1"}`, `{"n":123456789012345678901234567890}`,
	`{"n":1e999999}`, `{"n":1e3999999}`, `{"n":1e-999999}`, `{"n":-0.0}`, `{"n":15e-1}`, `{"n":1.000000000000000000001}`,
	`{"n":1,"x":1e999999}`, `{"n":1,"x":-1e-999999,"any":[1e999999]}`,
	`{"n":1,"x":1.5e-3,"b":false,"z":null,"o":{"k":[1,"}"]},"a":[{"]":"["}],"any":"x"}`,
	`{"n":1,"x":"1"}`, `{"n":1,"b":"true"}`, `{"n":1,"z":0}`, `{"n":1,"o":[]}`, `{"n":1,"a":{}}`,
	`{"text":"hi","extra":0}`, `{"extra":0}`, `{"text":"hi","extra":0,"more":1}`,
	"{\"a\xff\":1}", "{\"a\xff\":\"s\"}", `{"é":1}`, `{"é":"x"}`, `{"\u00e9":"x"}`,
	"{\"text\":\"bad\xffutf8\"}", `{"text":"\ud800"}`,
}

func TestFastPathAgreesWithValidator(t *testing.T) {
	accepted := 0
	for _, schema := range flatSchemas {
		s := mustCompile(t, schema)
		require.NotNil(t, s.flat, schema)
		for _, inst := range flatInstances {
			fast := s.flat.accepts([]byte(inst), false)
			full := s.validateFull(context.Background(), []byte(inst))
			if fast {
				accepted++
				assert.NoError(t, full, "fast path accepted %s for %s", inst, schema)
			}
			// Validate (fast path first) and the full validator agree.
			got := s.Validate([]byte(inst))
			if full == nil {
				assert.NoError(t, got)
			} else {
				require.Error(t, got)
				assert.Equal(t, full.Error(), got.Error())
			}
		}
	}
	assert.Greater(t, accepted, 20)
}

func TestFastPathCommonCases(t *testing.T) {
	s := mustCompile(t, flatSchemas[1])
	for _, inst := range []string{
		`{"n":1}`, `{"n":-12,"x":0.5,"b":true,"z":null,"o":{},"a":[],"any":{"x":[1,2]}}`, `{"n":0,"unknown":"x"}`,
		// Integers as JSON Schema counts them, read from the literal (issue 10, defects 12 and 13).
		`{"n":1.0}`, `{"n":1e2}`, `{"n":5e0}`, `{"n":-0.0}`, `{"n":1e999999}`, `{"n":1e3999999}`,
	} {
		assert.True(t, s.flat.accepts([]byte(inst), false), inst)
	}
	// Left to the validator (which may accept them).
	for _, inst := range []string{`{"n":1,"n":2}`, `{"\u006e":1}`} {
		assert.False(t, s.flat.accepts([]byte(inst), false), inst)
		assert.NoError(t, s.validateFull(context.Background(), []byte(inst)), inst)
	}
}

// decodedArguments returns inst as the arguments of a message decode accepts, or false.
func decodedArguments(inst []byte) ([]byte, bool) {
	var m decode.Message
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":` + string(inst) + `}}`
	if decode.Decode(&m, []byte(msg)) != nil || m.Arguments().Type() != decode.TypeObject {
		return nil, false
	}
	return m.Arguments().Raw(), true
}

// TestFastPathDecoded: trusting decode's checks (UTF-8, syntax) changes no answer.
func TestFastPathDecoded(t *testing.T) {
	decoded := 0
	for _, schema := range flatSchemas {
		s := mustCompile(t, schema)
		for _, inst := range flatInstances {
			args, ok := decodedArguments([]byte(inst))
			if !ok {
				continue
			}
			decoded++
			assert.Equal(t, s.flat.accepts(args, false), s.flat.accepts(args, true), inst)
			full, got := s.validateFull(context.Background(), args), s.ValidateDecoded(args)
			if full == nil {
				assert.NoError(t, got, inst)
			} else {
				require.Error(t, got, inst)
				assert.Equal(t, full.Error(), got.Error(), inst)
			}
		}
	}
	assert.Greater(t, decoded, 100)
}

func FuzzFastPath(f *testing.F) {
	for i := range flatSchemas {
		for _, inst := range flatInstances {
			f.Add(uint8(i), []byte(inst))
		}
	}
	schemas := make([]*Schema, len(flatSchemas))
	for i, src := range flatSchemas {
		s, err := Compile([]byte(src))
		if err != nil {
			f.Fatal(err)
		}
		schemas[i] = s
	}
	f.Fuzz(func(t *testing.T, which uint8, inst []byte) {
		s := schemas[int(which)%len(schemas)]
		if s.flat.accepts(inst, false) {
			if err := s.validateFull(context.Background(), inst); err != nil {
				t.Fatalf("fast path accepted %q, validator: %v", inst, err)
			}
		}
		if args, ok := decodedArguments(inst); ok && s.flat.accepts(args, true) {
			if err := s.validateFull(context.Background(), args); err != nil {
				t.Fatalf("fast path accepted decoded %q, validator: %v", args, err)
			}
		}
	})
}

func TestFlatObject(t *testing.T) {
	fo, ok := mustCompile(t, `{"type":"object","properties":{"s":{"type":"string","description":"d"},"i":{"type":"integer"},"x":true,"y":{}},"required":["s","r"],"additionalProperties":false}`).FlatObject()
	require.True(t, ok)
	assert.Equal(t, FlatObject{Properties: map[string]string{"s": "string", "i": "integer", "x": "", "y": ""}, Required: []string{"r", "s"}, Closed: true}, fo)

	fo, ok = mustCompile(t, `{"type":"object"}`).FlatObject()
	require.True(t, ok)
	assert.Equal(t, FlatObject{Properties: map[string]string{}}, fo)

	_, ok = mustCompile(t, `{"type":"object","properties":{"s":{"type":"string","minLength":1}}}`).FlatObject()
	assert.False(t, ok)
}
