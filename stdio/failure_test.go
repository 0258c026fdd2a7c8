package stdio

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
)

// blockingWriter's Write records the call and blocks until release is closed, then
// succeeds; Close records a call Serve must never make.
type blockingWriter struct {
	release chan struct{}
	mu      sync.Mutex
	calls   int
	closed  bool
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.calls++
	w.mu.Unlock()
	<-w.release
	return len(p), nil
}

func (w *blockingWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return nil
}

func (w *blockingWriter) state() (calls int, closed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls, w.closed
}

// failingWriter fails every write with err.
type failingWriter struct {
	err   error
	mu    sync.Mutex
	calls int
}

func (w *failingWriter) Write([]byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls++
	return 0, w.err
}

// Case 43: a write that never returns is terminal after WriteTimeout: running and queued
// work is cancelled, Serve returns ErrWriteTimeout, nothing is written afterwards even when
// the device later takes the write, the device is neither closed nor stopped, and the
// injected executor keeps running.
func TestBlockedWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, tt := newTestServer(t)
		ex := newExecutor(t, pool.Config{MaxConcurrency: 2})
		w := &blockingWriter{release: make(chan struct{})}
		var once sync.Once
		release := func() { once.Do(func() { close(w.release) }) }
		defer release() // also when the test fails: the bubble must end
		inR, inW := io.Pipe()
		defer inW.Close()
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			done <- Serve(context.Background(), s, Config{Input: inR, Output: w, WriteTimeout: 30 * time.Millisecond, Executor: ex, Logger: discard})
		}()
		send := func(l string) {
			_, err := io.WriteString(inW, l+"\n")
			require.NoError(t, err)
		}
		send(call("1", "wait", `{"key":"running"}`))
		require.Equal(t, "running", <-tt.started)
		send(call("2", "echo", `{"text":"blocks"}`))
		synctest.Wait() // the echo response is in a write that does not return
		send(call("3", "wait", `{"key":"second"}`))
		require.Equal(t, "second", <-tt.started)
		send(call("4", "wait", `{"key":"queued"}`))
		synctest.Wait()
		require.Equal(t, 2, ex.Running(), "two waits run")
		require.Equal(t, 1, ex.Queued(), "one is queued")

		err := <-done
		require.ErrorIs(t, err, ErrWriteTimeout)
		require.Equal(t, 30*time.Millisecond, time.Since(start))
		ended := []string{<-tt.ended, <-tt.ended}
		require.ElementsMatch(t, []string{"running:context canceled", "second:context canceled"}, ended)
		synctest.Wait()
		require.Zero(t, ex.Running()+ex.Queued(), "the queued job was dropped")
		require.Len(t, tt.started, 0)

		release() // the device takes the write at last
		synctest.Wait()
		calls, closed := w.state()
		require.Equal(t, 1, calls, "nothing is written after a timeout")
		require.False(t, closed)
		require.NoError(t, ex.Submit(context.Background(), pool.Key{}, pool.Func(func(context.Context) error { return nil })),
			"the injected executor is alive")
	})
}

// A write error is terminal in the same way and Serve returns it.
func TestFailedWrite(t *testing.T) {
	s, tt := newTestServer(t)
	w := &failingWriter{err: syscall.ENOSPC}
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error)
	go func() {
		done <- Serve(context.Background(), s, Config{Input: inR, Output: w, Logger: discard})
	}()
	_, err := io.WriteString(inW, call("1", "wait", `{"key":"w"}`)+"\n")
	require.NoError(t, err)
	require.Equal(t, "w", <-tt.started)
	_, err = io.WriteString(inW, call("2", "echo", `{"text":"x"}`)+"\n")
	require.NoError(t, err)
	err = <-done
	require.ErrorIs(t, err, syscall.ENOSPC)
	require.Equal(t, "w:context canceled", <-tt.ended)
	require.Equal(t, 1, w.calls)
}

