package gateway

import (
	"context"
	"sync"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// relay forwards what a backend sends during a call (progress, log messages) to the
// caller's request that is waiting for it. A call to an initialize-era backend that asks for
// input outlives the round that started it (parked.go): each round attaches its own request
// while it waits, and what comes between rounds, when no request of the caller waits, is
// dropped. mu orders the forwarding with detach, after which the request is not touched (a
// Request is valid only until its handler returns).
type relay struct {
	mu  sync.Mutex
	ctx context.Context
	r   *fastmcp.Request
}

// newRelay returns a relay attached to the handler's request r.
func newRelay(ctx context.Context, r *fastmcp.Request) *relay {
	return &relay{ctx: ctx, r: r}
}

func (rl *relay) attach(ctx context.Context, r *fastmcp.Request) {
	rl.mu.Lock()
	rl.ctx, rl.r = ctx, r
	rl.mu.Unlock()
}

// detach ends the forwarding to the request attached: call it before its handler returns.
func (rl *relay) detach() {
	rl.mu.Lock()
	rl.ctx, rl.r = nil, nil
	rl.mu.Unlock()
}

// options asks the backend for what the caller asked of r: progress when it sent a
// progressToken, log messages at its level when it gets any.
func (rl *relay) options(r *fastmcp.Request) []client.CallOption {
	var opts []client.CallOption
	if wantsProgress(r) {
		opts = append(opts, client.WithProgress(rl.progress))
	}
	if level := r.LogLevel(); level != fastmcp.LogOff {
		opts = append(opts, client.WithLog(level.String(), rl.log))
	}
	return opts
}

func (rl *relay) progress(p client.Progress) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.r != nil {
		_ = rl.r.Progress(rl.ctx, p.Progress, p.Total, p.Message) // a non-increasing update is dropped
	}
}

// log forwards one log message with its level, logger and data; a level that is none of
// the eight the protocol names cannot be, and is dropped.
func (rl *relay) log(m client.LogMessage) {
	level, ok := logLevelNamed(m.Level)
	if !ok {
		return
	}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.r != nil {
		_ = rl.r.Log(rl.ctx, level, m.Logger, m.Data) // best effort, as any log message
	}
}

// logLevelNamed is the level a log message names.
func logLevelNamed(name string) (fastmcp.LogLevel, bool) {
	for l := fastmcp.LogDebug; l <= fastmcp.LogEmergency; l++ {
		if l.String() == name {
			return l, true
		}
	}
	return fastmcp.LogOff, false
}
