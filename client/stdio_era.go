package client

import (
	"context"
	"errors"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// DefaultProbeTimeout is how long EraAuto over stdio waits for the answer to its
// server/discover probe before it takes the server for an initialize-era one: a legacy
// stdio server may ignore a method it does not know instead of answering it. The probe is
// then withdrawn (notifications/cancelled) and the initialize handshake follows on the same
// connection.
const DefaultProbeTimeout = 2 * time.Second

// errProbeTimeout ends a probe the server left unanswered; the core falls back to
// initialize on it, as on any answer that is not a modern one.
var errProbeTimeout = errors.New("client: server/discover probe unanswered within the probe timeout")

// probeContext bounds the first server/discover on this connection, the era probe, by the
// probe timeout; any other request keeps ctx.
func (t *stdioTransport) probeContext(ctx context.Context, req []byte) (context.Context, context.CancelFunc) {
	if t.probed.Load() || decode.Lookup(req, "method").String() != "server/discover" || !t.probed.CompareAndSwap(false, true) {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, t.probeTimeout, errProbeTimeout)
}
