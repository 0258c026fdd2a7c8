package fastmcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestResultWriter pins the success envelope, and that a result written into the response and
// one built once and cached are byte for byte the same.
func TestResultWriter(t *testing.T) {
	s := newTestServer(t, nil)
	cases := []struct {
		name       string
		resultType resultType
		members    string
		extra      string
		want       string
	}{
		{"complete", resultComplete, `,"content":[]`, "",
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[],` + serverInfoMeta + `}}`},
		{"input required", resultInputRequired, `,"inputRequests":{},"requestState":"x"`, "",
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","inputRequests":{},"requestState":"x",` + serverInfoMeta + `}}`},
		{"empty extra", resultComplete, "", "{}",
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete",` + serverInfoMeta + `}}`},
		{"extra _meta", resultComplete, "", `{"k":1}`,
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"},"k":1}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var extra []byte
			if c.extra != "" {
				extra = []byte(c.extra)
			}
			id := []byte("7")
			streamed := beginResult([]byte("prefix"), id, c.resultType)
			streamed = append(streamed, c.members...)
			streamed = s.endResult(streamed, extra)
			assert.Equal(t, "prefix"+c.want, string(streamed))

			obj := append(openResult(nil, c.resultType), c.members...)
			obj = s.closeResult(obj, extra)
			assert.Equal(t, c.want, string(appendResult(nil, id, obj)))
		})
	}
}

// TestRawContentVerbatim: a raw content block is sent byte for byte, members this package
// does not model (annotations) included.
func TestRawContentVerbatim(t *testing.T) {
	block := `{"type":"text","text":"hi","annotations":{"priority":0.5}}`
	got := appendContent(nil, &Content{kind: contentRaw, data: []byte(block)})
	assert.Equal(t, block, string(got))
	raw := RawContent([]byte(block))
	assert.Equal(t, block, string(appendContent(nil, &raw)))
}
