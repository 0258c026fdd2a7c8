package stdio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
)

// handler is the part of the core's transport.Endpoint the transport uses. Tests
// substitute it to drive subscriptions/listen streams without an event source, and the
// initialize-era core.
type handler interface {
	Classify(m *decode.Message, version []byte, hasVersion bool) (fastmcp.Dialect, *fastmcp.Error)
	Serve(ctx context.Context, st *fastmcp.ConnState, m *decode.Message, sink fastmcp.Sink, dst []byte) fastmcp.Reply
	Answer(m *decode.Message, principal string) bool
	SubscribeEvents(ev *fastmcp.LegacyEvents) func(ctx context.Context, sink fastmcp.Sink) error
	Stateless(d fastmcp.Dialect) fastmcp.ConnState
	DecodeError(dst []byte, m *decode.Message, err error) fastmcp.Reply
}

var _ handler = (*transport.Endpoint)(nil)

// Serve serves s over newline-delimited JSON-RPC on cfg.Input and cfg.Output (by default the
// process's standard input and output) until the end of input and until the requests it
// admitted have their outcome, then returns nil. It returns early, with an error, when a
// write fails or times out (a terminal failure, see [Config.WriteTimeout]), when ctx ends
// (its cause), or when the executor is closed under it (wrapping pool.ErrClosed) once the
// requests it holds are answered. A read error other than the end of input ends the input
// the same way and is returned, wrapped, once the admitted requests are answered.
//
// When Serve returns early, running requests are cancelled, queued ones are dropped, open
// subscriptions are closed, and nothing more is written. A Read of cfg.Input still in
// progress then completes on its own goroutine and its bytes are discarded; Serve cannot
// interrupt it unless cfg.Input has a SetReadDeadline method. Serve never closes cfg.Input
// or cfg.Output.
//
// An invalid cfg is an error wrapping [ErrInvalidConfig].
func Serve(ctx context.Context, s *fastmcp.Server, cfg Config) error {
	if s == nil {
		return fmt.Errorf("%w: nil Server", ErrInvalidConfig)
	}
	ep := transport.For(s)
	return serve(ctx, ep, ep.Decoder(), cfg)
}

func serve(ctx context.Context, h handler, dec *decode.Decoder, cfg Config) (err error) {
	set, err := cfg.resolve()
	if err != nil {
		return err
	}
	ex := cfg.Executor
	if ex == nil {
		if ex, err = pool.New(cfg.poolConfig(set)); err != nil {
			return fmt.Errorf("%w: Pool: %w", ErrInvalidConfig, err)
		}
		defer closeOwned(ex, set)
	}
	in := cfg.Input
	if in == nil {
		in = os.Stdin
	}
	out := cfg.Output
	if out == nil {
		f, restore, err := takeStdout()
		if err != nil {
			return err
		}
		defer restore()
		out = f
	}
	return newConn(ctx, h, dec, ex, in, out, set).run(ctx)
}

// closeOwned closes an executor Serve created. Every request has its outcome by now, but a
// handler that ignores its cancellation may still be running: Close waits for it at most
// one write timeout.
func closeOwned(ex *pool.Executor, set settings) {
	ctx, cancel := context.WithTimeout(context.Background(), set.writeTimeout)
	defer cancel()
	if err := ex.Close(ctx); err != nil {
		set.log.Warn("stdio: handlers still running after Serve", "err", err)
	}
}

// run serves until the input ends and the admitted work is done, or until a terminal
// failure or ctx ends.
func (c *conn) run(ctx context.Context) error {
	go c.writeLoop()
	go c.readLoop()

	select {
	case <-c.inputEnded:
	case <-c.stopped:
	case <-ctx.Done():
		c.stop(context.Cause(ctx))
	}
	c.mu.Lock()
	c.stopReadingLocked()
	c.mu.Unlock()
	c.unblockReader()
	// The client closed its input (or serving stops): subscriptions end without a final
	// reply, as when the client cancels them.
	c.closeListens()

	select {
	case <-c.drained:
	case <-c.stopped:
	case <-ctx.Done():
		c.stop(context.Cause(ctx))
	}
	c.closeOutput() // the writer writes what is pending, unless stopped, and exits
	select {
	case <-c.writerDone:
	case <-c.stopped:
	case <-ctx.Done():
		c.stop(context.Cause(ctx))
	}
	if c.out.dl != nil {
		// Its write ends by its deadline; then the writer clears the deadline, which must
		// happen before Output is handed back. (Without deadlines the writer may be blocked
		// in a write that timed out, and is not waited for.)
		<-c.writerDone
	}
	c.cancel(errServeEnded)
	c.waitListens()
	return c.result()
}

var errServeEnded = errors.New("stdio: Serve returned")

// aLongTimeAgo is a read deadline in the past, which makes a blocked Read return at once.
var aLongTimeAgo = time.Unix(1, 0)

// result is the error Serve returns.
func (c *conn) result() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.stopErr != nil:
		return c.stopErr
	case c.execErr != nil:
		return fmt.Errorf("stdio: executor closed while serving: %w", c.execErr)
	case c.readErr != nil:
		return fmt.Errorf("stdio: reading input: %w", c.readErr)
	}
	return nil
}

// unblockReader interrupts a Read in progress when Input supports read deadlines, waits
// (at most one write timeout) for the reader to go, and clears the deadline again for
// whoever uses Input next.
func (c *conn) unblockReader() {
	select {
	case <-c.readerDone:
		return
	default:
	}
	d, ok := c.in.(interface{ SetReadDeadline(time.Time) error })
	if !ok || d.SetReadDeadline(aLongTimeAgo) != nil {
		return
	}
	t := time.NewTimer(c.set.writeTimeout)
	defer t.Stop()
	select {
	case <-c.readerDone:
		_ = d.SetReadDeadline(time.Time{})
	case <-t.C:
	}
}

// readLoop frames, decodes and admits the input, one line at a time, until the input ends
// or the connection stops reading.
func (c *conn) readLoop() {
	defer close(c.readerDone)
	lr := newLineReader(c.in, c.set.maxLineBytes)
	for c.waitForSpace() {
		j := c.getJob()
		line, tooLong, err := lr.next(j.line)
		j.line = line
		switch {
		case err != nil:
			c.putJob(j)
			c.endInput(err)
			return
		case tooLong:
			c.putJob(j)
			_, _ = c.put(decode.AppendError(nil, nil, codeInvalidRequest, msgLineTooLong, nil, true), nil, false)
		default:
			c.serveLine(j)
		}
	}
}

// endInput records why the input ended; the connection then drains.
func (c *conn) endInput(err error) {
	if c.halted.Load() {
		return // reading had stopped already: this is unblockReader's doing, or late
	}
	if !errors.Is(err, io.EOF) {
		c.set.log.Error("stdio: reading input", "err", err)
		_, _ = c.put(decode.AppendError(nil, nil, codeParse, msgReadFailed, nil, true), nil, false)
	}
	c.mu.Lock()
	if !errors.Is(err, io.EOF) && c.reading {
		c.readErr = err
	}
	c.stopReadingLocked()
	c.mu.Unlock()
}