// A failed acknowledgement write closes the stream that was opening.
func TestFailedAckWrite(t *testing.T) {
	s, _ := newTestServer(t)
	h := newStreams(s)
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() {
		done <- serve(context.Background(), h, transport.For(s).Decoder(), Config{Input: inR, Output: &failingWriter{err: syscall.EPIPE}, Logger: discard})
	}()
	_, err := io.WriteString(inW, listen(`"a"`)+"\n")
	require.NoError(t, err)
	require.ErrorIs(t, <-done, syscall.EPIPE)
	require.Equal(t, `"a":ack failed`, <-h.closed)
}

// When Output has write deadlines, the timeout is its own (here a net.Conn whose peer never
// reads): the error wraps both ErrWriteTimeout and os.ErrDeadlineExceeded, and the deadline
// is cleared for whoever uses the connection next.
func TestWriteDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newTestServer(t)
		server, client := net.Pipe()
		defer client.Close()
		defer server.Close()
		start := time.Now()
		err := Serve(context.Background(), s, Config{
			Input:        strings.NewReader(call("1", "echo", `{"text":"x"}`) + "\n"),
			Output:       server,
			WriteTimeout: 40 * time.Millisecond,
			Logger:       discard,
		})
		require.ErrorIs(t, err, ErrWriteTimeout)
		require.ErrorIs(t, err, os.ErrDeadlineExceeded)
		require.Equal(t, 40*time.Millisecond, time.Since(start))

		go func() { _, _ = io.Copy(io.Discard, client) }()
		_, err = server.Write([]byte("later\n"))
		require.NoError(t, err, "the deadline was cleared")
	})
}

// Case 38: the executor closed under Serve: the requests it held are answered with -32603
// "Request executor unavailable", and Serve returns an error wrapping pool.ErrClosed.
func TestExecutorClosed(t *testing.T) {
	s, tt := newTestServer(t)
	ex, err := pool.New(quietPool(pool.Config{}))
	require.NoError(t, err)
	c := startClient(t, serveServer(s), Config{Executor: ex})
	c.send(call("1", "wait", `{"key":"a"}`))
	require.Equal(t, "a", <-tt.started)
	gone, cancelClose := context.WithCancel(context.Background())
	cancelClose()
	require.ErrorIs(t, ex.Close(gone), context.Canceled) // cancels the running job at once
	requireError(t, c.recv(), "1", -32603, "Request executor unavailable")
	rest, err := c.close()
	require.ErrorIs(t, err, pool.ErrClosed)
	require.Empty(t, rest)
	require.NoError(t, ex.Close(context.Background()))

	// A request submitted to a closed executor gets the same answer.
	out, err := serveOutput(t, s, call("2", "echo", `{"text":"x"}`)+"\n", Config{Executor: ex})
	require.ErrorIs(t, err, pool.ErrClosed)
	require.Len(t, out, 1)
	requireError(t, decodeLine(t, out[0]), "2", -32603, "Request executor unavailable")
}

// When Serve's context ends, it returns its cause at once; an Input with read deadlines is
// interrupted (its reader goroutine leaves) and handed back with no deadline, unclosed.
func TestContextCancelledWithDeadlineInput(t *testing.T) {
	s, tt := newTestServer(t)
	in, client := net.Pipe()
	defer in.Close()
	defer client.Close()
	var out recordingWriter
	ctx, stop := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, s, Config{Input: in, Output: &out, Logger: discard}) }()
	_, err := io.WriteString(client, call("1", "wait", `{"key":"w"}`)+"\n")
	require.NoError(t, err)
	require.Equal(t, "w", <-tt.started)
	boom := errors.New("shutting down")
	stop(boom)
	require.ErrorIs(t, <-done, boom)
	require.Equal(t, "w:context canceled", <-tt.ended)
	require.Empty(t, out.writes(), "a cancelled request gets no response")

	go func() { _, _ = io.WriteString(client, "after\n") }()
	buf := make([]byte, 6)
	_, err = io.ReadFull(in, buf)
	require.NoError(t, err, "the read deadline was cleared")
	require.Equal(t, "after\n", string(buf))
}
