package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
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
	exit func() error
	out  io.Closer // our end of the server's standard output, closed last

	// modern and version are the era the handshake settled (see handshake).
	modern  bool
	version string

	closeOnce sync.Once
	closeErr  error
}

var _ transport = (*stdioTransport)(nil)

// stdioOptions configure a stdio transport.
type stdioOptions struct {
	maxLine           int           // 0: DefaultMaxLineBytes
	maxServerRequests int           // 0: DefaultMaxServerRequests
	exit              func() error  // ends the process (see stdioTransport.exit)
	exitReason        func() string // see stdioConn.exitReason
}

// newStdioTransport speaks to a server whose output is out and whose input is in.
func newStdioTransport(out io.ReadCloser, in io.WriteCloser, o stdioOptions) (*stdioTransport, error) {
	if o.maxLine == 0 {
		o.maxLine = DefaultMaxLineBytes
	}
	if o.maxServerRequests == 0 {
		o.maxServerRequests = DefaultMaxServerRequests
	}
	c, err := newStdioConn(out, in, o.maxLine, o.maxServerRequests, o.exitReason)
	if err != nil {
		return nil, err
	}
	return &stdioTransport{conn: c, in: in, out: out, exit: o.exit}, nil
}

func (t *stdioTransport) roundTrip(ctx context.Context, req []byte, _ *headers, onMessage func([]byte) ([]byte, error)) ([]byte, error) {
	id := decode.Lookup(req, "id")
	if id.Type() != decode.TypeInteger && id.Type() != decode.TypeString {
		return nil, fmt.Errorf("client: stdio request without an integer or string id: %.64s", req)
	}
	return t.conn.call(ctx, id.Raw(), req, onMessage)
}

func (t *stdioTransport) notify(_ context.Context, msg []byte, _ *headers) error {
	return t.conn.notify(msg)
}

// cancelsByClose is true: an abandoned stdio call writes notifications/cancelled itself,
// because only the transport knows whether the call was still pending (a call whose response
// had arrived is not cancelled).
func (t *stdioTransport) cancelsByClose() bool { return true }

// close fails what is pending with ErrClosed, closes the server's standard input (which
// tells it to finish and exit), waits for the process to exit (at most DefaultCloseTimeout,
// then kills it) and for its output to end (a grandchild may hold it open: bounded the same
// way, then our end is closed), and for the handlers of server requests.
func (t *stdioTransport) close() error {
	t.closeOnce.Do(func() {
		t.conn.fail(ErrClosed)
		err := t.in.Close()
		t.conn.shutdown()
		if t.exit != nil {
			err = errors.Join(err, t.exit())
		}
		timer := time.NewTimer(DefaultCloseTimeout)
		select {
		case <-t.conn.done:
		case <-timer.C:
			_ = t.out.Close()
			<-t.conn.done
		}
		timer.Stop()
		t.conn.handlers.Wait()
		_ = t.out.Close() // a second Close is harmless, and its error is not the server's
		t.closeErr = err
	})
	return t.closeErr
}
