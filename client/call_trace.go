package client

import "github.com/fastmcp-go/fastmcp/decode"

// maxTraceMemberBytes bounds a traceparent or tracestate WithTraceContext sends; a longer
// one is left out, as W3C Trace Context has receivers ignore it (512 bytes, the bound of
// package observe).
const maxTraceMemberBytes = 512

// WithTraceContext sends the W3C trace context traceparent and tracestate in the request's
// _meta, where MCP carries it, so that the server's span joins the caller's trace. An empty
// traceparent sends nothing; a tracestate without a traceparent, or either past 512 bytes,
// is left out. The values are sent as given: the caller validates them.
func WithTraceContext(traceparent, tracestate string) CallOption {
	return func(o *callOpts) {
		o.trace = nil
		if traceparent == "" || len(traceparent) > maxTraceMemberBytes {
			return
		}
		o.trace = append(o.trace, `"traceparent":`...)
		o.trace = decode.AppendString(o.trace, traceparent, false)
		if tracestate != "" && len(tracestate) <= maxTraceMemberBytes {
			o.trace = append(o.trace, `,"tracestate":`...)
			o.trace = decode.AppendString(o.trace, tracestate, false)
		}
	}
}

// withMetaMembers returns meta (a _meta object without its closing brace, or empty) with
// members appended, in a new slice: meta may be the client's shared prefix.
func withMetaMembers(meta, members []byte) []byte {
	if len(members) == 0 {
		return meta
	}
	out := make([]byte, 0, len(meta)+len(members)+2)
	if len(meta) == 0 {
		out = append(out, '{')
	} else {
		out = append(append(out, meta...), ',')
	}
	return append(out, members...)
}
