package fastmcp

import (
	"context"
	"sync"

	"github.com/fastmcp-go/fastmcp/decode"
)

// HandleLegacy serves one decoded initialize-era request in the dialect c.Dialect, as
// [Server.Handle] serves a modern one: initialize (which negotiates its own version and
// reports the client's new state in [Reply.Client]), ping, logging/setLevel (likewise),
// the list, call, get, read, complete and subscribe methods with the revision's result
// shapes. A handler's InputRequired becomes real server-to-client requests through sink,
// which must be a [Requester] for it, answered through [Server.Answer]; the handler then
// runs again with the answers.
func (s *Server) HandleLegacy(ctx context.Context, m *decode.Message, c *LegacyClient, sink Sink, dst []byte) Reply {
	return s.handleLegacy(ctx, m, c, sink, dst)
}

// Answer delivers a JSON-RPC response from the client (m is KindResponse) to the
// server-to-client request it answers. principal is the identity the answer arrived with
// ("" when none): it must be the one the request was made for. Answer reports false when
// no outstanding request has the id (a late, repeated or foreign answer): the transport
// ignores it.
func (s *Server) Answer(m *decode.Message, principal string) bool {
	// TODO(legacy-core)
	return false
}

// outstanding is the set of server-to-client requests awaiting answers.
type outstanding struct {
	mu sync.Mutex
}

// inputAnswers is what the client answered to one round of server-to-client requests.
type inputAnswers struct {
	results []byte            // a JSON object: key -> the client's result object
	errs    map[string]*Error // key -> the client's error response, by key
}

// bridgeInput sends the requests of ir to the client through sink (a [Requester]) as real
// JSON-RPC requests, adapted to c.Dialect, and waits for every answer (see Server.Answer),
// within ctx. It returns ErrCannotWait when the sink cannot wait here, a context error when
// ctx ends (the requests still outstanding are then withdrawn), or an *Error.
func (s *Server) bridgeInput(ctx context.Context, r *Request, c *LegacyClient, sink Sink, ir *InputRequired) (*inputAnswers, error) {
	// TODO(legacy-bridge)
	return nil, ErrCannotWait
}
