package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const callSchema = `{"type":"object","properties":{
	"text":{"type":"string"},"n":{"type":"integer"},"x":{"type":"number"},"on":{"type":"boolean"},
	"obj":{"type":"object"},"xs":{"type":"array"},"any":{"type":["string","null"]}}}`

func TestCallArgsBySchema(t *testing.T) {
	got, err := callArgs([]string{"text=42", "n=7", "x=2.5", "on=true", `obj={"a": 1}`, "xs=[1, 2]", "any=null", "extra=héllo"}, json.RawMessage(callSchema))
	require.NoError(t, err)
	assert.Equal(t, `{"any":null,"extra":"héllo","n":7,"obj":{"a":1},"on":true,"text":"42","x":2.5,"xs":[1,2]}`, string(got))
}

func TestCallArgsWithoutSchema(t *testing.T) {
	got, err := callArgs([]string{"a=2", "b=-3.5", "t=true", "s=hello world", "q=\"quoted\"", "empty="}, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"a":2,"b":-3.5,"empty":"","q":"quoted","s":"hello world","t":true}`, string(got))

	got, err = callArgs(nil, nil)
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(got))
}

func TestCallArgsErrors(t *testing.T) {
	schema := json.RawMessage(callSchema)
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"novalue"}, `argument "novalue" is not key=value`},
		{[]string{"=v"}, `argument "=v" is not key=value`},
		{[]string{"a=1", "a=2"}, `argument "a" given twice`},
		{[]string{"n=1.5"}, `argument n: "1.5" is not an integer`},
		{[]string{"x=abc"}, `argument x: "abc" is not a number`},
		{[]string{"on=yes"}, `argument on: "yes" is not a boolean`},
		{[]string{"obj={"}, `argument obj: "{" is not JSON (the property is an object)`},
	} {
		_, err := callArgs(tc.words, schema)
		assert.EqualError(t, err, tc.want, "%q", tc.words)
	}
	_, err := callArgs([]string{"a=1"}, json.RawMessage(`[`))
	assert.ErrorContains(t, err, "tool inputSchema:")
}
