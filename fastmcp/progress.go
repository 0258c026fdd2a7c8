package fastmcp

import (
	"context"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Progress limits per request.
const (
	// MaxProgressUpdates bounds the progress notifications of one request.
	MaxProgressUpdates = 1000
	// MaxProgressMessageBytes bounds the message of one progress notification.
	MaxProgressMessageBytes = 4096
	// ProgressAckTimeout bounds the wait for the transport to write one notification.
	ProgressAckTimeout = 5 * time.Second
)

// Errors Progress returns to the handler. None of them ends the request.
var (
	ErrProgressNotIncreasing = errors.New("fastmcp: progress must increase")
	ErrProgressLimit         = errors.New("fastmcp: progress update limit reached")
	ErrProgressBusy          = errors.New("fastmcp: a progress update is still being written")
	ErrProgressMessage       = errors.New("fastmcp: progress message exceeds 4096 bytes")
	ErrProgressTimeout       = errors.New("fastmcp: progress update was not written in time")
)

// Progress sends notifications/progress for this request when the client asked for it (a
// progressToken in _meta); otherwise it does nothing and returns nil. progress must increase
// strictly from one call to the next; total <= 0 means unknown; message may be empty.
//
// One update may be outstanding at a time (a concurrent call gets ErrProgressBusy): Progress
// returns once the transport has written it, or after [ProgressAckTimeout] with
// ErrProgressTimeout. At most [MaxProgressUpdates] are sent. Progress never extends the
// request's deadline.
func (r *Request) Progress(ctx context.Context, progress, total float64, message string) error {
	token := r.msg.ProgressToken()
	if !token.Present() || r.sink == nil {
		return nil
	}
	if len(message) > MaxProgressMessageBytes {
		return ErrProgressMessage
	}
	if math.IsNaN(progress) || math.IsInf(progress, 0) {
		return ErrProgressNotIncreasing
	}
	g := &r.progress
	if !g.busy.CompareAndSwap(false, true) {
		return ErrProgressBusy
	}
	if g.started.Load() && progress <= math.Float64frombits(g.last.Load()) {
		g.busy.Store(false)
		return ErrProgressNotIncreasing
	}
	if g.updates.Load() >= MaxProgressUpdates {
		g.busy.Store(false)
		return ErrProgressLimit
	}
	g.updates.Add(1)
	g.started.Store(true)
	g.last.Store(math.Float64bits(progress))

	params := make([]byte, 0, 96+len(message))
	params = append(params, `{"progressToken":`...)
	params = append(params, token.Raw()...)
	params = append(params, `,"progress":`...)
	params = strconv.AppendFloat(params, progress, 'g', -1, 64)
	if total > 0 {
		params = append(params, `,"total":`...)
		params = strconv.AppendFloat(params, total, 'g', -1, 64)
	}
	if message != "" {
		params = append(params, `,"message":`...)
		params = decode.AppendString(params, message, false)
	}
	params = append(params, '}')
	msg := decode.AppendNotification(nil, "notifications/progress", params)

	wctx, cancel := context.WithTimeout(ctx, ProgressAckTimeout)
	defer cancel()
	err := r.sink.Notify(wctx, msg) // sinks honour ctx: the wait is bounded
	g.busy.Store(false)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return ErrProgressTimeout
	}
	return err
}
