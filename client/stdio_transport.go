package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// DefaultCloseTimeout is how long Close waits for a stdio server to exit once its standard
// input is closed, before it kills the process.
const DefaultCloseTimeout = 2 * time.Second

// stdioTransport is the transport over a stdio connection: a started process (see
// startStdioProcess) or, in tests, any pair of streams.
type stdioTransport struct {
	conn *stdioConn
	in   io.Closer // the server's standard input

	// exit ends the server: it waits up to the close timeout for the process to exit on its
	// own, then kills it. nil for streams that are not a process.
	exit         func(timeout time.Duration) error
	closeTimeout time.Duration
	out          io.Closer // our end of the server's standard output, closed last

	// probed is set once the era probe went out (see probeContext).
	probed       atomic.Bool
	probeTimeout time.Duration

	closeOnce sync.Once
	closeErr  error
}

var _ transport = (*stdioTransport)(nil)

// stdioOptions configure a stdio transport.
type stdioOptions struct {
	maxLine           int                       // 0: DefaultMaxLineBytes
	maxServerRequests int                       // 0: DefaultMaxServerRequests
	exit              func(time.Duration) error // ends the process (see stdioTransport.exit)
	exitReason        func() string             // see stdioConn.exitReason
	probeTimeout      time.Duration             // 0: DefaultProbeTimeout
	closeTimeout      time.Duration             // 0: DefaultCloseTimeout
	requestTimeout    time.Duration             // 0: DefaultRequestTimeout
}

// newStdioTransport speaks to a server whose output is out and whose input is in.
func newStdioTransport(out io.ReadCloser, in io.WriteCloser, o stdioOptions) (*stdioTransport, error) {
	if o.maxLine == 0 {
		o.maxLine = DefaultMaxLineBytes
	}
	if o.probeTimeout == 0 {
		o.probeTimeout = DefaultProbeTimeout
	}
	if o.requestTimeout == 0 {
		o.requestTimeout = DefaultRequestTimeout
	}
	if o.closeTimeout == 0 {
		o.closeTimeout = DefaultCloseTimeout
	}
	if o.maxServerRequests == 0 {
		o.maxServerRequests = DefaultMaxServerRequests
	}
	c, err := newStdioConn(out, in, o.maxLine, o.maxServerRequests, o.requestTimeout, o.exitReason)
	if err != nil {
		return nil, err
	}
	return &stdioTransport{conn: c, in: in, out: out, exit: o.exit, probeTimeout: o.probeTimeout, closeTimeout: o.closeTimeout}, nil
}

func (t *stdioTransport) roundTrip(ctx context.Context, req []byte, hdr *headers, onMessage func([]byte) ([]byte, error)) ([]byte, error) {
	id := decode.Lookup(req, "id")
	if id.Type() != decode.TypeInteger && id.Type() != decode.TypeString {
		return nil, fmt.Errorf("client: stdio request without an integer or string id: %.64s", req)
	}
	pctx, cancel := t.probeContext(ctx, req)
	defer cancel()
	timeout := t.conn.timeout
	if hdr != nil && hdr.timeout > 0 {
		timeout = hdr.timeout
	}
	var kind stdioCallKind
	if hdr != nil {
		kind = stdioCallKind{longLived: hdr.longLived, logs: hdr.logs}
	}
	resp, err := t.conn.call(pctx, id.Raw(), req, kind, timeout, onMessage)
	if errors.Is(err, errProbeTimeout) && ctx.Err() == nil {
		// The core withdraws only what its own context ended; the probe's is ours.
		_ = t.conn.notify(ctx, appendNotification(nil, "notifications/cancelled",
			append(append([]byte(`{"requestId":`), id.Raw()...), `,"reason":"probe timed out"}`...)))
	}
	return resp, err
}

func (t *stdioTransport) notify(ctx context.Context, msg []byte, _ *headers) error {
	return t.conn.notify(ctx, msg)
}

// cancelsByClose is false: the server learns of an abandoned call only from the
// notifications/cancelled the core then sends.
func (t *stdioTransport) cancelsByClose() bool { return false }

// close fails what is pending with ErrClosed, writes the lines already queued (the
// notifications/cancelled of a call that just ended, at most the close timeout), closes the
// server's standard input (which tells it to finish and exit), waits for the process to exit (at most DefaultCloseTimeout,
// then kills it) and for its output to end (a grandchild may hold it open: bounded the same
// way, then our end is closed), and for the handlers of server requests (bounded the same
// way).
func (t *stdioTransport) close() error {
	t.closeOnce.Do(func() {
		t.conn.fail(ErrClosed)
		var err error
		t.conn.shutdown(t.closeTimeout, func() {
			err = t.in.Close()
			if errors.Is(err, os.ErrClosed) {
				err = nil // the process exited, and exec closed its input already
			}
		})
		if t.exit != nil {
			err = errors.Join(err, t.exit(t.closeTimeout))
		}
		timer := time.NewTimer(t.closeTimeout)
		select {
		case <-t.conn.done:
		case <-timer.C:
			_ = t.out.Close()
			<-t.conn.done
		}
		timer.Stop()
		t.waitHandlers()
		_ = t.out.Close() // a second Close is harmless, and its error is not the server's
		t.closeErr = err
	})
	return t.closeErr
}

// waitHandlers waits for the handlers of server requests still running, at most the close
// timeout: they are the application's code (a user answering a form), and their answers
// can no longer be written.
func (t *stdioTransport) waitHandlers() {
	done := make(chan struct{})
	go func() {
		t.conn.handlers.Wait()
		close(done)
	}()
	timer := time.NewTimer(t.closeTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	}
}
