package fastmcp

import (
	"context"

	"github.com/fastmcp-go/fastmcp/decode"
)

// openTap asks the extension that reads listen filters for the stream's tap: nil when there
// is none or the filter asks nothing of it.
func (s *Server) openTap(ctx context.Context, r *Request) (*ListenTap, error) {
	x := s.ext.Load()
	if x == nil || x.listen == nil {
		return nil, nil
	}
	return x.listen(ctx, r, decode.Lookup(r.msg.Params().Raw(), "notifications").Raw())
}

// appendTapEvent writes an extension's notification with the stream's subscriptionId _meta.
func appendTapEvent(dst, id []byte, ev ListenEvent) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	dst = decode.AppendString(dst, ev.Method, false)
	dst = append(dst, `,"params":{`...)
	p := trimSpaceRight(ev.Params)
	if len(p) >= 2 {
		members := trimSpaceRight(p[1 : len(p)-1])
		if len(members) > 0 {
			dst = append(dst, members...)
			dst = append(dst, ',')
		}
	}
	dst = appendSubscriptionMeta(dst, id)
	return append(dst, "}}"...)
}

// writeTapEvent writes one tap event through sink; false when the sink failed.
func writeTapEvent(ctx context.Context, sink Sink, id []byte, ev ListenEvent) bool {
	buf := getListenBuf()
	*buf = appendTapEvent(*buf, id, ev)
	err := sink.Notify(ctx, *buf)
	putListenBuf(buf)
	return err == nil
}
