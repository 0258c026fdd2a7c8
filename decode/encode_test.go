package decode

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendString(t *testing.T) {
	tests := []struct {
		name, in, utf8, ascii string
	}{
		{"plain", "hello", `"hello"`, `"hello"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`, `"a\"b\\c"`},
		{"control characters", "a\nb\tc\rd\x00\x1f", `"a\nb\tc\rd\u0000\u001f"`, `"a\nb\tc\rd\u0000\u001f"`},
		{"latin", "café", `"café"`, `"caf\u00e9"`},
		{"line separators always escaped", "a\u2028b\u2029c", `"a\u2028b\u2029c"`, `"a\u2028b\u2029c"`},
		{"emoji", "😀", `"😀"`, `"\ud83d\ude00"`},
		{"invalid UTF-8", "a\xffb", `"a\ufffdb"`, `"a\ufffdb"`},
		{"literal replacement character", "\ufffd", "\"\ufffd\"", `"\ufffd"`},
		{"DEL is not escaped", "\x7f", "\"\x7f\"", "\"\x7f\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.utf8, string(AppendString(nil, tc.in, false)))
			ascii := AppendString(nil, tc.in, true)
			assert.Equal(t, tc.ascii, string(ascii))
			assert.True(t, IsASCII(ascii))
			assert.Equal(t, tc.utf8, string(AppendStringBytes(nil, []byte(tc.in), false)))

			// Both forms decode to the input (with U+FFFD for invalid bytes), and our decoder
			// accepts them.
			var back string
			require.NoError(t, json.Unmarshal(ascii, &back))
			var want string
			require.NoError(t, json.Unmarshal([]byte(tc.utf8), &want))
			assert.Equal(t, want, back)
			var m Message
			require.NoError(t, Decode(&m, []byte(`{"jsonrpc":"2.0","id":`+string(ascii)+`,"method":"x"}`)))
			assert.Equal(t, want, m.ID().String())
		})
	}
}

func TestAppendASCII(t *testing.T) {
	in := []byte(`{"t":"café 😀 \u2028` + "\u2029" + `","n":1}`)
	out := AppendASCII(nil, in)
	assert.Equal(t, `{"t":"caf\u00e9 \ud83d\ude00 \u2028\u2029","n":1}`, string(out))
	assert.True(t, IsASCII(out))
	assert.False(t, IsASCII(in))
	var a, b any
	require.NoError(t, json.Unmarshal(in, &a))
	require.NoError(t, json.Unmarshal(out, &b))
	assert.Equal(t, a, b)
}

func TestAppendEnvelopes(t *testing.T) {
	assert.Equal(t, `{"jsonrpc":"2.0","id":"a\u0062","result":{"x":1}}`,
		string(AppendResult(nil, []byte(`"a\u0062"`), []byte(`{"x":1}`))))
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		string(AppendError(nil, nil, -32700, "Parse error", nil, false)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad \u00e9","data":{"uri":"x"}}}`,
		string(AppendError(nil, []byte("7"), -32602, "bad é", []byte(`{"uri":"x"}`), true)))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
		string(AppendNotification(nil, "notifications/progress", []byte(`{"progress":1}`))))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/x"}`, string(AppendNotification(nil, "notifications/x", nil)))
}

func TestLookup(t *testing.T) {
	obj := []byte(` { "a" : 1 , "b\u0063" : "x" , "s":"q\"z", "o":{"a":[1,{"b":2}]}, "arr":[1, "two", null, true, 1.5] , "f":false} `)
	assert.Equal(t, "1", string(Lookup(obj, "a").Raw()))
	assert.Equal(t, TypeInteger, Lookup(obj, "a").Type())
	assert.Equal(t, "x", Lookup(obj, "bc").String(), "escaped key")
	assert.Equal(t, `"q\"z"`, string(Lookup(obj, "s").Raw()))
	assert.Equal(t, `q"z`, Lookup(obj, "s").String(), "escaped text is unescaped")
	assert.Equal(t, `q"z`, string(Unquote(nil, Lookup(obj, "s").Raw())))
	assert.Equal(t, `{"a":[1,{"b":2}]}`, string(Lookup(obj, "o").Raw()))
	assert.Equal(t, TypeBool, Lookup(obj, "f").Type())
	assert.False(t, Lookup(obj, "missing").Present())

	var got []string
	var types []Type
	Elements(Lookup(obj, "arr").Raw(), func(v []byte, vt Type) bool {
		got = append(got, string(v))
		types = append(types, vt)
		return true
	})
	assert.Equal(t, []string{"1", `"two"`, "null", "true", "1.5"}, got)
	assert.Equal(t, []Type{TypeInteger, TypeString, TypeNull, TypeBool, TypeNumber}, types)

	n := 0
	Elements([]byte("[]"), func([]byte, Type) bool { n++; return true })
	Members([]byte("{}"), func([]byte, []byte, Type) bool { n++; return true })
	assert.Zero(t, n)
}
