package pool

import (
	"context"
	"time"
)

// ctxBlockLen is how many job contexts share one allocation. A context is
// never reused (see jobCtx): a block is one allocation for the contexts of
// ctxBlockLen jobs, carved in turn, and freed by the garbage collector once
// none of them is referenced. A context retained after its job keeps the
// whole block, and the submitters' contexts it refers to, alive, and so does
// the Executor for its current block: a small block bounds that.
const ctxBlockLen = 8

type ctxBlock [ctxBlockLen]jobCtx

// newCtxLocked returns a new context for a job. e.mu must be held.
func (e *Executor) newCtxLocked(parent context.Context, deadline time.Duration) *jobCtx {
	if e.ctxNext == ctxBlockLen {
		e.ctxBlock, e.ctxNext = new(ctxBlock), 0
	}
	c := &e.ctxBlock[e.ctxNext]
	e.ctxNext++
	c.parent, c.epoch, c.deadline = parent, &e.epoch, deadline
	return c
}

// unnewCtxLocked takes back c, which newCtxLocked has just returned and
// nobody else has seen, for the next job. e.mu must be held.
func (e *Executor) unnewCtxLocked(c *jobCtx) {
	c.parent, c.epoch, c.deadline = nil, nil, 0
	e.ctxNext--
}
