package decode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capturedKeys lists every captured key with its level and accessor. The decoder matches them
// in place when written plainly (keys.go); the tests below check that every other spelling
// lands on the same views through the general path, and that near misses are not captured.
var capturedKeys = []struct {
	level string // "envelope", "params" or "meta"
	key   string
	get   func(*Message) Value
}{
	{"envelope", "id", (*Message).ID},
	{"envelope", "method", (*Message).Method},
	{"params", "name", (*Message).Name},
	{"params", "uri", (*Message).URI},
	{"params", "arguments", (*Message).Arguments},
	{"params", "cursor", (*Message).Cursor},
	{"params", "inputResponses", (*Message).InputResponses},
	{"params", "requestState", (*Message).RequestState},
	{"meta", "io.modelcontextprotocol/protocolVersion", (*Message).ProtocolVersion},
	{"meta", "io.modelcontextprotocol/clientCapabilities", (*Message).ClientCapabilities},
	{"meta", "io.modelcontextprotocol/clientInfo", (*Message).ClientInfo},
	{"meta", "io.modelcontextprotocol/logLevel", (*Message).LogLevel},
	{"meta", "progressToken", (*Message).ProgressToken},
	{"meta", "traceparent", (*Message).TraceParent},
	{"meta", "tracestate", (*Message).TraceState},
	{"meta", "baggage", (*Message).Baggage},
}

// place puts members (`"key":value,...`) at their level of an otherwise minimal request.
func place(level, key, members string) string {
	switch {
	case level == "params":
		return req(`{` + members + `}`)
	case level == "meta":
		return req(`{"_meta":{` + members + `}}`)
	case key == "id":
		return `{"jsonrpc":"2.0","method":"m",` + members + `}`
	}
	return `{"jsonrpc":"2.0","id":1,` + members + `}`
}

// escapeFirst and escapeLast spell key with its first or last byte as a \u escape.
func escapeFirst(key string) string { return fmt.Sprintf(`\u%04x`, key[0]) + key[1:] }

func escapeLast(key string) string {
	return key[:len(key)-1] + fmt.Sprintf(`\u%04x`, key[len(key)-1])
}

func TestCapturedKeySpellings(t *testing.T) {
	for _, k := range capturedKeys {
		t.Run(k.key, func(t *testing.T) {
			for _, member := range []string{
				`"` + k.key + `":"v"`,
				`"` + k.key + `" :"v"`,
				`"` + k.key + "\"\n:\t\"v\"",
				`"` + escapeFirst(k.key) + `":"v"`,
				`"` + escapeLast(k.key) + `":"v"`,
			} {
				var m Message
				in := place(k.level, k.key, member)
				require.NoError(t, Decode(&m, []byte(in)), in)
				assert.Equal(t, `"v"`, string(k.get(&m).Raw()), in)
				assert.Equal(t, "v", k.get(&m).String(), in)
				assert.False(t, m.MetaHasOtherKeys(), in)
			}
		})
	}
}

func TestEnvelopeKeySpellings(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc" : "2.0","id":1,"method":"m","params":{}}`,
		`{"jsonrp\u0063":"2.0","id":1,"method":"m","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","param\u0073":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params" :{}}`,
	} {
		var m Message
		require.NoError(t, Decode(&m, []byte(in)), in)
		assert.Equal(t, "{}", string(m.Params().Raw()), in)
	}
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"\u0072esult":{}}`,
		`{"jsonrpc":"2.0","id":1,"error" :{}}`,
	} {
		var m Message
		require.NoError(t, Decode(&m, []byte(in)), in)
		assert.Equal(t, KindResponse, m.Kind(), in)
	}
	var m Message
	require.NoError(t, Decode(&m, []byte(req(`{"_met\u0061":{"progressToken":1}}`))))
	assert.Equal(t, "1", string(m.ProgressToken().Raw()), "an escaped _meta is still _meta")
}

func TestCapturedKeyNearMisses(t *testing.T) {
	for _, k := range capturedKeys {
		t.Run(k.key, func(t *testing.T) {
			upper := strings.ToUpper(k.key[:1]) + k.key[1:]
			last := k.key[:len(k.key)-1]
			for _, key := range []string{k.key + "x", last, upper, last + "_", " " + k.key, k.key + `\"`} {
				var m Message
				// Beside the key itself: no duplicate, and the near miss is not captured.
				in := place(k.level, k.key, `"`+key+`":1,"`+k.key+`":"v"`)
				require.NoError(t, Decode(&m, []byte(in)), in)
				assert.Equal(t, `"v"`, string(k.get(&m).Raw()), in)
				assert.Equal(t, k.level == "meta", m.MetaHasOtherKeys(), in)
			}
		})
	}
}

