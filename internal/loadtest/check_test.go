package loadtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCheckResponse(t *testing.T) {
	hello := []byte(`"hello"`)
	for _, tc := range []struct {
		name, body, id, want string
		text                 []byte
	}{
		{"fastmcp", `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}}`, "2", "", hello},
		{"go-sdk order", `{"jsonrpc":"2.0","id":2,"result":{"_meta":{"a":{}},"content":[{"type":"text","text":"hello"}],"resultType":"complete"}}`, "2", "", hello},
		{"spaces and newline", " {\"jsonrpc\" : \"2.0\", \"id\" : 2, \"result\" : {\"content\" : [ {\"text\" : \"hello\"} ] } }\n", "2", "", hello},
		{"string id", `{"jsonrpc":"2.0","id":"a","result":{}}`, `"a"`, "", nil},
		{"id mismatch", `{"jsonrpc":"2.0","id":3,"result":{}}`, "2", KindID, nil},
		{"id as string", `{"jsonrpc":"2.0","id":"2","result":{}}`, "2", KindID, nil},
		{"error", `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"x"}}`, "2", "jsonrpc -32603", nil},
		{"error without code", `{"jsonrpc":"2.0","id":2,"error":{}}`, "2", "jsonrpc ?", nil},
		{"no result", `{"jsonrpc":"2.0","id":2}`, "2", KindShape, nil},
		{"result not object", `{"jsonrpc":"2.0","id":2,"result":[]}`, "2", KindShape, nil},
		{"no content", `{"jsonrpc":"2.0","id":2,"result":{}}`, "2", KindShape, hello},
		{"empty content", `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`, "2", KindShape, hello},
		{"other text", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"bye"}]}}`, "2", KindEcho, hello},
		{"wrong version", `{"jsonrpc":"1.0","id":2,"result":{}}`, "2", KindJSON, nil},
		{"truncated", `{"jsonrpc":"2.0","id":2,"result":{`, "2", KindJSON, nil},
		{"trailing garbage", `{"jsonrpc":"2.0","id":2,"result":{}}x`, "2", KindJSON, nil},
		{"control char", "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"a\":\"\x01\"}}", "2", KindJSON, nil},
		{"bad literal", `{"jsonrpc":"2.0","id":2,"result":{"a":tru}}`, "2", KindJSON, nil},
		{"escaped quote", `{"jsonrpc":"2.0","id":2,"result":{"a":"x\"}"}}`, "2", "", nil},
		{"empty", ``, "2", KindJSON, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, checkResponse([]byte(tc.body), []byte(tc.id), tc.text))
		})
	}
}

func TestCheckResponseDepth(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":1,"result":{"a":`
	for range 100 {
		deep += "["
	}
	assert.Equal(t, KindJSON, checkResponse([]byte(deep), []byte("1"), nil))
}

func TestLastEvent(t *testing.T) {
	body := "event: message\ndata: {\"a\":1}\n\n: keepalive\n\nevent: message\r\ndata: {\"b\":2}\r\n\r\n"
	data, n := lastEvent([]byte(body))
	assert.Equal(t, `{"b":2}`, string(data))
	assert.Equal(t, 2, n)
	data, n = lastEvent([]byte("data: x"))
	assert.Equal(t, "x", string(data))
	assert.Equal(t, 1, n)
	data, n = lastEvent(nil)
	assert.Nil(t, data)
	assert.Zero(t, n)
}

func TestErrorsString(t *testing.T) {
	var e Errors
	assert.Equal(t, "none", e.String())
	e.add("timeout", 1)
	e.add("status 503", 3)
	e.add("closed", 1)
	assert.Equal(t, "status 503 3, closed 1, timeout 1", e.String())
	assert.Equal(t, int64(5), e.Total())
}

func TestFormat(t *testing.T) {
	assert.Equal(t, "812µs", FormatDuration(812*time.Microsecond))
	assert.Equal(t, "1.24ms", FormatDuration(1240*time.Microsecond))
	assert.Equal(t, "3.00s", FormatDuration(3*time.Second))
	assert.Equal(t, "0", FormatDuration(0))
	assert.Equal(t, "153k req/s", Metric{Value: 153_200, Unit: UnitRate}.String())
	assert.Equal(t, "18.4 KiB", Metric{Value: 18.4 * 1024, Unit: UnitBytes}.String())
	assert.Equal(t, "7", Metric{Value: 7, Unit: UnitCount}.String())
}

func TestTargetBodies(t *testing.T) {
	ep, err := Target{URL: "http://127.0.0.1:1/mcp"}.parse()
	assert.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":`+metaJSON+`}}`, string(ep.appendCall(nil, 7)))
	legacy, err := Target{URL: "http://localhost:1/mcp", Dialect: DialectLegacy}.parse()
	assert.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`, string(legacy.appendCall(nil, 7)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","_meta":{"progressToken":"p"}}}`, string(legacy.requestBody("1", "tools/call", `"name":"sleep"`, `"progressToken":"p"`)))
	d, err := ParseDialect("2025-11-25")
	assert.NoError(t, err)
	assert.Equal(t, DialectLegacy, d)
	_, err = ParseDialect("1999")
	assert.Error(t, err)
}

// A reply identical to a checked one but for its id passes without a scan; anything else is
// checked in full.
func TestKnownReply(t *testing.T) {
	var k known
	text := []byte(`"hello"`)
	reply := func(id, txt string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + txt + `"}]}}`)
	}
	assert.Equal(t, "", k.check(reply("7", "hello"), []byte("7"), text))
	assert.Equal(t, `{"jsonrpc":"2.0","id":`, string(k.head))
	assert.Equal(t, "", k.check(reply("8", "hello"), []byte("8"), text))
	assert.Equal(t, "", k.check(reply("1234", "hello"), []byte("1234"), text))
	assert.Equal(t, KindID, k.check(reply("9", "hello"), []byte("8"), text))
	assert.Equal(t, KindEcho, k.check(reply("9", "hellp"), []byte("9"), text))
	assert.Equal(t, KindJSON, k.check([]byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"hello"}]}`), []byte("9"), text))
}
