package decode

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// req wraps params in a 2026-07-28 request envelope with id 1.
func req(params string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`
}

func withID(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
}

func withToken(tok string) string {
	return req(`{"_meta":{"progressToken":` + tok + `}}`)
}

func digits(n int) string { return "1" + strings.Repeat("0", n-1) }

func TestDecodeLimits(t *testing.T) {
	// A 3-byte character: ids near the 256-byte limit in multi-byte UTF-8.
	euro := "€"
	tests := []struct {
		name     string
		in       string
		code     Code // 0: accepted
		msg      string
		kind     Kind
		echoable bool
	}{
		{"minimal request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, "", KindRequest, true},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, 0, "", KindNotification, false},
		{"response", `{"jsonrpc":"2.0","id":"x","result":{}}`, 0, "", KindResponse, false},
		{"leading and trailing whitespace", " \t\r\n" + withID("1") + "\n ", 0, "", KindRequest, true},

		// Integer literals: 64 digits accepted, 65 refused; the sign is not counted.
		{"64-digit integer", req(`{"arguments":{"n":` + digits(64) + `}}`), 0, "", KindRequest, true},
		{"65-digit integer", req(`{"arguments":{"n":` + digits(65) + `}}`), CodeParseError, msgDigits, KindInvalid, false},
		{"negative 64-digit integer", req(`{"arguments":{"n":-` + digits(64) + `}}`), 0, "", KindRequest, true},
		{"negative 65-digit integer", req(`{"arguments":{"n":-` + digits(65) + `}}`), CodeParseError, msgDigits, KindInvalid, false},
		{"65-digit integer part with a fraction", req(`{"arguments":{"n":` + digits(65) + `.5}}`), CodeParseError, msgDigits, KindInvalid, false},
		{"long fraction", req(`{"arguments":{"n":0.` + strings.Repeat("1", 200) + `}}`), 0, "", KindRequest, true},
		{"65-digit id", withID(digits(65)), CodeParseError, msgDigits, KindInvalid, false},

		// Request ids.
		{"256-byte string id", withID(`"` + strings.Repeat("a", 256) + `"`), 0, "", KindRequest, true},
		{"257-byte string id", withID(`"` + strings.Repeat("a", 257) + `"`), CodeInvalidRequest, msgIDString, KindRequest, false},
		{"255 bytes of multi-byte id", withID(`"` + strings.Repeat(euro, 85) + `"`), 0, "", KindRequest, true},
		{"258 bytes of multi-byte id", withID(`"` + strings.Repeat(euro, 86) + `"`), CodeInvalidRequest, msgIDString, KindRequest, false},
		{"escaped id counts unescaped bytes", withID(`"` + strings.Repeat(`\u0061`, 256) + `"`), 0, "", KindRequest, true},
		{"int64 max id", withID("9223372036854775807"), 0, "", KindRequest, true},
		{"int64 max+1 id", withID("9223372036854775808"), CodeInvalidRequest, msgIDRange, KindRequest, false},
		{"int64 min id", withID("-9223372036854775808"), 0, "", KindRequest, true},
		{"int64 min-1 id", withID("-9223372036854775809"), CodeInvalidRequest, msgIDRange, KindRequest, false},
		{"fractional id", withID("1.5"), CodeInvalidRequest, msgIDFractional, KindRequest, false},
		{"exponent id", withID("1e3"), CodeInvalidRequest, msgIDFractional, KindRequest, false},
		{"null id", withID("null"), CodeInvalidRequest, msgIDType, KindRequest, false},
		{"object id", withID("{}"), CodeInvalidRequest, msgIDType, KindRequest, false},
		{"bool id", withID("true"), CodeInvalidRequest, msgIDType, KindRequest, false},

		// progressToken: the id's bounds, with -32602.
		{"string token", withToken(`"t"`), 0, "", KindRequest, true},
		{"integer token", withToken(`7`), 0, "", KindRequest, true},
		{"256-byte token", withToken(`"` + strings.Repeat("t", 256) + `"`), 0, "", KindRequest, true},
		{"257-byte token", withToken(`"` + strings.Repeat("t", 257) + `"`), CodeInvalidParams, msgTokenString, KindRequest, true},
		{"token out of range", withToken("9223372036854775808"), CodeInvalidParams, msgTokenRange, KindRequest, true},
		{"fractional token", withToken("1.5"), CodeInvalidParams, msgTokenFractional, KindRequest, true},
		{"object token", withToken("{}"), CodeInvalidParams, msgTokenType, KindRequest, true},
		{"null token", withToken("null"), CodeInvalidParams, msgTokenType, KindRequest, true},

		// Strings: valid UTF-8, no raw control characters, no lone surrogates.
		{"raw control character", req(`{"name":"a` + "\x01" + `b"}`), CodeParseError, msgControl, KindInvalid, false},
		{"raw tab", req(`{"name":"a` + "\t" + `b"}`), CodeParseError, msgControl, KindInvalid, false},
		{"raw DEL is allowed", req(`{"name":"a` + "\x7f" + `b"}`), 0, "", KindRequest, true},
		{"invalid UTF-8", req(`{"name":"a` + "\xff" + `b"}`), CodeParseError, msgUTF8, KindInvalid, false},
		{"truncated UTF-8", req(`{"name":"a` + "\xe2\x82" + `"}`), CodeParseError, msgUTF8, KindInvalid, false},
		{"overlong UTF-8", req(`{"name":"` + "\xc0\xaf" + `"}`), CodeParseError, msgUTF8, KindInvalid, false},
		{"encoded surrogate in UTF-8", req(`{"name":"` + "\xed\xa0\x80" + `"}`), CodeParseError, msgUTF8, KindInvalid, false},
		{"lone high surrogate", req(`{"name":"\ud800"}`), CodeParseError, msgSurrogate, KindInvalid, false},
		{"lone low surrogate", req(`{"name":"\udc00"}`), CodeParseError, msgSurrogate, KindInvalid, false},
		{"high surrogate then non-surrogate", req(`{"name":"\ud800\u0041"}`), CodeParseError, msgSurrogate, KindInvalid, false},
		{"surrogate pair", req(`{"name":"\ud83d\ude00"}`), 0, "", KindRequest, true},
		{"bad escape", req(`{"name":"\x"}`), CodeParseError, msgEscape, KindInvalid, false},
		{"short unicode escape", req(`{"name":"\u12"}`), CodeParseError, msgEscape, KindInvalid, false},
		{"byte order mark is not JSON", "\xef\xbb\xbf" + withID("1"), CodeParseError, msgSyntax, KindInvalid, false},

		// Structure.
		{"empty", ``, CodeParseError, msgEmpty, KindInvalid, false},
		{"whitespace only", " \n", CodeParseError, msgEmpty, KindInvalid, false},
		{"truncated", `{"jsonrpc":"2.0","id":1`, CodeParseError, msgSyntax, KindInvalid, false},
		{"trailing data", withID("1") + `{}`, CodeParseError, msgTrailing, KindInvalid, false},
		{"trailing comma", `{"jsonrpc":"2.0","id":1,"method":"ping",}`, CodeParseError, msgSyntax, KindInvalid, false},
		{"leading zero", req(`{"arguments":{"n":01}}`), CodeParseError, msgSyntax, KindInvalid, false},
		{"batch", `[` + withID("1") + `]`, CodeInvalidRequest, msgBatch, KindBatch, false},
		{"empty batch", `[]`, CodeInvalidRequest, msgBatch, KindBatch, false},
		{"malformed batch", `[{]`, CodeParseError, msgSyntax, KindInvalid, false},
		{"scalar message", `42`, CodeInvalidRequest, msgNotObject, KindInvalid, false},
		{"string message", `"x"`, CodeInvalidRequest, msgNotObject, KindInvalid, false},

		// Envelope.
		{"missing jsonrpc", `{"id":1,"method":"ping"}`, CodeInvalidRequest, msgVersion, KindRequest, true},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, CodeInvalidRequest, msgVersion, KindRequest, true},
		{"numeric jsonrpc", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, CodeInvalidRequest, msgVersion, KindRequest, true},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, CodeInvalidRequest, msgMethodType, KindRequest, true},
		{"no method", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, msgMethodMissing, KindInvalid, true},
		{"empty object", `{}`, CodeInvalidRequest, msgVersion, KindInvalid, false},
		{"method and result", `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, CodeInvalidRequest, msgAmbiguous, KindRequest, true},
		{"duplicate envelope key", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`, CodeInvalidRequest, msgEnvelopeDup, KindRequest, true},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, CodeInvalidRequest, msgEnvelopeDup, KindRequest, true},
		{"duplicate by escape", `{"jsonrpc":"2.0","id":1,"method":"ping","\u006dethod":"x"}`, CodeInvalidRequest, msgEnvelopeDup, KindRequest, true},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, CodeInvalidParams, msgParamsType, KindRequest, true},
		{"params string", `{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, CodeInvalidParams, msgParamsType, KindRequest, true},
		{"duplicate params key", req(`{"name":"a","name":"b"}`), CodeInvalidParams, msgParamsDup, KindRequest, true},
		{"duplicate _meta key", req(`{"_meta":{"progressToken":1,"progressToken":2}}`), CodeInvalidParams, msgParamsDup, KindRequest, true},
		{"duplicate nested argument key", req(`{"arguments":{"a":{"b":1,"b":2}}}`), CodeInvalidParams, msgParamsDup, KindRequest, true},
		{"duplicate among many keys", req(`{"arguments":{` + manyKeys(40, true) + `}}`), CodeInvalidParams, msgParamsDup, KindRequest, true},
		{"many distinct keys", req(`{"arguments":{` + manyKeys(40, false) + `}}`), 0, "", KindRequest, true},
		{"same key in sibling objects", req(`{"arguments":{"a":{"k":1},"b":{"k":2}}}`), 0, "", KindRequest, true},
		{"unknown envelope member ignored", `{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"x":[1,2]}}`, 0, "", KindRequest, true},

		// Precedence: a syntax error anywhere beats envelope errors; envelope beats params.
		{"syntax beats envelope", `{"jsonrpc":"1.0","id":1.5,"method":"ping","params":{"x":tru}}`, CodeParseError, msgSyntax, KindInvalid, false},
		{"envelope beats params", `{"jsonrpc":"2.0","params":{"a":1,"a":2},"id":1.5,"method":"x"}`, CodeInvalidRequest, msgIDFractional, KindRequest, false},
		{"malformed notification", `{"jsonrpc":"2.0","method":"notifications/x","params":[]}`, CodeInvalidParams, msgParamsType, KindNotification, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m Message
			err := Decode(&m, []byte(tc.in))
			if tc.code == 0 {
				require.NoError(t, err)
			} else {
				var de *Error
				require.ErrorAs(t, err, &de)
				assert.Equal(t, tc.code, de.Code, "code")
				assert.Equal(t, tc.msg, de.Message, "message")
				assert.ErrorIs(t, err, ErrDecode)
			}
			assert.Equal(t, tc.kind, m.Kind(), "kind")
			assert.Equal(t, tc.echoable, m.IDEchoable(), "id echoable")
		})
	}
}

