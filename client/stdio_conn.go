package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// DefaultMaxServerRequests bounds the server-to-client requests (elicitation, sampling,
// roots) a stdio connection answers at once; one more is answered -32603 at once.
const DefaultMaxServerRequests = 16

// Errors of the stdio transport. Each call's error wraps one of them.
var (
	// ErrServerExited fails every call pending when the server's output ends (it exited, or
	// closed its standard output), and every call after.
	ErrServerExited = errors.New("client: stdio server exited")
)

// msgTooManyServerRequests answers a server-to-client request past the concurrency bound.
const msgTooManyServerRequests = "Client server-request capacity exhausted"

// messageFunc receives a message the server sends while a call is pending: a notification
// (progress, log message) or a server-to-client request. For a request it returns the
// complete JSON-RPC response to write back; for a notification its answer is ignored. An
// error ends the call it was given to with that error. msg is valid only during the call.
type messageFunc = func(msg []byte) (answer []byte, err error)

// stdioConn speaks newline-delimited JSON-RPC over a pair of streams: one reader goroutine
// matches response lines to pending calls by id; writes are serialised one line at a time.
type stdioConn struct {
	lines *lineReader
	dec   *decode.Decoder
	out   io.Writer

	// Lines go to out through one writer goroutine, so a caller never blocks in a write
	// the server does not read: it waits on its context instead.
	writes chan []byte
	quit   chan struct{} // closed by shutdown: the writer stops
	writer sync.WaitGroup

	mu      sync.Mutex
	pending map[string]*stdioCall
	last    *stdioCall // the call registered last: it gets unattributed server requests
	err     error      // once set, the connection is dead and every call fails with it

	done     chan struct{} // closed when the reader ends
	sem      chan struct{} // server-to-client request handlers running
	handlers sync.WaitGroup
	unasked  atomic.Pointer[messageFunc] // notifications no pending call owns; may be nil

	// exitReason, if set, describes why the server's output ended (its exit status, the
	// end of its standard error). The reader calls it once, as the output ends.
	exitReason func() string

	timeout time.Duration // bounds each call (Config.RequestTimeout)
}

// stdioCall is one request awaiting its response.
type stdioCall struct {
	id string
	stdioCallKind
	heard     atomic.Bool      // the server sent a message for it
	result    chan stdioResult // buffered: the reader never blocks on it
	onMessage messageFunc
}

// stdioCallKind is what a call takes besides its response.
type stdioCallKind struct {
	longLived bool // a subscription: the timeout bounds it until the server is heard
	logs      bool // a call made WithLog: the log messages that come while it is alone
}

type stdioResult struct {
	body []byte
	err  error
}

func newStdioConn(in io.Reader, out io.Writer, maxLine, maxServerRequests int, timeout time.Duration, exitReason func() string) (*stdioConn, error) {
	dec, err := decode.New(decode.Limits{MaxMessageBytes: maxLine})
	if err != nil {
		return nil, err
	}
	c := &stdioConn{
		lines:      newLineReader(in, maxLine),
		dec:        dec,
		out:        out,
		pending:    make(map[string]*stdioCall),
		done:       make(chan struct{}),
		sem:        make(chan struct{}, maxServerRequests),
		exitReason: exitReason,
		timeout:    timeout,
		writes:     make(chan []byte, writeQueue),
		quit:       make(chan struct{}),
	}
	c.writer.Add(1)
	go c.writeLoop()
	go c.readLoop()
	return c, nil
}

// setUnasked routes the notifications no pending call owns (list_changed, log messages) to
// fn, which runs on the reader and must not block.
func (c *stdioConn) setUnasked(fn messageFunc) { c.unasked.Store(&fn) }

// call writes req (one JSON-RPC request whose id literal is id) and waits for its response,
// or until ctx ends (its cause is returned) or timeout passes (an error wrapping
// context.DeadlineExceeded); a response arriving later is dropped.
func (c *stdioConn) call(ctx context.Context, id, req []byte, kind stdioCallKind, timeout time.Duration, onMessage messageFunc) ([]byte, error) {
	pc := &stdioCall{id: string(id), stdioCallKind: kind, result: make(chan stdioResult, 1), onMessage: onMessage}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	if _, dup := c.pending[pc.id]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("client: request id %s is already in flight", id)
	}
	c.pending[pc.id] = pc
	c.last = pc
	c.mu.Unlock()

	// The timeout covers waiting for room in the write queue too: a server that reads
	// nothing cannot hold a caller past it.
	var expired <-chan time.Time
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > timeout {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	if err := c.queueLine(ctx, req, expired, timeout); err != nil {
		c.forget(pc)
		return nil, err
	}
	for {
		select {
		case r := <-pc.result:
			return r.body, r.err
		case <-ctx.Done():
			if c.forget(pc) && pc.longLived {
				// Nothing else tells the server a subscription was let go: withdraw it.
				_ = c.writeLine(context.WithoutCancel(ctx), appendCancelled(id))
			}
			return nil, context.Cause(ctx)
		case <-expired:
			if pc.longLived && pc.heard.Load() {
				expired = nil // an acknowledged stream has no deadline
				continue
			}
			c.forget(pc)
			return nil, timedOut(timeout)
		}
	}
}

