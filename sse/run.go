package sse

import (
	"context"
	"time"
)

// Run writes each data received from events as an event (see
// [Writer.WriteEvent]) and a keepalive comment whenever the stream has been
// idle for [Config.KeepAliveInterval]. It runs in the calling goroutine (for
// example the one an HTTP server runs a streaming body in) and starts none;
// an idle stream costs one timer.
//
// Run returns:
//   - nil when events is closed, after every event received before has been
//     written: the way to end a stream with a final message;
//   - ctx.Err() when ctx is done; nothing is written after Run has seen that;
//   - the write error when an event or keepalive fails, which is how a
//     client's disconnect is usually seen.
//
// Once Run has returned nothing reads events, so a sender must also select
// on something that the caller cancels when Run returns. A slice sent on
// events belongs to Run: the sender must not modify it afterwards. A nil
// events channel writes keepalives until ctx is done or a write fails.
func (w *Writer) Run(ctx context.Context, events <-chan []byte) error {
	idle := time.NewTimer(w.keepAlive)
	defer idle.Stop()
	done := ctx.Done()
	for {
		select {
		case data, ok := <-events:
			if !ok {
				return nil
			}
			select { // a cancelled stream must not send more
			case <-done:
				return ctx.Err()
			default:
			}
			if err := w.WriteEvent(data); err != nil {
				return err
			}
		case <-idle.C:
			if err := w.WriteKeepAlive(); err != nil {
				return err
			}
		case <-done:
			return ctx.Err()
		}
		// Since Go 1.23 Reset needs no drain: a stale expiry is never
		// delivered.
		idle.Reset(w.keepAlive)
	}
}
