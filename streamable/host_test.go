package streamable

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/sse"
)

// hostHeaders is a host's header view for the tests: canonical names, literal values.
type hostHeaders map[string][]string

func (m hostHeaders) Values(name string) [][]byte {
	var out [][]byte
	for k, vs := range m {
		if strings.EqualFold(k, name) {
			for _, v := range vs {
				out = append(out, []byte(v))
			}
		}
	}
	return out
}

// hostRequest is a Request for a body with the headers of a correct 2026-07-28 client.
func hostRequest(body string, extra ...string) *Request {
	h := hostHeaders{
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"MCP-Protocol-Version": {"2026-07-28"},
	}
	for _, e := range extra {
		k, v, _ := strings.Cut(e, ": ")
		h[k] = append(h[k], v)
	}
	return &Request{Method: []byte("POST"), Path: []byte("/mcp"), Host: []byte("127.0.0.1:8080"), Header: h,
		ContentLength: int64(len(body)), Body: []byte(body)}
}

// recorder is a host's response: what WriteResponse got, and the stream's bytes.
type recorder struct {
	resp   Response
	opened int
	stream bytes.Buffer
}

func (r *recorder) WriteResponse(resp Response) error {
	resp.Body = append([]byte(nil), resp.Body...)
	r.resp = resp
	return nil
}

func (r *recorder) OpenStream() (io.Writer, sse.DeadlineSetter, error) {
	r.opened++
	return &r.stream, nil, nil
}

func newHostEndpoint(t *testing.T, core *fastmcp.Server) *Endpoint {
	t.Helper()
	e, err := NewEndpoint(core, Config{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(context.Background())) })
	return e
}

// TestPrepareRefusals: what Prepare answers itself, byte for byte, and whether the host
// must close the connection.
func TestPrepareRefusals(t *testing.T) {
	e := newHostEndpoint(t, newCore(t))
	const lenReq = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Length Required: send a Content-Length and no Transfer-Encoding"}}`
	tests := []struct {
		name   string
		req    func() *Request
		status int
		body   string
		close  bool
	}{
		{"head over MaxHeaderBytes", func() *Request {
			r := hostRequest(list("1"), "Mcp-Method: tools/list")
			r.HeadBytes = DefaultMaxHeaderBytes + 1
			return r
		}, 431, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request header fields too large"}}`, true},
		{"GET", func() *Request { r := hostRequest(""); r.Method = []byte("GET"); return r },
			405, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Method not allowed: use POST"}}`, false},
		{"Transfer-Encoding", func() *Request { r := hostRequest(list("1")); r.TransferEncoding = true; return r }, 411, lenReq, true},
		{"no Content-Length", func() *Request { r := hostRequest(""); r.ContentLength = -1; return r }, 411, lenReq, true},
		{"over MaxBodyBytes", func() *Request { r := hostRequest(""); r.ContentLength = DefaultMaxBodyBytes + 1; return r },
			413, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body exceeds the maximum size"}}`, true},
		{"short body", func() *Request { r := hostRequest(list("1")); r.BodyReader = strings.NewReader(`{"jsonrpc"`); return r },
			400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Failed to read HTTP request"}}`, true},
		{"not JSON", func() *Request { return hostRequest(`{not-json`, "Mcp-Method: tools/list") },
			400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid JSON"}}`, false},
		{"posted notification", func() *Request {
			return hostRequest(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		}, 202, "", false},
		{"Mcp-Method mismatch", func() *Request { return hostRequest(list("2"), "Mcp-Method: tools/call") },
			400, `{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"Mcp-Method header is missing or does not match the method"}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, resp, ok := e.Prepare(tc.req())
			require.False(t, ok)
			p.Release()
			assert.Equal(t, tc.status, resp.Status)
			assert.Equal(t, tc.body, string(resp.Body))
			assert.Equal(t, tc.close, resp.Close)
			if tc.status == 405 {
				assert.Equal(t, map[string]string{"Allow": "POST"}, resp.Header)
			}
		})
	}
}

// TestExecuteJSON prepares and executes a tools/call read from a BodyReader.
func TestExecuteJSON(t *testing.T) {
	e := newHostEndpoint(t, newCore(t))
	body := call("1", "echo", `{"text":"hi"}`)
	r := hostRequest(body, callHeaders("echo")...)
	r.Body, r.BodyReader = nil, strings.NewReader(body)
	p, _, ok := e.Prepare(r)
	require.True(t, ok)
	var rec recorder
	resp := e.Execute(context.Background(), p, &rec)
	assert.Equal(t, 200, resp.Status)
	assert.Equal(t, "application/json", resp.ContentType)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}],`+serverInfo+`}}`, string(resp.Body))
	assert.Zero(t, rec.opened)
	p.Release()
}

// TestHandleProgressStream: a request that reports progress is answered on the event
// stream the host opens, the reply its last event.
func TestHandleProgressStream(t *testing.T) {
	e := newHostEndpoint(t, newCore(t))
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"},"name":"sleep","arguments":{"ms":35}}}`
	var rec recorder
	e.Handle(context.Background(), hostRequest(body, callHeaders("sleep")...), &rec)
	assert.Zero(t, rec.resp.Status, "nothing but the stream")
	assert.Equal(t, 1, rec.opened)
	events := strings.Split(strings.TrimSuffix(rec.stream.String(), "\n\n"), "\n\n")
	require.GreaterOrEqual(t, len(events), 2)
	assert.Equal(t, `event: message`+"\n"+`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`, events[0])
	assert.Equal(t, `event: message`+"\n"+`data: {"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","content":[{"type":"text","text":"slept"}],`+serverInfo+`}}`, events[len(events)-1])
}

// TestHandleGate: the gate sees the request's head, its identity reaches the core.
func TestHandleGate(t *testing.T) {
	var runs atomic.Int64
	e, err := NewEndpoint(gateCore(t, &runs), Config{RequestGate: testGate})
	require.NoError(t, err)
	defer e.Close(context.Background())
	var rec recorder
	e.Handle(context.Background(), hostRequest(call("1", "whoami", `{}`), append(callHeaders("whoami"), "X-Gate: alice")...), &rec)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"alice"}],`+serverInfo+`}}`, string(rec.resp.Body))
	rec = recorder{}
	e.Handle(context.Background(), hostRequest(call("1", "whoami", `{}`), append(callHeaders("whoami"), "X-Gate: refuse")...), &rec)
	assert.Equal(t, 401, rec.resp.Status)
	assert.Equal(t, `{"error":"invalid_token"}`, string(rec.resp.Body))
	assert.Equal(t, int64(1), runs.Load())
}
