package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// The application's callbacks (input handlers, progress and WithLog callbacks, OnLog) run on the
// client's goroutines, some shared by every call (the stdio reader): a panic in one is
// turned into an error or a logged warning, never the end of the process.

// callHandler runs an input handler; a panic is its error.
func callHandler(h InputHandler, ctx context.Context, method string, params []byte) (res json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("client: the %s handler panicked: %v", method, r)
		}
	}()
	return h(ctx, json.RawMessage(params))
}

// callProgress runs a progress callback; a panic is logged and the call goes on.
func (c *Client) callProgress(fn func(Progress), p Progress) {
	defer func() {
		if r := recover(); r != nil {
			c.cfg.Logger.Error("client: a progress callback panicked", "panic", r)
		}
	}()
	fn(p)
}

// callLogged runs a WithLog callback; a panic is logged and the call goes on.
func (c *Client) callLogged(fn func(LogMessage), m LogMessage) {
	defer func() {
		if r := recover(); r != nil {
			c.cfg.Logger.Error("client: a WithLog callback panicked", "panic", r)
		}
	}()
	fn(m)
}
