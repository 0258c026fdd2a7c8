package fastmcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

type nestedArgs struct {
	Inner struct {
		N int8 `json:"n"`
	} `json:"inner"`
	Counts map[string]uint16 `json:"counts"`
	List   []int32           `json:"list"`
	Ptr    *int64            `json:"ptr"`
	Blob   []byte            `json:"blob"`
	When   time.Time         `json:"when"`
	F32    float32           `json:"f32"`
	Any    any               `json:"any"`
	Raw    json.RawMessage   `json:"raw"`
	Num    json.Number       `json:"num"`
	Text   string            `json:"text"`
	Flags  [2]bool           `json:"flags"`
}

// requireClean fails unless err is a validation error in the validator's words: no decoder
// text, no Go type names, no offsets.
func requireClean(t testing.TB, args []byte, err error) {
	t.Helper()
	var ve *jsonschema.ValidationError
	require.True(t, errors.As(err, &ve), "%s: %T %v", args, err, err)
	for _, bad := range []string{"Mismatch", "mismatch", "index", "Go value", "int8", "int16", "int32", "int64", "uint", "float32", "float64", "[]", "map[", "struct", "json:", "\n", "\t"} {
		require.NotContains(t, err.Error(), bad, "%s", args)
	}
	require.LessOrEqual(t, len(err.Error()), 200, "%s", args)
}

func TestArgumentErrors(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"inner":{"n":1e2},"counts":{"a":6.5535e4},"list":[1.0,-0.0,2e9],"ptr":5e0}`, ""},
		{`{"inner":{"n":1.28e2}}`, "arguments: /inner/n: must be <= 127, got 1.28e2"},
		{`{"inner":{"n":"x"}}`, "arguments: /inner/n: expected integer, got string"},
		{`{"inner":[]}`, "arguments: /inner: expected object, got array"},
		{`{"counts":{"a\u002fb":-1}}`, "arguments: /counts/a~1b: must be >= 0, got -1"},
		{`{"counts":{"k":1.5}}`, "arguments: /counts/k: expected integer, got number"},
		{`{"list":[1,2,3e9]}`, "arguments: /list/2: must be <= 2147483647, got 3e9"},
		{`{"list":{"a":1}}`, "arguments: /list: expected array, got object"},
		{`{"ptr":1e999999}`, "arguments: /ptr: must be <= 9223372036854775807, got 1e999999"},
		{`{"blob":5}`, "arguments: /blob: expected string, got number"},
		{`{"when":7}`, "arguments: do not match the types the tool accepts"}, // time.Time's own error
		{`{"any":[1,{"x":1e400}]}`, "arguments: /any/1/x: must be <= 1.7976931348623157e+308, got 1e400"},
		{`{"any":{"x":-1e999999}}`, "arguments: /any/x: must be >= -1.7976931348623157e+308, got -1e999999"},
		{`{"f32":1e39}`, "arguments: /f32: must be <= 3.4028234663852886e+38, got 1e39"},
		{`{"text":["x"]}`, "arguments: /text: expected string, got array"},
		{`{"flags":[true,1]}`, "arguments: do not match the types the tool accepts"}, // sonic reports no location
		{`{"any":1e308,"raw":1e999999,"num":1e999999}`, ""},
	} {
		raw, ok := decodedArgs(t, tc.args)
		require.True(t, ok, tc.args)
		var in nestedArgs
		err := decodeInto(raw, &in)
		if tc.want == "" {
			assert.NoError(t, err, tc.args)
			continue
		}
		require.Error(t, err, tc.args)
		requireClean(t, raw, err)
		assert.Equal(t, tc.want, err.Error(), tc.args)
	}
}

func TestPlainIntegers(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1e2,"b":"1e2","c":[1.0,-0,-0.0,5E0,1.5,1e21,12.5e1],"d":{"1e2":7}}`: `{"a":100,"b":"1e2","c":[1,0,0,5,1.5,1e21,125],"d":{"1e2":7}}`,
		`{"s":"a\"1e2\\","n":1.8446744073709551615e19}`:                           `{"s":"a\"1e2\\","n":18446744073709551615}`,
	} {
		got, ok := plainIntegers([]byte(in))
		require.True(t, ok, in)
		assert.Equal(t, want, string(got))
	}
	for _, in := range []string{`{}`, `{"a":1,"b":-2,"c":"1e2","d":1.5,"e":1e30}`} {
		_, ok := plainIntegers([]byte(in))
		assert.False(t, ok, in)
	}
}

// FuzzArgumentErrors: whatever the arguments, a failure to decode them into a struct of many
// kinds is worded cleanly.
func FuzzArgumentErrors(f *testing.F) {
	for _, s := range []string{`{"inner":{"n":300}}`, `{"list":[1,"x"]}`, `{"counts":{"\u00e9":1e9}}`, `{"when":"x"}`, `{"flags":[1,2,3]}`, `{"ptr":-1e-1}`, `{"inner":{"n":` + strings.Repeat("9", 60) + `}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		raw, ok := decodedArgs(t, args)
		if !ok {
			return
		}
		var in nestedArgs
		if err := decodeInto(raw, &in); err != nil {
			requireClean(t, raw, err)
		}
	})
}