func appendCancelled(id []byte) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`), id...)
	return append(b, `}}`...)
}

func timedOut(timeout time.Duration) error {
	return fmt.Errorf("client: stdio request timed out after %v: %w", timeout, context.DeadlineExceeded)
}

// forget removes pc from the pending calls; it reports whether pc was still there.
func (c *stdioConn) forget(pc *stdioCall) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[pc.id] != pc {
		return false
	}
	delete(c.pending, pc.id)
	if c.last == pc {
		c.last = nil
	}
	return true
}

// notify queues one line that gets no answer, waiting for room at most until ctx ends.
func (c *stdioConn) notify(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.writeLine(ctx, msg)
}

// tryWriteLine queues msg only if there is room. The reader uses it: blocking there would
// stop it reading the server's output, and a server blocked writing that output reads no
// input either. A dropped line is an answer the server's own request deadline covers.
func (c *stdioConn) tryWriteLine(msg []byte) {
	select {
	case c.writes <- append(append(make([]byte, 0, len(msg)+1), msg...), '\n'):
	default:
	}
}

// writeQueue is how many lines may wait for the writer.
const writeQueue = 64

// writeLine queues msg and its newline for the writer, waiting for room at most until ctx
// ends. It fails once the writer failed or the connection shut down.
func (c *stdioConn) writeLine(ctx context.Context, msg []byte) error {
	return c.queueLine(ctx, msg, nil, 0)
}

// queueLine is writeLine that also gives up when expired fires (the request's timeout).
func (c *stdioConn) queueLine(ctx context.Context, msg []byte, expired <-chan time.Time, timeout time.Duration) error {
	line := make([]byte, 0, len(msg)+1)
	line = append(append(line, msg...), '\n')
	select {
	case c.writes <- line:
		return nil
	case <-c.quit:
		return ErrClosed
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-expired:
		return timedOut(timeout)
	}
}

// maxWriteBatch is how many bytes of queued lines the writer joins into one Write: calls
// made at once reach the server in one system call instead of one each.
const maxWriteBatch = 64 << 10

// writeLoop writes the queued lines, whole lines in each Write so lines never interleave,
// joining those already queued into one Write. A failed write means the server is gone:
// every call fails, and later lines are dropped.
func (c *stdioConn) writeLoop() {
	defer c.writer.Done()
	var (
		failed bool
		batch  []byte
	)
	write := func(p []byte) {
		if failed {
			return
		}
		if _, err := c.out.Write(p); err != nil {
			failed = true
			c.fail(fmt.Errorf("%w: writing to it: %w", ErrServerExited, err))
		}
	}
	for {
		select {
		case line := <-c.writes:
			if len(c.writes) == 0 {
				// Let the callers already runnable queue their lines first.
				runtime.Gosched()
			}
			batch = c.joinQueued(append(batch[:0], c.hooked(line)...))
			write(batch)
			if cap(batch) > maxWriteBatch {
				batch = nil // a huge line's buffer is not kept
			}
		case <-c.quit:
			// Write what was queued before the shutdown (the notifications/cancelled of a
			// call that just timed out, say), then stop.
			for {
				select {
				case line := <-c.writes:
					write(line)
				default:
					return
				}
			}
		}
	}
}

// joinQueued appends to batch the lines already queued, up to maxWriteBatch bytes.
func (c *stdioConn) joinQueued(batch []byte) []byte {
	for len(batch) < maxWriteBatch {
		select {
		case line := <-c.writes:
			batch = append(batch, c.hooked(line)...)
		default:
			return batch
		}
	}
	return batch
}

// hooked runs the test hook, if any, on line as the writer takes it.
func (c *stdioConn) hooked(line []byte) []byte {
	if h := testHookStdioWrite.Load(); h != nil {
		(*h)(c, line)
	}
	return line
}

// shutdown stops the writer once it has written the lines queued so far (waiting for that
// at most timeout), then runs closeInput, which closes the server's input and so also ends
// a write the server does not read, and waits for the writer.
func (c *stdioConn) shutdown(timeout time.Duration, closeInput func()) {
	stopped := make(chan struct{})
	go func() {
		c.writer.Wait()
		close(stopped)
	}()
	close(c.quit)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-stopped:
	case <-timer.C:
	}
	closeInput()
	<-stopped
}

// fail marks the connection dead with err and fails every pending call with it, at once.
func (c *stdioConn) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	err = c.err
	calls := c.pending
	c.pending = map[string]*stdioCall{}
	c.last = nil
	c.mu.Unlock()
	for _, pc := range calls {
		pc.result <- stdioResult{err: err}
	}
}
