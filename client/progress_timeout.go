package client

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// errNoProgress is the cause of a call cut because RequestTimeout passed without progress.
var errNoProgress = errors.New("client: no progress within RequestTimeout")

// progressTimer restarts a call's RequestTimeout at each of its progress notifications
// (Config.ResetTimeoutOnProgress); the transport bounds the whole call by MaxTotalTimeout.
type progressTimer struct {
	cancel context.CancelCauseFunc
	timer  *time.Timer
	idle   time.Duration
}

// newProgressTimer returns ctx cancelled with errNoProgress once idle passes without reset.
func newProgressTimer(ctx context.Context, idle time.Duration) (context.Context, *progressTimer) {
	ctx, cancel := context.WithCancelCause(ctx)
	p := &progressTimer{cancel: cancel, idle: idle}
	p.timer = time.AfterFunc(idle, func() { cancel(errNoProgress) })
	return ctx, p
}

// reset restarts the timeout; after it fired, the call is over and this changes nothing.
func (p *progressTimer) reset() { p.timer.Reset(p.idle) }

func (p *progressTimer) stop() {
	p.timer.Stop()
	p.cancel(nil)
}

// err is the call's error when the timer cut it, else err unchanged.
func (p *progressTimer) err(ctx context.Context, err error) error {
	if context.Cause(ctx) == errNoProgress {
		return fmt.Errorf("%w (%v): %w", errNoProgress, p.idle, context.DeadlineExceeded)
	}
	return err
}
