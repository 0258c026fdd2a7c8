package fastmcp

// Every success response the core sends is written here:
//
//	{"jsonrpc":"2.0","id":<id>,"result":{"resultType":<type>,<members>,"_meta":<the server's _meta, joined by the result's>}}
//
// A component's result is written straight into the response: [beginResult], its members
// (each starting with a comma), [Server.endResult]. A result built once and cached (the
// discover result, a public list page) is written as an object with [openResult] and
// [Server.closeResult], and [appendResult] puts it in each response.

// resultType is a result's resultType.
type resultType uint8

// The result types of MCP 2026-07-28.
const (
	resultComplete resultType = iota
	resultInputRequired
)

// The pieces of a success response: its envelope up to the result object, and the openings of
// the result objects by resultType.
const (
	envelopeID        = `{"jsonrpc":"2.0","id":`
	envelopeResult    = `,"result":`
	openComplete      = `{"resultType":"complete"`
	openInputRequired = `{"resultType":"input_required"`
)

// beginResult appends the start of a success response to the request with the id literal:
// the envelope and the result's resultType.
func beginResult(dst, id []byte, t resultType) []byte {
	dst = append(dst, envelopeID...)
	dst = append(dst, id...)
	if t == resultInputRequired {
		return append(dst, envelopeResult+openInputRequired...)
	}
	return append(dst, envelopeResult+openComplete...)
}

// endResult appends the end of a success response begun with [beginResult]: the result's
// _meta (see [Server.closeResult]), then it closes the result and the response.
func (s *Server) endResult(dst, extra []byte) []byte {
	return append(s.closeResult(dst, extra), '}')
}

// appendResult appends a success response whose result object (from [openResult] and
// [Server.closeResult]) is built already.
func appendResult(dst, id, result []byte) []byte {
	dst = append(dst, envelopeID...)
	dst = append(dst, id...)
	dst = append(dst, envelopeResult...)
	dst = append(dst, result...)
	return append(dst, '}')
}

// openResult appends the start of a result object: its resultType.
func openResult(dst []byte, t resultType) []byte {
	if t == resultInputRequired {
		return append(dst, openInputRequired...)
	}
	return append(dst, openComplete...)
}

// closeResult appends the end of a result object: its _meta, the server's joined by the
// members of extra (a JSON object, or nil), and the closing brace.
func (s *Server) closeResult(dst, extra []byte) []byte {
	dst = append(dst, ',')
	dst = s.appendMeta(dst, extra)
	return append(dst, '}')
}

// appendMeta writes the result _meta: the server's, joined by the members of extra (a JSON
// object or nil).
func (s *Server) appendMeta(dst, extra []byte) []byte {
	if len(extra) < 2 || string(extra) == "{}" {
		return append(dst, s.serverMeta...)
	}
	dst = append(dst, s.serverMeta[:len(s.serverMeta)-1]...) // without the closing brace
	dst = append(dst, ',')
	return append(dst, extra[1:]...) // the members of extra and its closing brace
}
