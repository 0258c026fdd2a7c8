package streamable

import (
	"bytes"
	"encoding/base64"
	"unicode/utf8"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// Headers gives a host-neutral view of request headers.
type Headers interface {
	// Values returns every value of the named header (names compare case-insensitively), in
	// order; nil when absent. The result may be reused by the next call.
	Values(name string) [][]byte
}

// The headers a 2026-07-28 request mirrors from its body.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
)

// mediaTypeIs reports whether a Content-Type value names the media type want (parameters
// allowed, type compared case-insensitively).
func mediaTypeIs(v []byte, want string) bool {
	if string(v) == want {
		return true
	}
	if i := bytes.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return bytes.EqualFold(bytes.TrimSpace(v), []byte(want))
}

// acceptsBoth reports whether the Accept values list application/json and
// text/event-stream (wildcards count).
func acceptsBoth(values [][]byte) bool {
	if len(values) == 1 && (string(values[0]) == "application/json, text/event-stream" || string(values[0]) == "text/event-stream, application/json") {
		return true // what clients send, without parsing
	}
	var json, sse bool
	for _, v := range values {
		for len(v) > 0 {
			item := v
			if i := bytes.IndexByte(v, ','); i >= 0 {
				item, v = v[:i], v[i+1:]
			} else {
				v = nil
			}
			switch {
			case mediaTypeIs(item, "application/json"):
				json = true
			case mediaTypeIs(item, "text/event-stream"):
				sse = true
			case mediaTypeIs(item, "*/*"):
				json, sse = true, true
			case mediaTypeIs(item, "application/*"):
				json = true
			case mediaTypeIs(item, "text/*"):
				sse = true
			}
		}
	}
	return json && sse
}

// one returns the single value of a mirrored header, trimmed of optional whitespace; ok is
// false when it is absent or repeated.
func one(h Headers, name string) ([]byte, bool) {
	vs := h.Values(name)
	if len(vs) != 1 {
		return nil, false
	}
	return trimOWS(vs[0]), true
}

// trimOWS trims the optional whitespace (spaces and tabs) around a header value.
func trimOWS(v []byte) []byte {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	return v
}

// decodeSentinel decodes the =?base64?…?= form of a header value; other values are literal.
// ok is false for bad base64 or invalid UTF-8.
func decodeSentinel(v []byte) ([]byte, bool) {
	const pre, post = "=?base64?", "?="
	if len(v) < len(pre)+len(post) || string(v[:len(pre)]) != pre || string(v[len(v)-len(post):]) != post {
		return v, true
	}
	enc := v[len(pre) : len(v)-len(post)]
	if bytes.ContainsAny(enc, "\r\n") {
		return nil, false // Go's decoder skips newlines; the sentinel does not allow them
	}
	out, err := base64.StdEncoding.Strict().AppendDecode(nil, enc)
	if err != nil || !utf8.Valid(out) {
		return nil, false
	}
	return out, true
}

// checkMirrors checks the headers that mirror the body of a 2026-07-28 request: the protocol
// version, the method, the name (tools/call, prompts/get, resources/read) and, for tools/call,
// the Mcp-Param-* headers of x-mcp-header arguments. It runs only when the request carries
// both required _meta members (otherwise the core answers -32602 first).
func checkMirrors(h Headers, m *decode.Message, core *transport.Endpoint) *httpError {
	pv, ok := one(h, HeaderProtocolVersion)
	if !ok {
		return mismatch("MCP-Protocol-Version header is missing or repeated")
	}
	if !bytes.Equal(pv, m.ProtocolVersion().Text()) {
		return mismatch("MCP-Protocol-Version header does not match the request metadata")
	}
	method := m.Method().Text()
	hm, ok := one(h, HeaderMethod)
	if !ok || !bytes.Equal(hm, method) {
		return mismatch("Mcp-Method header is missing or does not match the method")
	}
	var named decode.Value
	switch member := core.NamedBy(method); member {
	case "name":
		named = m.Name()
	case "uri":
		named = m.URI()
	case "":
		return nil
	default: // an extension method's, such as tasks/get's taskId
		named = decode.Lookup(m.Params().Raw(), member)
	}
	hn, ok := one(h, HeaderName)
	if !ok {
		return mismatch("Mcp-Name header is missing or repeated")
	}
	name, ok := decodeSentinel(hn)
	if !ok || !bytes.Equal(name, named.Text()) {
		return mismatch("Mcp-Name header does not match the request")
	}
	return nil
}

// checkParams checks the Mcp-Param-* headers of a tools/call: every x-mcp-header argument
// present (and not null) in the body needs its header, equal after decoding.
func checkParams(h Headers, m *decode.Message, core *transport.Endpoint) *httpError {
	params, ok := core.HeaderParams(m.NameText())
	if !ok || params.Len() == 0 {
		return nil
	}
	header, missing := params.Check(m.Arguments(), func(name string) ([]byte, bool, bool) {
		hv, ok := one(h, name)
		if !ok {
			return nil, false, false
		}
		v, ok := decodeSentinel(hv)
		return v, true, ok
	})
	switch {
	case header == "":
		return nil
	case missing:
		return mismatch(header + " header is missing or repeated")
	}
	return mismatch(header + " header does not match the argument")
}
