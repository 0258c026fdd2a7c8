// Package clientlink carries an in-process transport from package client/inprocess, which
// holds the server core, to package client, which must not depend on it: the client builds a
// [*client.Client] over a [Dispatch] it is handed, and never imports the core itself. The
// link adds nothing to the client's exported API.
package clientlink

import "context"

// Sink receives the notifications of one request, in order. It has fastmcp.Sink's method, so
// a Sink is a fastmcp.Sink without either package naming the other.
type Sink interface {
	Notify(ctx context.Context, msg []byte) error
}

// Dispatch serves one JSON-RPC message in-process, as (*fastmcp.Server).Dispatch does: it
// returns the reply, or nil when none is due (a notification, a cancelled request), and hands
// the request's notifications to sink, which may be nil.
type Dispatch func(ctx context.Context, msg []byte, sink Sink) []byte

// NewClient, set by package client when it initializes, returns a *client.Client whose
// requests dispatch serves, configured by cfg, a client.Config. It is typed with any because
// this package sits below client.
var NewClient func(dispatch Dispatch, cfg any) (any, error)
