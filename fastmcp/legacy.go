package fastmcp

import (
	"context"

	"github.com/fastmcp-go/fastmcp/decode"
)

// HandleLegacy serves one decoded initialize-era request in the dialect c.Dialect, as
// [Server.Handle] serves a modern one: initialize (which negotiates its own version and
// reports the client's new state in [Reply.Client]), ping, logging/setLevel (likewise),
// the list, call, get, read, complete and subscribe methods with the revision's result
// shapes. A handler's InputRequired becomes real server-to-client requests through sink,
// which must be a [Requester] for it, answered through [Server.Answer]; the handler then
// runs again with the answers, on this goroutine: HandleLegacy blocks until the request is
// done, or returns [Reply.Rerun] at once when sink cannot wait here. Notifications and
// responses are the transport's (it answers nothing for them). c is read, never changed; m
// must stay valid until HandleLegacy returns. See the package documentation for the
// errors.
func (s *Server) HandleLegacy(ctx context.Context, m *decode.Message, c *LegacyClient, sink Sink, dst []byte) Reply {
	if s.cfg.Observer != nil && m.Kind() == decode.KindRequest {
		var o observation
		s.startObserving(&o, ctx, m, sink, c.Dialect)
		reply := s.handleLegacy(o.ctx, m, c, sink, dst, o.pre)
		s.endObserving(&o, reply)
		return reply
	}
	return s.handleLegacy(ctx, m, c, sink, dst, resolved{})
}
