package fastmcp

import (
	"context"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp/internal/corelink"
	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

// hostSide is the transport-facing side of a Server, which package fastmcp/transport offers
// to transport authors (and documents): its methods are exported for that package's
// interface, the type is not, so that the user's Server shows only the user's API.
type hostSide Server

func init() {
	corelink.HostSide = func(s any) any { return (*hostSide)(s.(*Server)) }
}

func (h *hostSide) Serve(ctx context.Context, st *ConnState, m *decode.Message, sink Sink, dst []byte) Reply {
	return (*Server)(h).serveMessage(ctx, st, m, sink, dst)
}

func (h *hostSide) Classify(m *decode.Message, version []byte, hasVersion bool) (Dialect, *Error) {
	return (*Server)(h).classify(m, version, hasVersion)
}

func (h *hostSide) Stateless(d Dialect) ConnState {
	return ConnState{Dialect: d, LogLevel: (*Server)(h).legacyLogLevel()}
}

func (h *hostSide) Answer(m *decode.Message, principal string) bool {
	return (*Server)(h).answer(m, principal)
}

func (h *hostSide) Decoder() *decode.Decoder { return h.decoder }

func (h *hostSide) Serves(d Dialect) bool { return (*Server)(h).serves(d) }

func (h *hostSide) ServesLegacy() bool { return (*Server)(h).newestLegacy() != 0 }

func (h *hostSide) NamedBy(method []byte) string { return (*Server)(h).namedBy(string(method)) }

func (h *hostSide) HeaderParams(tool []byte) ([]jsonschema.HeaderParam, bool) {
	return (*Server)(h).headerParams(string(tool))
}

func (h *hostSide) SubscribeEvents(ev *LegacyEvents) func(ctx context.Context, sink Sink) error {
	return (*Server)(h).subscribeLegacyEvents(ev)
}

func (h *hostSide) OutstandingRequests() int { return (*Server)(h).outstandingRequests() }

func (h *hostSide) DecodeError(dst []byte, m *decode.Message, err error) Reply {
	return appendDecodeError(dst, m, err)
}

func (h *hostSide) SealSession(st *ConnState, principal string, ttl time.Duration) ([]byte, error) {
	return (*Server)(h).sealSession(st, principal, ttl)
}

func (h *hostSide) OpenSession(id []byte, principal string) (ConnState, time.Time, bool) {
	return (*Server)(h).openSession(id, principal)
}

func (h *hostSide) Subscribe(deliver func(Event)) (cancel func()) {
	return (*Server)(h).Subscribe(deliver)
}

func (h *hostSide) Publish(e Event) { (*Server)(h).Publish(e) }