func TestCapturedKeyDuplicates(t *testing.T) {
	for _, k := range capturedKeys {
		code, msg := CodeInvalidParams, msgParamsDup
		if k.level == "envelope" {
			code, msg = CodeInvalidRequest, msgEnvelopeDup
		}
		for _, second := range []string{k.key, escapeLast(k.key)} {
			in := place(k.level, k.key, `"`+k.key+`":"a","`+second+`" : "b"`)
			var m Message
			err := Decode(&m, []byte(in))
			var de *Error
			require.ErrorAs(t, err, &de, in)
			assert.Equal(t, code, de.Code, in)
			assert.Equal(t, msg, de.Message, in)
			assert.Equal(t, `"b"`, string(k.get(&m).Raw()), "the later member is the view: %s", in)
		}
	}
}

// TestTruncated cuts a request at every byte: each prefix is a parse error at its end.
func TestTruncated(t *testing.T) {
	full := strings.TrimSpace(string(toolsCall(t)))
	for n := 1; n < len(full); n++ {
		var m Message
		err := Decode(&m, []byte(full[:n]))
		var de *Error
		require.ErrorAs(t, err, &de, full[:n])
		assert.Equal(t, CodeParseError, de.Code, full[:n])
		assert.Equal(t, msgSyntax, de.Message, full[:n])
		assert.Equal(t, n, de.Offset, full[:n])
	}
}

// TestStringEdges moves a byte that interrupts a string across its first words, where the
// scan changes strategy (one word, then sixteen bytes a step, then byte by byte near the end
// of the input), in a captured value, a plain key, a plain value and a bare string.
func TestStringEdges(t *testing.T) {
	specials := []struct {
		b    string
		code Code // 0: the string is valid
		msg  string
	}{
		{`\n`, 0, ""},
		{`\"`, 0, ""},
		{`\\`, 0, ""},
		{`\/\b\f\r\t`, 0, ""},
		{`\u00e9`, 0, ""},
		{`\ud83d\ude00`, 0, ""},
		{"é", 0, ""},
		{"€", 0, ""},
		{"😀", 0, ""},
		{"\x7f", 0, ""},
		{"\x01", CodeParseError, msgControl},
		{"\t", CodeParseError, msgControl},
		{"\xff", CodeParseError, msgUTF8},
		{"\xe2\x82", CodeParseError, msgUTF8},
		{`\x`, CodeParseError, msgEscape},
		{`\ud800`, CodeParseError, msgSurrogate},
	}
	places := []struct{ before, after string }{
		{`{"jsonrpc":"2.0","id":1,"method":"`, `"}`},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"`, `":1}}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"k":"`, `"}}}`},
		{`"`, `"`},
	}
	for n := 0; n <= 40; n++ {
		for _, sp := range specials {
			for p := 0; p <= n; p++ {
				body := strings.Repeat("a", p) + sp.b + strings.Repeat("b", n-p)
				for _, pl := range places {
					in := pl.before + body + pl.after
					var m Message
					err := Decode(&m, []byte(in))
					var de *Error
					switch {
					case sp.code == 0 && pl.before == `"`:
						require.ErrorAs(t, err, &de, in)
						assert.Equal(t, msgNotObject, de.Message, in)
					case sp.code == 0:
						require.NoError(t, err, in)
					default:
						require.ErrorAs(t, err, &de, in)
						assert.Equal(t, sp.code, de.Code, in)
						assert.Equal(t, sp.msg, de.Message, in)
						assert.Equal(t, len(pl.before)+p, de.Offset, in)
					}
				}
			}
		}
	}
}

// TestUnterminatedString ends the input inside a string at every length: a parse error at
// the end, whichever step of the scan reaches it.
func TestUnterminatedString(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for _, tail := range []string{"", `\`, "\xc3"} {
			in := `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("a", n) + tail
			var m Message
			err := Decode(&m, []byte(in))
			var de *Error
			require.ErrorAs(t, err, &de, in)
			assert.Equal(t, CodeParseError, de.Code, in)
			if tail == "\xc3" {
				assert.Equal(t, msgUTF8, de.Message, in)
				assert.Equal(t, len(in)-1, de.Offset, in)
				continue
			}
			assert.Equal(t, msgSyntax, de.Message, in)
			assert.Equal(t, len(in)-len(tail), de.Offset, in)
		}
	}
}
