package client

import (
	"context"
	"errors"
	"time"
)

// sessionDeleteTimeout bounds the DELETE that Close sends to end a legacy session (or
// RequestTimeout, when shorter).
const sessionDeleteTimeout = 2 * time.Second

// errResumeRefused marks a legacy request whose event stream broke and whose resumption the
// server refused: the request may have run, so it is never sent again.
var errResumeRefused = errors.New("client: the server refused to resume the event stream")

// forgetSession drops the session id, so the next request (initialize) is sent without one.
func (t *httpTransport) forgetSession() { t.session.Store(nil) }

// endSession sends the session's DELETE (2025-11-25 §Session Management: a client that no
// longer needs a session SHOULD end it), bounded by timeout. Its answer is read and
// dropped, and a failure ignored: the connection is going away either way.
func (t *httpTransport) endSession(version string, timeout time.Duration) {
	if !t.sessionful() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	pc, _, stop, err := t.exchange(ctx, nil, &headers{version: version, del: true})
	if err != nil {
		return
	}
	defer stop()
	_, reusable, err := t.readBody(pc)
	t.pool.release(pc, reusable && err == nil && stop())
}