func manyKeys(n int, dup bool) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		k := i
		if dup && i == n-1 {
			k = n / 2
		}
		b.WriteString(`"key`)
		b.WriteString(strings.Repeat("x", k))
		b.WriteString(`":1`)
	}
	return b.String()
}

func TestDecodeViews(t *testing.T) {
	in := []byte(`{"jsonrpc":"2.0","id":"r\u002d1","method":"tools\/call","params":{` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},` +
		`"io.modelcontextprotocol/logLevel":"debug","progressToken":-3,` +
		`"traceparent":"00-a-b-01","tracestate":"k=v","baggage":"b=1","x.example/y":1},` +
		`"name":"echo","uri":"test://x","arguments":{"name":"inner","_meta":{}},"cursor":"c1",` +
		`"inputResponses":{"k":{}},"requestState":"s"}}`)
	var m Message
	require.NoError(t, Decode(&m, in))
	assert.Equal(t, KindRequest, m.Kind())
	assert.Equal(t, `"r\u002d1"`, string(m.ID().Raw()), "id echoed byte for byte")
	assert.Equal(t, "r-1", m.ID().String())
	assert.Equal(t, TypeString, m.ID().Type())
	assert.Equal(t, "tools/call", string(m.Method().Text()))
	assert.Equal(t, "echo", m.Name().String(), "name from params, not from arguments")
	assert.Equal(t, "test://x", m.URI().String())
	assert.Equal(t, `{"name":"inner","_meta":{}}`, string(m.Arguments().Raw()))
	assert.Equal(t, "c1", m.Cursor().String())
	assert.Equal(t, `{"k":{}}`, string(m.InputResponses().Raw()))
	assert.Equal(t, "s", m.RequestState().String())
	assert.Equal(t, "2026-07-28", m.ProtocolVersion().String())
	assert.Equal(t, `{"sampling":{}}`, string(m.ClientCapabilities().Raw()))
	assert.Equal(t, `{"name":"c","version":"1"}`, string(m.ClientInfo().Raw()))
	assert.Equal(t, "debug", m.LogLevel().String())
	assert.Equal(t, "-3", string(m.ProgressToken().Raw()))
	assert.Equal(t, TypeInteger, m.ProgressToken().Type())
	assert.Equal(t, "00-a-b-01", m.TraceParent().String())
	assert.Equal(t, "k=v", m.TraceState().String())
	assert.Equal(t, "b=1", m.Baggage().String())
	assert.Equal(t, TypeObject, m.Meta().Type())
	assert.False(t, m.Result().Present())

	// A copy owns its bytes: the views survive the input being overwritten.
	var owned Message
	m.CopyTo(&owned)
	for i := range in {
		in[i] = 'X'
	}
	assert.Equal(t, `"r\u002d1"`, string(owned.ID().Raw()))
	assert.Equal(t, "tools/call", owned.Method().String())
	assert.Equal(t, `{"name":"inner","_meta":{}}`, string(owned.Arguments().Raw()))
}

func TestDecodeAbsentMembers(t *testing.T) {
	var m Message
	require.NoError(t, Decode(&m, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)))
	assert.False(t, m.Params().Present())
	assert.False(t, m.Meta().Present())
	assert.Equal(t, TypeAbsent, m.Name().Type())
	assert.Nil(t, m.Name().Raw())
	assert.Nil(t, m.ID().Text(), "an integer id has no text")
}

func TestDecodeReuseResetsState(t *testing.T) {
	var m Message
	require.NoError(t, Decode(&m, []byte(req(`{"name":"a\u0062","_meta":{"progressToken":"t"}}`))))
	require.Equal(t, "ab", m.Name().String())
	require.NoError(t, Decode(&m, []byte(`{"jsonrpc":"2.0","method":"notifications/x"}`)))
	assert.False(t, m.Name().Present())
	assert.False(t, m.ProgressToken().Present())
	assert.Equal(t, KindNotification, m.Kind())
}

func TestLimitsConfig(t *testing.T) {
	_, err := New(Limits{MaxMessageBytes: -1})
	require.ErrorIs(t, err, ErrInvalidConfig)
	_, err = New(Limits{MaxDepth: -1})
	require.ErrorIs(t, err, ErrInvalidConfig)

	d, err := New(Limits{})
	require.NoError(t, err)
	assert.Equal(t, Limits{MaxMessageBytes: DefaultMaxMessageBytes, MaxDepth: DefaultMaxDepth}, d.Limits())
}

func TestMaxMessageBytes(t *testing.T) {
	msg := []byte(withID("1"))
	d, err := New(Limits{MaxMessageBytes: len(msg)})
	require.NoError(t, err)
	var m Message
	require.NoError(t, d.Decode(&m, msg), "a message of exactly the limit is accepted")

	d, err = New(Limits{MaxMessageBytes: len(msg) - 1})
	require.NoError(t, err)
	err = d.Decode(&m, msg)
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, CodeInvalidRequest, de.Code)
	assert.Equal(t, msgTooLarge, de.Message)
	assert.False(t, m.IDEchoable())
}

func TestMaxDepth(t *testing.T) {
	nest := func(n int) []byte { // the envelope is level 1, params 2, arguments 3
		return []byte(req(`{"arguments":` + strings.Repeat("[", n-2) + strings.Repeat("]", n-2) + `}`))
	}
	var m Message
	require.NoError(t, Decode(&m, nest(DefaultMaxDepth)))
	err := Decode(&m, nest(DefaultMaxDepth+1))
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, CodeParseError, de.Code)
	assert.Equal(t, msgDepth, de.Message)

	d, err := New(Limits{MaxDepth: 4})
	require.NoError(t, err)
	require.NoError(t, d.Decode(&m, nest(4)))
	require.Error(t, d.Decode(&m, nest(5)))
}

func TestHugeNumberIsRefusedEarly(t *testing.T) {
	// A 2,000,000-digit literal is refused at digit 65's position, with no conversion work;
	// BenchmarkDecode/shape=huge-number shows the cost stays linear.
	in := []byte(req(`{"arguments":{"n":` + digits(1_999_000) + `}}`))
	var m Message
	err := Decode(&m, in)
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, CodeParseError, de.Code)
	assert.Equal(t, msgDigits, de.Message)
}

func TestErrorString(t *testing.T) {
	e := &Error{Code: CodeParseError, Message: msgSyntax, Offset: 3}
	assert.Equal(t, "decode: Parse error: invalid JSON (code -32700, offset 3)", e.Error())
	assert.ErrorIs(t, e, &Error{Code: CodeParseError})
	assert.NotErrorIs(t, e, &Error{Code: CodeInvalidParams})
	assert.Equal(t, "request", KindRequest.String())
	assert.Equal(t, "integer", TypeInteger.String())
}

func TestMetaHasOtherKeys(t *testing.T) {
	var m Message
	require.NoError(t, Decode(&m, []byte(req(`{"_meta":{"progressToken":1,"io.modelcontextprotocol/logLevel":"info"}}`))))
	assert.False(t, m.MetaHasOtherKeys())
	require.NoError(t, Decode(&m, []byte(req(`{"_meta":{"progressToken":1,"x.example/k":{}},"name":"n"}`))))
	assert.True(t, m.MetaHasOtherKeys())
	require.NoError(t, Decode(&m, []byte(req(`{"arguments":{"_meta":{"other":1}}}`))))
	assert.False(t, m.MetaHasOtherKeys(), "only params._meta counts")
}

// TestTextAccessors checks MethodText, NameText and ProtocolVersionText against the Value
// accessors: a plain string, an escaped one (unescaped into the message's buffer), an
// absent member and one that is not a string.
func TestTextAccessors(t *testing.T) {
	var m Message
	require.NoError(t, Decode(&m, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"e\u0063ho"}}`)))
	assert.Equal(t, "tools/call", string(m.MethodText()))
	assert.Equal(t, "echo", string(m.NameText()))
	assert.Equal(t, "2026-07-28", string(m.ProtocolVersionText()))
	require.NoError(t, Decode(&m, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":2026},"name":""}}`)))
	assert.Nil(t, m.ProtocolVersionText())
	assert.True(t, m.ProtocolVersion().Present())
	assert.NotNil(t, m.NameText())
	assert.Empty(t, m.NameText())
	require.NoError(t, Decode(&m, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)))
	assert.Nil(t, m.NameText())
	assert.Nil(t, m.ProtocolVersionText())
}
