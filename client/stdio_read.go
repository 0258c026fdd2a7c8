package client

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fastmcp-go/fastmcp/decode"
)

// codeInternalError is JSON-RPC's -32603.
const codeInternalError = -32603

// readLoop reads the server's lines until its output ends, then fails what is pending.
func (c *stdioConn) readLoop() {
	defer close(c.done)
	var m decode.Message
	for {
		line, err := c.lines.next()
		switch {
		case errors.Is(err, ErrLineTooLong):
			c.tooLong(err)
			continue
		case errors.Is(err, io.EOF):
			c.fail(c.exited("its output ended"))
			return
		case err != nil:
			c.fail(c.exited("reading its output: " + err.Error()))
			return
		}
		m.Reset()
		if err := c.dec.Decode(&m, line); err != nil {
			// Not JSON-RPC: a server that logs to stdout, nothing to match it to. But a line
			// that starts as an answer to a pending call fails that call now, not at its
			// timeout.
			if id := headID(line); id != nil {
				c.deliver(id, stdioResult{err: fmt.Errorf("%w: the server's line for request %s is not JSON-RPC: %v", ErrMalformed, id, err)})
			}
			continue
		}
		switch m.Kind() {
		case decode.KindResponse:
			c.deliver(m.ID().Raw(), stdioResult{body: append([]byte(nil), line...)})
		case decode.KindNotification:
			c.notification(&m, line)
		case decode.KindRequest:
			c.serverRequest(&m, line)
		}
	}
}

// tooLong fails the call an over-long line answers, when its id is among its first bytes.
// Otherwise the line is dropped and its call ends by its own deadline.
func (c *stdioConn) tooLong(err error) {
	if id := headID(c.lines.head); id != nil {
		c.deliver(id, stdioResult{err: err})
	}
}

// deliver hands r to the call with id, if one is pending (a late or unknown response is
// dropped).
func (c *stdioConn) deliver(id []byte, r stdioResult) {
	c.mu.Lock()
	pc := c.pending[string(id)]
	if pc != nil {
		delete(c.pending, pc.id)
		if c.last == pc {
			c.last = nil
		}
	}
	c.mu.Unlock()
	if pc != nil {
		pc.result <- r
	}
}

// notification hands a notification to the call it belongs to (by progressToken, or by
// the subscriptionId of a listen stream; a log message naming neither to the only call
// pending, when it was made WithLog), or to the connection's handler for unasked
// notifications. It runs on the reader, so that progress and log messages arrive in order
// and before their response.
func (c *stdioConn) notification(m *decode.Message, line []byte) {
	var to messageFunc
	tok := decode.Lookup(m.Params().Raw(), "progressToken") // notifications/progress
	if !tok.Present() {
		// A listen stream's messages name their subscription, the listen request's id.
		tok = decode.Lookup(m.Meta().Raw(), "io.modelcontextprotocol/subscriptionId")
	}
	if tok.Present() {
		c.mu.Lock()
		if pc := c.pending[string(tok.Raw())]; pc != nil {
			to = pc.onMessage
			pc.heard.Store(true)
		}
		c.mu.Unlock()
	} else if string(m.Method().Text()) == "notifications/message" {
		c.mu.Lock()
		if pc := c.soleCall(); pc != nil && pc.logs {
			to = pc.onMessage
		}
		c.mu.Unlock()
	}
	if p := c.unasked.Load(); to == nil && p != nil {
		to = *p
	}
	if to == nil {
		return
	}
	if _, err := to(line); err != nil && tok.Present() {
		c.deliver(tok.Raw(), stdioResult{err: err})
	}
}

// soleCall is the one call pending, subscriptions aside (their messages name them); nil
// when there is none or more than one. Called with c.mu held.
func (c *stdioConn) soleCall() *stdioCall {
	var sole *stdioCall
	for _, pc := range c.pending {
		if pc.longLived {
			continue
		}
		if sole != nil {
			return nil
		}
		sole = pc
	}
	return sole
}

// serverRequest runs a server-to-client request on its own goroutine, at most
// cap(c.sem) at once, and writes the answer back. Stdio does not say which call a request
// belongs to; every call's handlers are the client's, so the call registered last answers
// (or, if it has its response already, any other pending call).
func (c *stdioConn) serverRequest(m *decode.Message, line []byte) {
	id := append([]byte(nil), m.ID().Raw()...)
	c.mu.Lock()
	pc := c.last
	if pc == nil {
		for _, p := range c.pending { // the last one has its answer: any other will do
			pc = p
			break
		}
	}
	var h messageFunc
	var owner []byte
	if pc != nil {
		h, owner = pc.onMessage, []byte(pc.id)
	}
	c.mu.Unlock()
	if h == nil {
		c.tryWriteLine(decode.AppendError(nil, id, codeInternalError, "Client has no request in flight to answer for", nil, true))
		return
	}
	select {
	case c.sem <- struct{}{}:
	default:
		c.tryWriteLine(decode.AppendError(nil, id, codeInternalError, msgTooManyServerRequests, nil, true))
		return
	}
	msg := append([]byte(nil), line...)
	c.handlers.Add(1)
	go func() {
		defer func() { <-c.sem; c.handlers.Done() }()
		answer, err := h(msg)
		if err != nil {
			// The server still waits for an answer; the call ends with the handler's error.
			answer = decode.AppendError(nil, id, codeInternalError, "Client handler failed", nil, true)
			c.deliver(owner, stdioResult{err: err})
		}
		if answer == nil {
			answer = decode.AppendError(nil, id, codeInternalError, "Client handler gave no answer", nil, true)
		}
		_ = c.writeLine(context.Background(), answer)
	}()
}

// exited is the error of calls pending when the server's output ends.
func (c *stdioConn) exited(what string) error {
	if c.exitReason != nil {
		if r := c.exitReason(); r != "" {
			what += " (" + r + ")"
		}
	}
	return fmt.Errorf("%w: %s", ErrServerExited, what)
}
