package oauth

import (
	"context"
	"time"
)

// verifyContext bounds a verification within the gate's context: when that has a deadline
// (streamable's RequestGateTimeout), verification must end a tenth of the time left before
// it, so that a verifier out of time answers 503 itself, strictly before the transport's
// 504, however its own timeouts (JWKSConfig.FetchTimeout, IntrospectionConfig.Timeout) are
// set.
func verifyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	left := time.Until(deadline)
	return context.WithDeadline(ctx, deadline.Add(-left/10))
}
